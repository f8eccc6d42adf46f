/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.json.JsonReadFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.io.IOException;
import java.io.Serializable;
import java.util.Optional;

/**
 * Reads one Kafka record that Debezium wrote with its {@code JsonConverter}: the key and value bytes of a change
 * event (any data topic) or of a transaction event (the {@code <topic.prefix>.transaction} topic).
 *
 * <ul>
 *   <li>A null value is a tombstone (Kafka's compaction marker after a delete): nothing, {@link Optional#empty()}.
 *   <li>A value with {@code op} is a {@link ChangeEvent}; one with {@code status} a {@link TransactionBoundary}.
 *   <li>Key and value each with or without the embedded schema ({@code schemas.enable}, which key and value may set
 *       apart): with it, every value is typed ({@link ColumnType}); without it, every value is a {@link JsonScalar}.
 *   <li>Anything else, and any type this module does not read, throws {@link ChangeEventFormatException} naming
 *       the field and what is wrong, never quoting more than a short excerpt of the event.
 * </ul>
 *
 * Serializable, so that a Flink deserialization schema may hold one; thread-safe, keeping no state between records.
 */
@PublicEvolving
public final class DebeziumJsonParser implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Created on first use after deserialization: the mapper is configuration, not state, and is not shipped. */
    private transient JsonMapper mapper;

    /** A parser; it needs no configuration, since each record says whether it has its schema. */
    public DebeziumJsonParser() {}

    /**
     * The event of one record.
     *
     * @param key the record's key bytes; null for an event without a key (a truncate, a table without a key)
     * @param value the record's value bytes; null for a tombstone
     * @return the event; empty for a tombstone
     * @throws ChangeEventFormatException when the record is not an event this module reads
     */
    public Optional<CdcEvent> parse(byte[] key, byte[] value) {
        if (value == null) {
            return Optional.empty();
        }
        JsonNode valueTree = tree(value, "value");
        if (valueTree.isNull()) {
            return Optional.empty();
        }
        Enveloped enveloped = Enveloped.of(valueTree, "value");
        JsonNode payload = enveloped.payload;
        if (payload.has("op")) {
            return Optional.of(
                    EnvelopeReader.read(payload, Optional.ofNullable(enveloped.schema), key(key), enveloped.path));
        }
        if (payload.has("status")) {
            return Optional.of(TransactionReader.read(payload, enveloped.path));
        }
        throw new ChangeEventFormatException(
                enveloped.path,
                "neither a change event (no op) nor a transaction event (no status); fields: " + fieldNames(payload));
    }

    private Optional<Row> key(byte[] key) {
        if (key == null) {
            return Optional.empty();
        }
        JsonNode keyTree = tree(key, "key");
        if (keyTree.isNull()) {
            return Optional.empty();
        }
        Enveloped enveloped = Enveloped.of(keyTree, "key");
        if (enveloped.payload.isNull()) {
            return Optional.empty();
        }
        Optional<RowSchema> schema =
                Optional.ofNullable(enveloped.schema).map(s -> SchemaReader.rowSchema(s, "key.schema"));
        return Optional.of(RowReader.read(enveloped.payload, schema, enveloped.path));
    }

    private JsonNode tree(byte[] bytes, String path) {
        try {
            JsonNode tree = mapper().readTree(bytes);
            if (tree == null || tree.isMissingNode()) {
                throw new ChangeEventFormatException(path, "empty, where JSON belongs");
            }
            return tree;
        } catch (JsonProcessingException e) {
            // Jackson's message quotes a little of the input and says where: no whole payload.
            throw new ChangeEventFormatException(path, "not JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ChangeEventFormatException(path, "unreadable: " + e.getMessage(), e);
        }
    }

    // JsonNodeFactory.withExactBigDecimals is deprecated from Jackson 2.15 on for a JsonNodeFeature that Flink
    // 1.20's shaded Jackson (2.14) lacks; both lines build this module.
    @SuppressWarnings("deprecation")
    private JsonMapper mapper() {
        JsonMapper m = mapper;
        if (m == null) {
            // Exact numbers: a decimal literal stays a BigDecimal of its scale, never a double. NaN and the
            // infinities of a float column are accepted as JsonConverter may write them.
            m = JsonMapper.builder()
                    .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
                    .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                    .build();
            mapper = m;
        }
        return m;
    }

    /** An object's field names (a few), or an excerpt of anything else. */
    private static String fieldNames(JsonNode node) {
        if (!node.isObject()) {
            return JsonFields.excerpt(node);
        }
        StringBuilder names = new StringBuilder();
        node.fieldNames()
                .forEachRemaining(
                        name -> names.append(names.length() == 0 ? "" : ", ").append(name));
        return names.length() > 80 ? names.substring(0, 80) + "..." : names.toString();
    }

    /** A JSON document split into its payload and, with {@code schemas.enable}, its schema. */
    private static final class Enveloped {
        final JsonNode payload;
        /** Null without an embedded schema. */
        final JsonNode schema;
        /** Where the payload is: {@code value.payload} with a schema, {@code value} without. */
        final String path;

        private Enveloped(JsonNode payload, JsonNode schema, String path) {
            this.payload = payload;
            this.schema = schema;
            this.path = path;
        }

        /**
         * JsonConverter with schemas writes exactly {@code {"schema": ..., "payload": ...}}; no Debezium payload has
         * a field named {@code schema} beside one named {@code payload}, so the two shapes never meet.
         */
        static Enveloped of(JsonNode tree, String path) {
            if (tree.isObject() && tree.size() == 2 && tree.has("schema") && tree.has("payload")) {
                JsonNode schema = tree.get("schema");
                return new Enveloped(tree.get("payload"), schema.isNull() ? null : schema, path + ".payload");
            }
            return new Enveloped(tree, null, path);
        }
    }
}
