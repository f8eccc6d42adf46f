/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.DebeziumJsonParser;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.WholeTransaction;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The types of {@link CdcTypes} on a typed event as the parser makes it (an embedded schema, a decimal, bytes): what
 * crosses from one operator to the next and what a checkpoint holds comes back equal.
 */
class CdcTypesTest {

    private static final SerializerConfig CONFIG = new ExecutionConfig().getSerializerConfig();

    /** An INSERT with its schema: {@code id} int32, {@code price} a Connect decimal of scale 2, {@code tag} bytes. */
    private static final String INSERT = """
            {"schema": {"type": "struct", "fields": [
               {"field": "before", "type": "struct", "optional": true, "fields": []},
               {"field": "after", "type": "struct", "optional": true, "fields": [
                 {"field": "id", "type": "int32"},
                 {"field": "price", "type": "bytes", "optional": true,
                  "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}},
                 {"field": "tag", "type": "bytes", "optional": true}]}]},
             "payload": {"before": null, "after": {"id": 1, "price": "MDk=", "tag": "AAE="},
               "source": {"connector": "postgresql", "ts_ms": 1767225600000, "db": "shop", "schema": "public",
                          "table": "items", "snapshot": "false", "lsn": 22094720},
               "op": "c", "ts_ms": 1767225600123,
               "transaction": {"id": "749:22094720", "total_order": 1, "data_collection_order": 1}}}""";

    @Test
    void aWholeTransactionOfTypedEventsComesBackEqual() throws Exception {
        ChangeEvent insert = (ChangeEvent) new DebeziumJsonParser()
                .parse(null, INSERT.getBytes(StandardCharsets.UTF_8))
                .orElseThrow();
        assertThat(insert.after().orElseThrow().value("price")).isEqualTo(new BigDecimal("123.45"));
        WholeTransaction whole = new WholeTransaction(7, Events.end("749", "items", 1), List.of(insert));
        TypeSerializer<SourceChanges> serializer = CdcTypes.sourceChanges().createSerializer(CONFIG);

        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(whole, out);
        byte[] bytes = out.getCopyOfBuffer();
        assertThat(serializer.deserialize(new DataInputDeserializer(bytes))).isEqualTo(whole);

        DataOutputSerializer copied = new DataOutputSerializer(256);
        serializer.copy(new DataInputDeserializer(bytes), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
        assertThat(serializer.copy(whole)).as("immutable: its own copy").isSameAs(whole);
    }

    @Test
    void aCheckpointedSerializerIsRestoredAsItWasAndKnowsItsOwnType() throws Exception {
        TypeSerializer<CdcEvent> serializer = CdcTypes.events().createSerializer(CONFIG);
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<CdcEvent> read = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());

        assertThat(read.restoreSerializer()).isEqualTo(serializer);
        assertThat(serializer
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(read)
                        .isCompatibleAsIs())
                .isTrue();
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeSerializerSnapshot<ChangeEvent> other = (TypeSerializerSnapshot) read;
        assertThat(CdcTypes.changeEvents()
                        .createSerializer(CONFIG)
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(other)
                        .isIncompatible())
                .as("a checkpoint of CdcEvents read as ChangeEvents")
                .isTrue();
    }
}
