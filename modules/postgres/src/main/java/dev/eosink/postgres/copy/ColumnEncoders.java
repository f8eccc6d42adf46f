/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.copy;

import dev.eosink.postgres.copy.BinaryCopyEncoder.Column;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.UUID;

/**
 * The encoder of each PostgreSQL type {@link BinaryCopyEncoder} supports ({@link BinaryCopyEncoder#SUPPORTED}):
 * a non-null value as one field of a binary COPY row, its length and then the type's binary "send" form.
 *
 * <p>Invariant: a value of a Java type the column's encoder does not take, or out of the type's range, is
 * refused with a message naming what the encoder expected, never sent as something else; what the encoder
 * appended of its field by then is dropped, with the rest of the row, by {@link BinaryCopyEncoder#row}. The
 * encoders hold no state but their column's declared length, and are serializable, as the sink that holds
 * them is.
 */
final class ColumnEncoders {

    private ColumnEncoders() {}

    static Column forType(String type) {
        switch (type.toLowerCase(Locale.ROOT)) {
            case "int2":
                return (out, v) -> {
                    out.int32(2);
                    out.int16(checkedLong(v, Short.MIN_VALUE, Short.MAX_VALUE, "smallint"));
                };
            case "int4":
                return (out, v) -> {
                    out.int32(4);
                    out.int32((int) checkedLong(v, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer"));
                };
            case "int8":
                return (out, v) -> {
                    out.int32(8);
                    out.int64(checkedLong(v, Long.MIN_VALUE, Long.MAX_VALUE, "bigint"));
                };
            case "float4":
                return (out, v) -> {
                    out.int32(4);
                    out.int32(Float.floatToIntBits(number(v, "real").floatValue()));
                };
            case "float8":
                return (out, v) -> {
                    out.int32(8);
                    out.int64(Double.doubleToLongBits(
                            number(v, "double precision").doubleValue()));
                };
            case "bool":
                return (out, v) -> {
                    out.int32(1);
                    out.byte1(bool(v) ? 1 : 0);
                };
            case "numeric":
                return NumericEncoding::encode;
            case "text":
            case "varchar":
            case "bpchar":
            case "name":
            case "json":
                return (out, v) -> {
                    if (!(v instanceof String) || !out.ascii((String) v)) {
                        out.bytes(text(v).getBytes(StandardCharsets.UTF_8));
                    }
                };
            case "jsonb":
                return (out, v) -> {
                    byte[] b = text(v).getBytes(StandardCharsets.UTF_8);
                    out.int32(b.length + 1);
                    out.byte1(1); // jsonb binary format version
                    out.raw(b);
                };
            case "bytea":
                return (out, v) -> {
                    if (!(v instanceof byte[])) {
                        throw mismatch(v, "bytea (byte[])");
                    }
                    out.bytes((byte[]) v);
                };
            case "uuid":
                return (out, v) -> {
                    UUID u = v instanceof UUID ? (UUID) v : v instanceof String ? UUID.fromString((String) v) : null;
                    if (u == null) {
                        throw mismatch(v, "uuid (java.util.UUID or String)");
                    }
                    out.int32(16);
                    out.int64(u.getMostSignificantBits());
                    out.int64(u.getLeastSignificantBits());
                };
            case "date":
                return (out, v) -> {
                    LocalDate d = v instanceof LocalDate
                            ? (LocalDate) v
                            : v instanceof java.sql.Date ? ((java.sql.Date) v).toLocalDate() : null;
                    if (d == null) {
                        throw mismatch(v, "date (LocalDate or java.sql.Date)");
                    }
                    out.int32(4);
                    out.int32(Math.toIntExact(d.toEpochDay() - BinaryCopyEncoder.PG_EPOCH_DAYS));
                };
            case "timestamp":
                return (out, v) -> {
                    LocalDateTime t = v instanceof LocalDateTime
                            ? (LocalDateTime) v
                            : v instanceof java.sql.Timestamp ? ((java.sql.Timestamp) v).toLocalDateTime() : null;
                    if (t == null) {
                        throw mismatch(v, "timestamp (LocalDateTime or java.sql.Timestamp)");
                    }
                    out.int32(8);
                    out.int64(micros(t.toInstant(ZoneOffset.UTC)) - BinaryCopyEncoder.PG_EPOCH_MICROS);
                };
            case "timestamptz":
                return (out, v) -> {
                    Instant t = v instanceof Instant
                            ? (Instant) v
                            : v instanceof OffsetDateTime
                                    ? ((OffsetDateTime) v).toInstant()
                                    : v instanceof ZonedDateTime
                                            ? ((ZonedDateTime) v).toInstant()
                                            : v instanceof java.sql.Timestamp
                                                    ? ((java.sql.Timestamp) v).toInstant()
                                                    : null;
                    if (t == null) {
                        throw mismatch(v, "timestamptz (Instant, OffsetDateTime, ZonedDateTime or java.sql.Timestamp)");
                    }
                    out.int32(8);
                    out.int64(micros(t) - BinaryCopyEncoder.PG_EPOCH_MICROS);
                };
            default:
                return null;
        }
    }

    /**
     * A varchar(n) or char(n) column whose length is checked before encoding (any other type: its usual
     * encoder). The check costs one comparison per value: String.length() counts UTF-16 units, never
     * fewer than the characters, so only a value longer than n in units is counted in code points.
     */
    static Column boundedText(String type, int maxLength) {
        String t = type.toLowerCase(Locale.ROOT);
        if (!t.equals("varchar") && !t.equals("bpchar")) {
            return forType(type);
        }
        String declared = (t.equals("varchar") ? "character varying(" : "character(") + maxLength + ")";
        return (out, v) -> {
            String s = v instanceof String ? (String) v : text(v);
            if (s.length() > maxLength) {
                BinaryCopyEncoder.checkLength(s, maxLength, declared);
            }
            if (!out.ascii(s)) {
                out.bytes(text(s).getBytes(StandardCharsets.UTF_8));
            }
        };
    }

    private static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
    }

    private static Number number(Object v, String type) {
        if (v instanceof Number) {
            return (Number) v;
        }
        throw mismatch(v, type);
    }

    private static long checkedLong(Object v, long min, long max, String type) {
        if (!(v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)) {
            throw mismatch(v, type + " (an integral Number)");
        }
        long l = ((Number) v).longValue();
        if (l < min || l > max) {
            throw new IllegalArgumentException("value " + l + " out of range for " + type);
        }
        return l;
    }

    private static boolean bool(Object v) {
        if (v instanceof Boolean) {
            return (Boolean) v;
        }
        throw mismatch(v, "boolean");
    }

    private static String text(Object v) {
        if (v instanceof String || v instanceof Character || v instanceof CharSequence) {
            String s = v.toString();
            if (s.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("text values cannot contain NUL (0x00)");
            }
            return s;
        }
        throw mismatch(v, "text (String)");
    }

    static IllegalArgumentException mismatch(Object v, String expected) {
        return new IllegalArgumentException(
                "expected " + expected + ", got " + v.getClass().getName());
    }
}
