/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the Kafka Connect schema that {@code JsonConverter} embeds with {@code schemas.enable=true}: a struct's
 * fields, and each column's {@link ColumnType}. A type this module does not read is refused here, by its name, with
 * the Debezium setting that avoids it, before any value is looked at.
 */
final class SchemaReader {

    /** What to do about a column of a type this module does not read, whatever its type. */
    private static final String LEAVE_OUT = "leave the column out (column.exclude.list), or have a custom converter "
            + "(the connector's converters setting) write it as a string";

    private SchemaReader() {}

    /** The schema of the struct field {@code name} of an envelope's schema ({@code before}, {@code after}). */
    static Optional<JsonNode> field(JsonNode structSchema, String name, String path) {
        JsonNode fields = structSchema.get("fields");
        if (fields == null || !fields.isArray()) {
            throw new ChangeEventFormatException(path + ".fields", "missing: not the schema of a struct");
        }
        for (JsonNode field : fields) {
            if (name.equals(field.path("field").asText(null))) {
                return Optional.of(field);
            }
        }
        return Optional.empty();
    }

    /** A struct's schema as the schema of a row or a key. */
    static RowSchema rowSchema(JsonNode structSchema, String path) {
        if (!"struct".equals(structSchema.path("type").asText())) {
            throw new ChangeEventFormatException(
                    path + ".type", "not a struct but " + JsonFields.excerpt(structSchema.path("type")));
        }
        JsonNode fields = structSchema.get("fields");
        if (fields == null || !fields.isArray()) {
            throw new ChangeEventFormatException(path + ".fields", "missing: a struct's schema lists its fields");
        }
        List<ColumnSchema> columns = new ArrayList<>();
        for (JsonNode field : fields) {
            String name = JsonFields.text(field, "field", path + ".fields[" + columns.size() + "]");
            columns.add(column(field, path + ".fields[" + name + "]"));
        }
        return new RowSchema(JsonFields.optionalText(structSchema, "name", path), columns);
    }

    private static ColumnSchema column(JsonNode field, String path) {
        String name = JsonFields.text(field, "field", path);
        String connectType = connectType(JsonFields.text(field, "type", path));
        Optional<String> logicalName = JsonFields.optionalText(field, "name", path);
        boolean optional = field.path("optional").asBoolean(false);
        return new ColumnSchema(name, type(connectType, logicalName, path), optional, parameters(field, path));
    }

    /**
     * Kafka Connect's name of a type as JsonConverter writes it: its schema JSON names FLOAT32 {@code float} and
     * FLOAT64 {@code double}, every other type by Connect's own name.
     */
    private static String connectType(String jsonName) {
        switch (jsonName) {
            case "float":
                return "float32";
            case "double":
                return "float64";
            default:
                return jsonName;
        }
    }

    private static ColumnType type(String connectType, Optional<String> logicalName, String path) {
        if (logicalName.isPresent()) {
            String logical = logicalName.get();
            ColumnType type = ColumnType.ofLogicalName(logical)
                    .orElseThrow(() -> new ChangeEventFormatException(
                            path + ".name",
                            "Debezium type " + logical + " is not one this module reads: " + remedy(logical)));
            if (!type.connectType().equals(connectType)) {
                throw new ChangeEventFormatException(
                        path + ".type",
                        logical + " of Connect type " + connectType + ", where " + type.connectType() + " belongs");
            }
            return type;
        }
        return ColumnType.ofConnectType(connectType)
                .orElseThrow(() -> new ChangeEventFormatException(
                        path + ".type",
                        "a column of Connect type " + connectType + " (an array, a map or a composite value) is not "
                                + "one this module reads: " + LEAVE_OUT));
    }

    /** The setting that makes Debezium write a column of this logical type as one this module reads. */
    static String remedy(String logicalName) {
        switch (logicalName) {
            case "io.debezium.time.IsoDate":
            case "io.debezium.time.IsoTime":
            case "io.debezium.time.IsoTimestamp":
            case "io.debezium.time.Year":
                return "set time.precision.mode=adaptive (the default), adaptive_time_microseconds or connect";
            case "io.debezium.time.MicroDuration":
            case "io.debezium.time.Interval":
                return "an interval has no target type here yet: " + LEAVE_OUT;
            default:
                return LEAVE_OUT;
        }
    }

    private static Map<String, String> parameters(JsonNode field, String path) {
        Map<String, String> parameters = new LinkedHashMap<>();
        JsonNode node = field.get("parameters");
        if (node == null || node.isNull()) {
            return parameters;
        }
        if (!node.isObject()) {
            throw new ChangeEventFormatException(path + ".parameters", "not an object but " + JsonFields.excerpt(node));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> parameter = it.next();
            parameters.put(parameter.getKey(), JsonFields.asText(parameter.getValue()));
        }
        return parameters;
    }
}
