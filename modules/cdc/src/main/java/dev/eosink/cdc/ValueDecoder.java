/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.UUID;

/**
 * One JSON value of a typed row to the Java value of its column's {@link ColumnType}, exactly: a decimal keeps its
 * scale, a timestamp its microseconds (or nanoseconds). A value that does not fit its type is refused with its path.
 */
final class ValueDecoder {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private ValueDecoder() {}

    /** The value of a node that is not JSON null. */
    static Object decode(JsonNode node, ColumnSchema column, String path) {
        try {
            return decodeOrThrow(node, column, path);
        } catch (DateTimeException | IllegalArgumentException e) {
            if (e instanceof ChangeEventFormatException) {
                throw e;
            }
            throw new ChangeEventFormatException(
                    path, "not a " + column.type() + ": " + JsonFields.excerpt(node) + " (" + e.getMessage() + ")", e);
        }
    }

    private static Object decodeOrThrow(JsonNode node, ColumnSchema column, String path) {
        switch (column.type()) {
            case INT8:
                return (byte) whole(node, path, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case INT16:
                return (short) whole(node, path, Short.MIN_VALUE, Short.MAX_VALUE);
            case INT32:
                return (int) whole(node, path, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case INT64:
                return JsonFields.wholeNumber(node, path);
            case FLOAT32:
                return (float) floating(node, path);
            case FLOAT64:
                return floating(node, path);
            case BOOLEAN:
                if (!node.isBoolean()) {
                    throw mismatch(node, "a JSON boolean", path);
                }
                return node.booleanValue();
            case STRING:
            case JSON:
            case ENUM:
                return text(node, path);
            case BYTES:
                return Base64.getDecoder().decode(text(node, path));
            case DECIMAL:
                return decimal(node, column, path);
            case VARIABLE_SCALE_DECIMAL:
                return variableScaleDecimal(node, path);
            case DATE:
            case CONNECT_DATE:
                return LocalDate.ofEpochDay(JsonFields.wholeNumber(node, path));
            case TIME_MILLIS:
            case CONNECT_TIME:
                return LocalTime.ofNanoOfDay(JsonFields.wholeNumber(node, path) * 1_000_000L);
            case TIME_MICROS:
                return LocalTime.ofNanoOfDay(JsonFields.wholeNumber(node, path) * 1_000L);
            case TIME_NANOS:
                return LocalTime.ofNanoOfDay(JsonFields.wholeNumber(node, path));
            case TIMESTAMP_MILLIS:
            case CONNECT_TIMESTAMP:
                return localDateTime(JsonFields.wholeNumber(node, path), 1_000L);
            case TIMESTAMP_MICROS:
                return localDateTime(JsonFields.wholeNumber(node, path), 1_000_000L);
            case TIMESTAMP_NANOS:
                return localDateTime(JsonFields.wholeNumber(node, path), NANOS_PER_SECOND);
            case ZONED_TIMESTAMP:
                return OffsetDateTime.parse(text(node, path));
            case ZONED_TIME:
                return OffsetTime.parse(text(node, path));
            case UUID:
                return UUID.fromString(text(node, path));
            default:
                throw new IllegalStateException("no decoding for " + column.type());
        }
    }

    private static long whole(JsonNode node, String path, long min, long max) {
        long value = JsonFields.wholeNumber(node, path);
        if (value < min || value > max) {
            throw new ChangeEventFormatException(path, value + " is out of range [" + min + ", " + max + "]");
        }
        return value;
    }

    private static double floating(JsonNode node, String path) {
        if (node.isNumber()) {
            return node.doubleValue();
        }
        // JsonConverter writes NaN and the infinities as strings.
        if (node.isTextual()) {
            switch (node.textValue()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
            }
        }
        throw mismatch(node, "a JSON number", path);
    }

    private static String text(JsonNode node, String path) {
        if (!node.isTextual()) {
            throw mismatch(node, "a JSON string", path);
        }
        return node.textValue();
    }

    /**
     * Connect's decimal: base64 of the unscaled two's-complement value ({@code decimal.format=BASE64}, the default),
     * or a JSON number ({@code decimal.format=NUMERIC}), with the scale of the schema's {@code scale} parameter.
     */
    private static BigDecimal decimal(JsonNode node, ColumnSchema column, String path) {
        int scale = Integer.parseInt(column.parameter("scale")
                .orElseThrow(() ->
                        new ChangeEventFormatException(path, "a Decimal's schema has no scale parameter: " + column)));
        if (node.isNumber()) {
            // Exact: a number with more decimals than the scale is refused, never rounded.
            return node.decimalValue().setScale(scale);
        }
        return new BigDecimal(new BigInteger(Base64.getDecoder().decode(text(node, path))), scale);
    }

    /** Debezium's VariableScaleDecimal: a struct of the {@code scale} and the base64 unscaled {@code value}. */
    private static BigDecimal variableScaleDecimal(JsonNode node, String path) {
        if (!node.isObject()) {
            throw mismatch(node, "a struct of scale and value", path);
        }
        long scale = JsonFields.number(node, "scale", path);
        byte[] unscaled = Base64.getDecoder().decode(JsonFields.text(node, "value", path));
        return new BigDecimal(new BigInteger(unscaled), Math.toIntExact(scale));
    }

    /** A local date-time from a count of units since the epoch, read as UTC: Debezium shifts no zone in or out. */
    private static LocalDateTime localDateTime(long count, long unitsPerSecond) {
        long seconds = Math.floorDiv(count, unitsPerSecond);
        long fraction = Math.floorMod(count, unitsPerSecond);
        int nanos = (int) (fraction * (NANOS_PER_SECOND / unitsPerSecond));
        return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
    }

    private static ChangeEventFormatException mismatch(JsonNode node, String expected, String path) {
        return new ChangeEventFormatException(path, "not " + expected + " but " + JsonFields.excerpt(node));
    }
}
