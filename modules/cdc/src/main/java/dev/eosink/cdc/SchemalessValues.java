/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;

/**
 * Converts the values of events without an embedded schema ({@link JsonScalar}) against the PostgreSQL type of the
 * column they go into, the only type information there is then. Immutable and serializable.
 *
 * <p>A number in a temporal column is a count whose unit the event does not say: Debezium's default
 * ({@code time.precision.mode=adaptive}) writes a {@code timestamp(0..3)} in milliseconds and a {@code timestamp(4..6)}
 * in microseconds, {@code connect} mode milliseconds everywhere. So the unit is declared here, once for timestamps
 * and once for times: microseconds by default, right for PostgreSQL's default {@code timestamp} and {@code time}
 * (precision 6) under adaptive mode. A source whose columns mix precisions needs the embedded schema, which says the
 * unit of each column. Dates are days since 1970-01-01 in every mode.
 *
 * <p>A decimal needs {@code decimal.handling.mode=string} (or {@code double}) without a schema: the default
 * ({@code precise}) writes the unscaled digits in base64 and the scale in the schema alone, so a schemaless event
 * has lost it; such a value is refused, saying so.
 */
@PublicEvolving
public final class SchemalessValues implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final JsonMapper STRUCTS = JsonMapper.builder().build();

    private final ChronoUnit timestampUnit;
    private final ChronoUnit timeUnit;

    /**
     * @param timestampUnit the unit of a number in a {@code timestamp} column: MILLIS, MICROS or NANOS
     * @param timeUnit the unit of a number in a {@code time} column: MILLIS, MICROS or NANOS
     */
    public SchemalessValues(ChronoUnit timestampUnit, ChronoUnit timeUnit) {
        this.timestampUnit = checkUnit(timestampUnit);
        this.timeUnit = checkUnit(timeUnit);
    }

    /** Microseconds for timestamps and times: Debezium's adaptive mode for PostgreSQL's default precision. */
    public static SchemalessValues microseconds() {
        return new SchemalessValues(ChronoUnit.MICROS, ChronoUnit.MICROS);
    }

    private static ChronoUnit checkUnit(ChronoUnit unit) {
        if (unit != ChronoUnit.MILLIS && unit != ChronoUnit.MICROS && unit != ChronoUnit.NANOS) {
            throw new IllegalArgumentException("a temporal unit is MILLIS, MICROS or NANOS, not " + unit);
        }
        return unit;
    }

    /** The unit of a number in a {@code timestamp} column: MILLIS, MICROS or NANOS. */
    public ChronoUnit timestampUnit() {
        return timestampUnit;
    }

    /** The unit of a number in a {@code time} column: MILLIS, MICROS or NANOS. */
    public ChronoUnit timeUnit() {
        return timeUnit;
    }

    /**
     * The value for a column of that PostgreSQL type ({@code bigint}, {@code numeric(10,2)}, {@code timestamp(6)},
     * {@code character varying(20)}, ...): a Short, Integer, Long, Float, Double, BigDecimal, Boolean, String, UUID,
     * byte[], LocalDate, LocalTime, OffsetTime, LocalDateTime or OffsetDateTime; null for null.
     *
     * @throws IllegalArgumentException when the value does not fit the type, or the type is not one it knows
     */
    public Object convert(JsonScalar value, String postgresType) {
        if (value == null) {
            return null;
        }
        String base = baseType(postgresType);
        try {
            return convertTo(value, base);
        } catch (ArithmeticException | DateTimeException | NumberFormatException e) {
            throw new IllegalArgumentException(
                    "value " + value + " does not fit a column of type " + postgresType + ": " + e.getMessage(), e);
        }
    }

    private Object convertTo(JsonScalar value, String base) {
        switch (base) {
            case "smallint":
                return number(value, base).shortValueExact();
            case "integer":
                return number(value, base).intValueExact();
            case "bigint":
                return number(value, base).longValueExact();
            case "real":
                return Float.parseFloat(numberText(value, base));
            case "double precision":
                return Double.parseDouble(numberText(value, base));
            case "numeric":
                return decimal(value);
            case "boolean":
                expect(value, JsonScalar.Kind.BOOLEAN, base);
                return Boolean.parseBoolean(value.text());
            case "text":
                if (value.kind() == JsonScalar.Kind.STRUCTURE) {
                    throw new IllegalArgumentException("a JSON structure " + value + " where text belongs");
                }
                return value.text();
            case "jsonb":
                return value.text();
            case "uuid":
                return UUID.fromString(text(value, base));
            case "bytea":
                return Base64.getDecoder().decode(text(value, base));
            case "date":
                return value.kind() == JsonScalar.Kind.NUMBER
                        ? LocalDate.ofEpochDay(value.number().longValueExact())
                        : LocalDate.parse(text(value, base));
            case "time":
                return value.kind() == JsonScalar.Kind.NUMBER
                        ? LocalTime.ofNanoOfDay(Math.multiplyExact(
                                value.number().longValueExact(),
                                timeUnit.getDuration().toNanos()))
                        : LocalTime.parse(text(value, base));
            case "timetz":
                return OffsetTime.parse(text(value, base));
            case "timestamp":
                return value.kind() == JsonScalar.Kind.NUMBER
                        ? timestamp(value.number().longValueExact())
                        : LocalDateTime.parse(text(value, base));
            case "timestamptz":
                return OffsetDateTime.parse(text(value, base));
            default:
                throw new IllegalArgumentException("no conversion of a schemaless value into type " + base
                        + ": use the embedded schema (schemas.enable=true)");
        }
    }

    private LocalDateTime timestamp(long count) {
        long perSecond = 1_000_000_000L / timestampUnit.getDuration().toNanos();
        long seconds = Math.floorDiv(count, perSecond);
        long nanos =
                Math.floorMod(count, perSecond) * timestampUnit.getDuration().toNanos();
        return LocalDateTime.ofEpochSecond(seconds, (int) nanos, ZoneOffset.UTC);
    }

    /** A decimal from a number, a text ({@code decimal.handling.mode=string}) or a VariableScaleDecimal struct. */
    private static BigDecimal decimal(JsonScalar value) {
        switch (value.kind()) {
            case NUMBER:
                return value.number();
            case STRING:
                try {
                    return new BigDecimal(value.text());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(
                            "text " + value + " is no decimal; if it is base64, Debezium "
                                    + "ran with decimal.handling.mode=precise, whose scale is only in the schema: set "
                                    + "decimal.handling.mode=string, or schemas.enable=true",
                            e);
                }
            case STRUCTURE:
                return variableScale(value);
            default:
                throw new IllegalArgumentException("a " + value.kind() + " " + value + " where a decimal belongs");
        }
    }

    private static BigDecimal variableScale(JsonScalar value) {
        JsonNode struct;
        try {
            struct = STRUCTS.readTree(value.text());
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable structure " + value, e);
        }
        if (!struct.path("scale").isIntegralNumber() || !struct.path("value").isTextual()) {
            throw new IllegalArgumentException(
                    "a structure " + value + " where a decimal's {scale, value} (VariableScaleDecimal) belongs");
        }
        byte[] unscaled = Base64.getDecoder().decode(struct.get("value").textValue());
        return new BigDecimal(new BigInteger(unscaled), struct.get("scale").intValue());
    }

    private static BigDecimal number(JsonScalar value, String type) {
        expect(value, JsonScalar.Kind.NUMBER, type);
        return value.number();
    }

    /** A number's literal, or the text NaN, Infinity or -Infinity of a float column. */
    private static String numberText(JsonScalar value, String type) {
        if (value.kind() == JsonScalar.Kind.STRING && value.text().matches("NaN|-?Infinity")) {
            return value.text();
        }
        expect(value, JsonScalar.Kind.NUMBER, type);
        return value.text();
    }

    private static String text(JsonScalar value, String type) {
        expect(value, JsonScalar.Kind.STRING, type);
        return value.text();
    }

    private static void expect(JsonScalar value, JsonScalar.Kind kind, String type) {
        if (value.kind() != kind) {
            throw new IllegalArgumentException(
                    "a " + value.kind() + " " + value + " where a " + type + " (" + kind + " in JSON) belongs");
        }
    }

    /** The type's name without its modifiers and aliases: {@code character varying(20)} is {@code text}. */
    static String baseType(String postgresType) {
        String type = postgresType.toLowerCase(Locale.ROOT).trim().replaceAll("\\s*\\([^)]*\\)", "");
        type = type.replaceAll("\\s+", " ");
        switch (type) {
            case "int2":
                return "smallint";
            case "int":
            case "int4":
                return "integer";
            case "int8":
                return "bigint";
            case "float4":
                return "real";
            case "float8":
                return "double precision";
            case "decimal":
                return "numeric";
            case "bool":
                return "boolean";
            case "varchar":
            case "character varying":
            case "char":
            case "character":
            case "bpchar":
                return "text";
            case "json":
                return "jsonb";
            case "time without time zone":
                return "time";
            case "time with time zone":
                return "timetz";
            case "timestamp without time zone":
                return "timestamp";
            case "timestamp with time zone":
                return "timestamptz";
            default:
                return type;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SchemalessValues other
                && timestampUnit == other.timestampUnit
                && timeUnit == other.timeUnit;
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestampUnit, timeUnit);
    }

    @Override
    public String toString() {
        return "schemaless values: timestamps in " + timestampUnit + ", times in " + timeUnit;
    }
}
