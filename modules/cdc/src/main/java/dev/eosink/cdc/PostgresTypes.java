/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import java.util.Locale;
import java.util.Optional;

/**
 * The PostgreSQL column type that holds a column's values as they are: by its {@link ColumnType}, refined by the
 * schema's parameters (a decimal's precision and scale) and, with {@code column.propagate.source.type}, by the
 * source column's type, length and scale (the length of a {@code varchar}, the precision of a {@code numeric} that
 * {@code decimal.handling.mode=string} or {@code double} turned into text or a double).
 */
final class PostgresTypes {

    /** The most a PostgreSQL {@code varchar(n)} or {@code numeric(p)} takes; a greater length means none. */
    private static final int MAX_LENGTH = 10_485_760;

    private static final int MAX_NUMERIC_PRECISION = 1000;

    private PostgresTypes() {}

    static String of(ColumnSchema column) {
        Optional<String> sourceType = column.parameter(ColumnSchema.SOURCE_TYPE).map(t -> t.toUpperCase(Locale.ROOT));
        Optional<Integer> length = integer(column, ColumnSchema.SOURCE_LENGTH);
        Optional<Integer> scale = integer(column, ColumnSchema.SOURCE_SCALE);
        switch (column.type()) {
            case INT8:
            case INT16:
                return "smallint";
            case INT32:
                return "integer";
            case INT64:
                return "bigint";
            case FLOAT32:
                return "real";
            case FLOAT64:
                return isNumeric(sourceType) ? numeric(length, scale) : "double precision";
            case BOOLEAN:
                return "boolean";
            case STRING:
                return string(sourceType, length, scale);
            case BYTES:
                return "bytea";
            case DECIMAL:
                return numeric(integer(column, "connect.decimal.precision"), integer(column, "scale"));
            case VARIABLE_SCALE_DECIMAL:
                return "numeric";
            case DATE:
            case CONNECT_DATE:
                return "date";
            case TIME_MILLIS:
            case CONNECT_TIME:
                return "time(3)";
            case TIME_MICROS:
            case TIME_NANOS:
                // PostgreSQL keeps microseconds at most: a NanoTime's nanoseconds are cut when written.
                return "time(6)";
            case TIMESTAMP_MILLIS:
            case CONNECT_TIMESTAMP:
                return "timestamp(3)";
            case TIMESTAMP_MICROS:
            case TIMESTAMP_NANOS:
                return "timestamp(6)";
            case ZONED_TIMESTAMP:
                return "timestamptz";
            case ZONED_TIME:
                return "timetz";
            case JSON:
                return "jsonb";
            case UUID:
                return "uuid";
            case ENUM:
                // A PostgreSQL enum is a type of its own that someone must create; text holds every label.
                return "text";
            default:
                throw new IllegalStateException("no PostgreSQL type for " + column.type());
        }
    }

    private static String string(Optional<String> sourceType, Optional<Integer> length, Optional<Integer> scale) {
        if (isNumeric(sourceType)) {
            return numeric(length, scale);
        }
        boolean bounded = length.isPresent() && length.get() > 0 && length.get() <= MAX_LENGTH;
        if (bounded
                && sourceType
                        .filter(t -> t.equals("VARCHAR") || t.equals("CHARACTER VARYING"))
                        .isPresent()) {
            return "varchar(" + length.get() + ")";
        }
        if (bounded
                && sourceType
                        .filter(t -> t.equals("BPCHAR") || t.equals("CHAR") || t.equals("CHARACTER"))
                        .isPresent()) {
            return "char(" + length.get() + ")";
        }
        return "text";
    }

    private static boolean isNumeric(Optional<String> sourceType) {
        return sourceType
                .filter(t -> t.equals("NUMERIC") || t.equals("DECIMAL"))
                .isPresent();
    }

    /** {@code numeric(p,s)} when the precision is known and possible, else {@code numeric}. */
    private static String numeric(Optional<Integer> precision, Optional<Integer> scale) {
        if (precision.isEmpty() || precision.get() < 1 || precision.get() > MAX_NUMERIC_PRECISION) {
            return "numeric";
        }
        return "numeric(" + precision.get() + "," + scale.orElse(0) + ")";
    }

    private static Optional<Integer> integer(ColumnSchema column, String parameter) {
        Optional<String> text = column.parameter(parameter);
        try {
            return text.map(Integer::valueOf);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "column " + column.name() + ": parameter " + parameter + " is not a number: " + text.get(), e);
        }
    }
}
