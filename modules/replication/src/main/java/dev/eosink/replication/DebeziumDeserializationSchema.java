/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.DebeziumJsonParser;
import dev.eosink.cdc.flink.CdcTypes;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Debezium's JSON records from Kafka (a data topic's change events, the transaction topic's BEGIN and END), as a
 * Kafka source's deserializer: key and value into a {@link CdcEvent}; a tombstone gives nothing. A record that is
 * no event this project reads fails the source, naming the field that is wrong, the topic, partition and offset.
 */
@PublicEvolving
public final class DebeziumDeserializationSchema implements KafkaRecordDeserializationSchema<CdcEvent> {

    private static final long serialVersionUID = 1L;

    private final DebeziumJsonParser parser = new DebeziumJsonParser();

    /** A deserializer of both kinds of topic, with or without the embedded schema: each record says which. */
    public DebeziumDeserializationSchema() {}

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<CdcEvent> out) {
        try {
            parser.parse(record.key(), record.value()).ifPresent(out::collect);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "record " + record.topic() + "-" + record.partition() + "@" + record.offset()
                            + " is no Debezium event this source reads: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public TypeInformation<CdcEvent> getProducedType() {
        return CdcTypes.events();
    }
}
