/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.copy.BinaryCopyEncoder;

import java.time.LocalDate;

/**
 * PostgreSQL's text input forms of dates, times and timestamps, and its reading of a uuid: what the
 * statements of upserts carry (cast by the server to the column's type) and what messages show. ISO
 * 8601 as PostgreSQL writes it, for every year it stores: at least four digits, and years before 1 as
 * "BC" (year 0 of ISO 8601 is 1 BC), which {@link LocalDate#toString} spells otherwise ("+10000",
 * "-0001").
 */
final class PgText {

    private PgText() {}

    private static final long MICROS_PER_DAY = 86_400_000_000L;

    /** A date given as days since 1970-01-01 (Flink's DATE). */
    static String date(int epochDay) {
        StringBuilder b = new StringBuilder(16);
        boolean bc = appendDate(b, LocalDate.ofEpochDay(epochDay));
        return bc ? b.append(" BC").toString() : b.toString();
    }

    /** A time of day given as milliseconds (Flink's TIME): HH:MM:SS.fff. */
    static String time(int millisOfDay) {
        StringBuilder b = new StringBuilder(12);
        appendTime(b, millisOfDay * 1000L);
        return b.toString();
    }

    /**
     * A timestamp given as microseconds since 1970-01-01 00:00: its wall-clock time, or with {@code
     * utc} the instant at offset +00 (for timestamptz, whatever the session's time zone).
     */
    static String timestamp(long epochMicros, boolean utc) {
        long day = Math.floorDiv(epochMicros, MICROS_PER_DAY);
        StringBuilder b = new StringBuilder(36);
        boolean bc = appendDate(b, LocalDate.ofEpochDay(day));
        b.append(' ');
        appendTime(b, Math.floorMod(epochMicros, MICROS_PER_DAY));
        if (utc) {
            b.append("+00");
        }
        return bc ? b.append(" BC").toString() : b.toString();
    }

    /** YYYY-MM-DD, the year of the era; true when it is BC. */
    private static boolean appendDate(StringBuilder b, LocalDate d) {
        int year = d.getYear();
        boolean bc = year <= 0;
        pad(b, bc ? 1 - year : year, 4);
        b.append('-');
        pad(b, d.getMonthValue(), 2);
        b.append('-');
        pad(b, d.getDayOfMonth(), 2);
        return bc;
    }

    /** HH:MM:SS, then the fraction's digits down to the last that is not 0 (none for whole seconds). */
    private static void appendTime(StringBuilder b, long microsOfDay) {
        long seconds = microsOfDay / 1_000_000;
        int fraction = (int) (microsOfDay % 1_000_000);
        pad(b, (int) (seconds / 3600), 2);
        b.append(':');
        pad(b, (int) (seconds / 60 % 60), 2);
        b.append(':');
        pad(b, (int) (seconds % 60), 2);
        if (fraction != 0) {
            b.append('.');
            int digits = 6;
            while (fraction % 10 == 0) {
                fraction /= 10;
                digits--;
            }
            pad(b, fraction, digits);
        }
    }

    private static void pad(StringBuilder b, long value, int width) {
        String digits = Long.toString(value);
        for (int i = digits.length(); i < width; i++) {
            b.append('0');
        }
        b.append(digits);
    }

    /**
     * A uuid as PostgreSQL's {@code uuid_in} reads it: 32 hex digits, in either case, with a hyphen
     * allowed after any group of four, the whole optionally in braces. Returns {most, least}
     * significant bits.
     *
     * @throws BinaryCopyEncoder.Refused as the server would refuse it (SQLSTATE 22P02)
     */
    static long[] uuid(String s) {
        int at = 0;
        int end = s.length();
        boolean braces = end > 0 && s.charAt(0) == '{';
        if (braces) {
            at = 1;
        }
        long[] bits = new long[2];
        for (int digit = 0; digit < 32; digit++) {
            int v = at < end ? Character.digit(s.charAt(at), 16) : -1;
            if (v < 0 || s.charAt(at) > 'f') { // Character.digit takes non-ASCII digits too
                throw badUuid(s);
            }
            at++;
            bits[digit / 16] = bits[digit / 16] << 4 | v;
            if (digit % 4 == 3 && digit < 31 && at < end && s.charAt(at) == '-') {
                at++;
            }
        }
        if (braces) {
            if (at >= end || s.charAt(at) != '}') {
                throw badUuid(s);
            }
            at++;
        }
        if (at != end) {
            throw badUuid(s);
        }
        return bits;
    }

    private static BinaryCopyEncoder.Refused badUuid(String s) {
        String shown = s.length() > 60 ? s.substring(0, 60) + "..." : s;
        return new BinaryCopyEncoder.Refused("invalid input syntax for type uuid: \"" + shown + "\"", "22P02");
    }
}
