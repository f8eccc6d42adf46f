/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The payload of a change event (Debezium's envelope: {@code op}, {@code before}, {@code after}, {@code source},
 * {@code transaction}, {@code ts_ms}) to a {@link ChangeEvent}, its rows typed by the envelope's schema when the
 * event embeds one.
 */
final class EnvelopeReader {

    /** Source fields that {@link TableId} and {@link SourcePosition} hold apart from the connector's position. */
    private static final Set<String> NOT_POSITION = Set.of("connector", "version", "ts_ms", "db", "schema", "table");

    private EnvelopeReader() {}

    /**
     * @param payload the envelope's payload, at {@code path}
     * @param envelopeSchema the envelope's schema, when the event embeds one
     * @param key the event's key
     */
    static ChangeEvent read(JsonNode payload, Optional<JsonNode> envelopeSchema, Optional<Row> key, String path) {
        String op = JsonFields.text(payload, "op", path);
        ChangeKind kind = ChangeKind.ofOp(op)
                .orElseThrow(() -> new ChangeEventFormatException(
                        path + ".op",
                        "'" + op + "' is no row change this module reads (c, r, u, d, t); a logical decoding message"
                                + " (m) is left out with the connector's skipped.operations or a filter"));
        EventOrigin origin = new EventOrigin(
                table(JsonFields.object(payload, "source", path), path + ".source"),
                position(payload, path),
                transaction(payload, path));
        Optional<Row> before;
        try {
            before = row(payload, envelopeSchema, "before", path);
        } catch (ChangeEventFormatException e) {
            if (kind != ChangeKind.DELETE && kind != ChangeKind.UPDATE) {
                throw e;
            }
            // Without REPLICA IDENTITY FULL, Debezium fills a delete's (or an update's) row before with the key's
            // columns and the schema's defaults for the others ("" where a uuid belongs): not a row the source had.
            // One that cannot even be read is no row before; the key says which row changed.
            before = Optional.empty();
        }
        Optional<Row> after = row(payload, envelopeSchema, "after", path);
        try {
            return new ChangeEvent(origin, kind, kind == ChangeKind.TRUNCATE ? Optional.empty() : key, before, after);
        } catch (IllegalArgumentException e) {
            throw new ChangeEventFormatException(path, "op '" + op + "' with these rows: " + e.getMessage(), e);
        }
    }

    private static Optional<Row> row(JsonNode payload, Optional<JsonNode> envelopeSchema, String field, String path) {
        Optional<JsonNode> row = JsonFields.optional(payload, field);
        if (row.isEmpty()) {
            return Optional.empty();
        }
        Optional<RowSchema> schema = envelopeSchema.map(s -> SchemaReader.field(s, field, schemaPath(path))
                .map(f -> SchemaReader.rowSchema(f, schemaPath(path) + ".fields[" + field + "]"))
                .orElseThrow(() -> new ChangeEventFormatException(
                        schemaPath(path) + ".fields", "no schema of the payload's " + field)));
        return Optional.of(RowReader.read(row.get(), schema, path + "." + field));
    }

    /** {@code value.payload} -> {@code value.schema}; a payload without envelope has no schema to read. */
    private static String schemaPath(String payloadPath) {
        return payloadPath.endsWith(".payload")
                ? payloadPath.substring(0, payloadPath.length() - ".payload".length()) + ".schema"
                : payloadPath + ".schema";
    }

    private static TableId table(JsonNode source, String path) {
        return new TableId(
                JsonFields.optionalText(source, "db", path),
                JsonFields.optionalText(source, "schema", path),
                JsonFields.text(source, "table", path));
    }

    private static SourcePosition position(JsonNode payload, String path) {
        JsonNode source = JsonFields.object(payload, "source", path);
        String sourcePath = path + ".source";
        Map<String, String> fields = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = source.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (!NOT_POSITION.contains(field.getKey()) && !field.getValue().isNull()) {
                fields.put(field.getKey(), JsonFields.asText(field.getValue()));
            }
        }
        Optional<Instant> processed = JsonFields.optional(payload, "ts_ms")
                .map(ts -> Instant.ofEpochMilli(JsonFields.wholeNumber(ts, path + ".ts_ms")));
        return new SourcePosition(
                JsonFields.text(source, "connector", sourcePath),
                Instant.ofEpochMilli(JsonFields.number(source, "ts_ms", sourcePath)),
                processed,
                fields);
    }

    private static Optional<SourceTransaction> transaction(JsonNode payload, String path) {
        Optional<JsonNode> block = JsonFields.optional(payload, "transaction");
        if (block.isEmpty()) {
            return Optional.empty();
        }
        String blockPath = path + ".transaction";
        try {
            return Optional.of(new SourceTransaction(
                    JsonFields.text(block.get(), "id", blockPath),
                    JsonFields.number(block.get(), "total_order", blockPath),
                    JsonFields.number(block.get(), "data_collection_order", blockPath)));
        } catch (IllegalArgumentException e) {
            if (e instanceof ChangeEventFormatException) {
                throw e;
            }
            throw new ChangeEventFormatException(blockPath, e.getMessage(), e);
        }
    }
}
