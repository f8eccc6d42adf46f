/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import org.apache.flink.annotation.Internal;

/**
 * A record as the sinks show it where a statement failed on it: its {@code toString}, cut short, so
 * that an error message (or a dead-letter row) names the record without carrying a huge one whole.
 * A record whose {@code toString} throws is shown by its class name.
 */
@Internal
public final class RecordText {

    /** At most this many characters of a record's {@code toString} are shown, then "...". */
    public static final int MAX_CHARS = 300;

    private RecordText() {}

    /** The record in brackets, for messages: {@code [Order{id=1, ...}]}. */
    public static String bracketed(Object record) {
        return "[" + plain(record) + "]";
    }

    /** The record's {@code toString}, cut at {@value #MAX_CHARS} characters. */
    public static String plain(Object record) {
        String s;
        try {
            s = String.valueOf(record);
        } catch (RuntimeException e) {
            s = record.getClass().getName() + " (toString failed)";
        }
        return s.length() > MAX_CHARS ? s.substring(0, MAX_CHARS) + "..." : s;
    }
}
