/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a column of one PostgreSQL type holds every value of another, as an evolving routed table needs to keep
 * an existing column for a shape's: the same type, or a wider one of the same kind (an integer in a longer integer or
 * a numeric with room for its digits, a real in a double, a string in a longer string or text, a timestamp or time
 * in one of finer precision, json in jsonb). Anything else is refused: a narrower column would fail or round rows,
 * and another kind would change what readers get. Types are compared as {@code format_type} writes them, aliases
 * ({@code int8}, {@code varchar(n)}, {@code timestamptz}) first spelled out.
 */
final class TypeWidening {

    private static final Pattern TYPE =
            Pattern.compile("([a-z_][a-z0-9_ ]*?)\\s*(?:\\(([0-9]+)(?:\\s*,\\s*([0-9]+))?\\))?\\s*"
                    + "(with time zone|without time zone)?");

    private static final Map<String, String> ALIASES = Map.ofEntries(
            Map.entry("int", "integer"),
            Map.entry("int4", "integer"),
            Map.entry("int8", "bigint"),
            Map.entry("int2", "smallint"),
            Map.entry("float8", "double precision"),
            Map.entry("float", "double precision"),
            Map.entry("float4", "real"),
            Map.entry("serial", "integer"),
            Map.entry("serial4", "integer"),
            Map.entry("bigserial", "bigint"),
            Map.entry("serial8", "bigint"),
            Map.entry("smallserial", "smallint"),
            Map.entry("serial2", "smallint"),
            Map.entry("bool", "boolean"),
            Map.entry("decimal", "numeric"),
            Map.entry("varchar", "character varying"),
            Map.entry("char", "character"),
            Map.entry("bpchar", "character"));

    /** Decimal digits before the point that each integer type needs. */
    private static final Map<String, Integer> INTEGER_DIGITS = Map.of("smallint", 5, "integer", 10, "bigint", 19);

    private TypeWidening() {}

    /** Whether a column of type {@code column} holds every value of type {@code values}. */
    static boolean holds(String column, String values) {
        boolean columnArray = column.trim().endsWith("[]");
        if (columnArray || values.trim().endsWith("[]")) {
            // An array holds the values of an array whose elements its own elements hold.
            return columnArray && values.trim().endsWith("[]") && holds(element(column), element(values));
        }
        Optional<Type> c = Type.parse(column);
        Optional<Type> v = Type.parse(values);
        if (c.isEmpty() || v.isEmpty()) {
            return column.trim().equalsIgnoreCase(values.trim());
        }
        return holds(c.get(), v.get());
    }

    private static String element(String array) {
        String t = array.trim();
        return t.substring(0, t.length() - 2);
    }

    private static boolean holds(Type c, Type v) {
        if (c.equals(v)) {
            return true;
        }
        if (INTEGER_DIGITS.containsKey(v.base)) {
            if (INTEGER_DIGITS.containsKey(c.base)) {
                return INTEGER_DIGITS.get(c.base) >= INTEGER_DIGITS.get(v.base);
            }
            return c.base.equals("numeric") && (c.precision < 0 || c.precision - c.scale >= INTEGER_DIGITS.get(v.base));
        }
        switch (v.base) {
            case "real":
                return c.base.equals("double precision");
            case "numeric":
                return c.base.equals("numeric")
                        && (c.precision < 0
                                || v.precision >= 0
                                        && c.scale >= v.scale
                                        && c.precision - c.scale >= v.precision - v.scale);
            case "character varying":
            case "character":
                return c.base.equals("text")
                        || c.base.equals("character varying")
                                && (c.precision < 0 || v.precision >= 0 && c.precision >= v.precision);
            case "timestamp":
            case "time":
                // No precision is PostgreSQL's finest, 6.
                return c.base.equals(v.base) && c.zone.equals(v.zone) && c.fractionDigits() >= v.fractionDigits();
            case "json":
                return c.base.equals("jsonb");
            default:
                return false;
        }
    }

    /** A type spelled as {@code format_type} does: its base name, length or precision, scale and zone. */
    private static final class Type {
        final String base;
        /** -1: none given. */
        final int precision;

        final int scale;
        /** "" when the type has no zone part. */
        final String zone;

        private Type(String base, int precision, int scale, String zone) {
            this.base = base;
            this.precision = precision;
            this.scale = scale;
            this.zone = zone;
        }

        static Optional<Type> parse(String spelled) {
            String s = spelled.trim().toLowerCase(Locale.ROOT);
            if (s.startsWith("timestamptz")) {
                s = "timestamp" + s.substring("timestamptz".length()) + " with time zone";
            } else if (s.startsWith("timetz")) {
                s = "time" + s.substring("timetz".length()) + " with time zone";
            }
            Matcher m = TYPE.matcher(s);
            if (!m.matches()) {
                return Optional.empty();
            }
            String base = ALIASES.getOrDefault(m.group(1).trim(), m.group(1).trim());
            String zone = m.group(4) == null ? "" : m.group(4);
            if ((base.equals("timestamp") || base.equals("time")) && zone.isEmpty()) {
                zone = "without time zone";
            }
            int precision = m.group(2) == null ? -1 : Integer.parseInt(m.group(2));
            if (base.equals("double precision") && precision >= 0) {
                // float(p): real up to 24 binary digits, double precision above; so PostgreSQL spells it.
                base = precision <= 24 ? "real" : "double precision";
                precision = -1;
            }
            if ((base.equals("character") || base.equals("bit")) && precision < 0) {
                precision = 1; // char and bit without a length are of length 1
            }
            int scale = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
            return Optional.of(new Type(base, precision, scale, zone));
        }

        int fractionDigits() {
            return precision < 0 ? 6 : precision;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Type other
                    && base.equals(other.base)
                    && precision == other.precision
                    && scale == other.scale
                    && zone.equals(other.zone);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(base, precision, scale, zone);
        }
    }
}
