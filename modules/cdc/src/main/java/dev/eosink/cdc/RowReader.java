/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A JSON object of an event (a key, a row before or after) to a {@link Row}: typed by its schema, each of the
 * schema's columns present and no other; or, without a schema, each field a {@link JsonScalar} in the event's order.
 */
final class RowReader {

    private RowReader() {}

    static Row read(JsonNode object, Optional<RowSchema> schema, String path) {
        if (!object.isObject()) {
            throw new ChangeEventFormatException(path, "not a JSON object but " + JsonFields.excerpt(object));
        }
        return schema.isPresent() ? typed(object, schema.get(), path) : schemaless(object, path);
    }

    private static Row typed(JsonNode object, RowSchema schema, String path) {
        LinkedHashMap<String, Object> values = new LinkedHashMap<>();
        for (ColumnSchema column : schema.columns()) {
            String columnPath = path + "." + column.name();
            JsonNode node = object.get(column.name());
            if (node == null) {
                throw new ChangeEventFormatException(columnPath, "missing: the schema has the column, the row not");
            }
            if (node.isNull()) {
                if (!column.optional()) {
                    throw new ChangeEventFormatException(columnPath, "null, which its schema does not allow");
                }
                values.put(column.name(), null);
            } else {
                values.put(column.name(), ValueDecoder.decode(node, column, columnPath));
            }
        }
        if (object.size() != schema.columns().size()) {
            for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (schema.column(name).isEmpty()) {
                    throw new ChangeEventFormatException(path + "." + name, "not in the row's schema");
                }
            }
        }
        return new Row(values, Optional.of(schema));
    }

    private static Row schemaless(JsonNode object, String path) {
        LinkedHashMap<String, Object> values = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            values.put(field.getKey(), scalar(field.getValue()));
        }
        return new Row(values, Optional.empty());
    }

    /** A JSON value as a {@link JsonScalar}; null for JSON null. */
    static JsonScalar scalar(JsonNode node) {
        if (node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return new JsonScalar(JsonScalar.Kind.STRING, node.textValue());
        }
        if (node.isBoolean()) {
            return new JsonScalar(JsonScalar.Kind.BOOLEAN, node.asText());
        }
        if (node.isNumber()) {
            // The exact value in plain notation (the parser reads every number as a BigDecimal or an integer).
            String text = node.isIntegralNumber() || node.isDouble()
                    ? node.asText()
                    : node.decimalValue().toPlainString();
            return new JsonScalar(JsonScalar.Kind.NUMBER, text);
        }
        return new JsonScalar(JsonScalar.Kind.STRUCTURE, node.toString());
    }
}
