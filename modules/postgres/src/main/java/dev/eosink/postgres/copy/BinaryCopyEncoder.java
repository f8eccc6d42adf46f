/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.copy;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Encodes rows in PostgreSQL's binary COPY format ({@code COPY ... FROM STDIN (FORMAT binary)}): a
 * header, then per row a field count and each field as length + the type's binary "send" form, then
 * a trailer. One encoder per column, chosen from the column's type at writer start; a value whose Java
 * type does not fit the column is refused with a message naming the column.
 *
 * <p>Binary input is parsed by the server with the column's type modifier, so {@code varchar(n)},
 * {@code numeric(p,s)} and constraints are enforced exactly as for INSERT. The declared length of
 * {@code varchar(n)} and {@code char(n)} is also checked here, by PostgreSQL's own rule, when given
 * ({@link #forTypes(List, List, int[])}): the server's error for it names only the COPY line, never
 * the value, and reaches the writer long after the record was sent; refused here, before anything of
 * the row is sent, the record is named exactly ({@link Refused}).
 *
 * <p>A codec of PostgreSQL's format and nothing of the sink's protocol, so it sits outside the sink's
 * internals: the benchmarks' raw-COPY peer is checked against it byte for byte.
 */
@Internal
public final class BinaryCopyEncoder implements Serializable {

    private static final long serialVersionUID = 1L;

    static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0
    };
    static final byte[] TRAILER = {(byte) 0xff, (byte) 0xff};

    /** Microseconds between 1970-01-01 and PostgreSQL's epoch 2000-01-01, where its timestamps count from. */
    public static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    /** Days between 1970-01-01 and PostgreSQL's epoch 2000-01-01, where its dates count from. */
    public static final long PG_EPOCH_DAYS = 10_957L;

    private final List<String> columns;
    private final Column[] encoders;

    private BinaryCopyEncoder(List<String> columns, Column[] encoders) {
        this.columns = columns;
        this.encoders = encoders;
    }

    /**
     * An encoder for columns of the given PostgreSQL types (as {@code pg_type.typname}: int8, text,
     * timestamptz, ...), or empty when a type has no binary encoder here (the sink then uses INSERT).
     */
    public static Optional<BinaryCopyEncoder> forTypes(List<String> columns, List<String> typeNames) {
        return forTypes(columns, typeNames, null);
    }

    /**
     * As {@link #forTypes(List, List)}, and checks the declared length of {@code varchar(n)} and {@code
     * char(n)} columns: {@code maxLengths[i]} is column i's n, in characters as the server counts them
     * (Unicode code points, in every server encoding but SQL_ASCII, where the caller passes none), or
     * -1 for no check; null for none at all.
     */
    public static Optional<BinaryCopyEncoder> forTypes(List<String> columns, List<String> typeNames, int[] maxLengths) {
        Column[] encoders = new Column[typeNames.size()];
        for (int i = 0; i < encoders.length; i++) {
            int maxLength = maxLengths == null ? -1 : maxLengths[i];
            Column c = maxLength >= 0
                    ? ColumnEncoders.boundedText(typeNames.get(i), maxLength)
                    : ColumnEncoders.forType(typeNames.get(i));
            if (c == null) {
                return Optional.empty();
            }
            encoders[i] = c;
        }
        return Optional.of(new BinaryCopyEncoder(List.copyOf(columns), encoders));
    }

    /** The type names this encoder supports. */
    public static final List<String> SUPPORTED = List.of(
            "int2",
            "int4",
            "int8",
            "float4",
            "float8",
            "bool",
            "numeric",
            "text",
            "varchar",
            "bpchar",
            "name",
            "json",
            "jsonb",
            "bytea",
            "uuid",
            "date",
            "timestamp",
            "timestamptz");

    /**
     * PostgreSQL's rule (varchar_input, bpchar_input): a value of more than n characters is refused
     * unless every character after the first n is a space (those are cut off).
     */
    public static void checkLength(String s, int maxLength, String declared) {
        int characters = s.codePointCount(0, s.length());
        if (characters <= maxLength) {
            return;
        }
        for (int i = s.offsetByCodePoints(0, maxLength); i < s.length(); i++) {
            if (s.charAt(i) != ' ') {
                throw new Refused(
                        "value too long for type " + declared + " (" + characters + " characters: \""
                                + (s.length() > MAX_SHOWN ? s.substring(0, MAX_SHOWN) + "\"..." : s + "\"") + ")",
                        "22001");
            }
        }
    }

    /** How much of a refused value a message shows. */
    private static final int MAX_SHOWN = 60;

    /**
     * A value the database would refuse, refused before anything of its row is sent, with the SQLSTATE
     * PostgreSQL would have reported.
     */
    public static final class Refused extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final String sqlState;

        public Refused(String message, String sqlState) {
            super(message);
            this.sqlState = sqlState;
        }

        public String sqlState() {
            return sqlState;
        }
    }

    public static void header(Buffer out) {
        out.raw(HEADER);
    }

    public static void trailer(Buffer out) {
        out.raw(TRAILER);
    }

    /** Appends one row; on a bad value nothing of the row is appended and the message names the column. */
    public void row(Buffer out, Object[] values) {
        if (values == null || values.length != encoders.length) {
            throw new IllegalArgumentException(
                    "the row mapper returned " + (values == null ? "null" : values.length + " values") + " for "
                            + encoders.length + " columns " + columns);
        }
        int mark = out.size();
        out.int16(encoders.length);
        for (int i = 0; i < encoders.length; i++) {
            try {
                if (values[i] == null) {
                    out.int32(-1);
                } else {
                    encoders[i].encode(out, values[i]);
                }
            } catch (Refused e) {
                out.truncate(mark); // nothing of a refused row reaches the server
                throw new Refused("column \"" + columns.get(i) + "\": " + e.getMessage(), e.sqlState());
            } catch (RuntimeException e) {
                out.truncate(mark);
                throw new IllegalArgumentException("column \"" + columns.get(i) + "\": " + e.getMessage(), e);
            }
        }
    }

    /** One column's encoder: a non-null value of it as a field ({@link ColumnEncoders}). */
    @FunctionalInterface
    interface Column extends Serializable {
        void encode(Buffer out, Object value);
    }

    /** A growable byte buffer the COPY writer drains into the connection when it is full enough. */
    public static final class Buffer {
        private byte[] bytes;
        private int size;

        public Buffer(int capacity) {
            bytes = new byte[capacity];
        }

        public int size() {
            return size;
        }

        public byte[] array() {
            return bytes;
        }

        public void clear() {
            size = 0;
        }

        /** Drops what was appended since {@code mark}, a {@link #size()} taken before. */
        public void truncate(int mark) {
            size = mark;
        }

        private void ensure(int more) {
            if (size + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }

        public void byte1(int b) {
            ensure(1);
            bytes[size++] = (byte) b;
        }

        public void int16(long v) {
            ensure(2);
            bytes[size++] = (byte) (v >>> 8);
            bytes[size++] = (byte) v;
        }

        public void int32(int v) {
            ensure(4);
            bytes[size++] = (byte) (v >>> 24);
            bytes[size++] = (byte) (v >>> 16);
            bytes[size++] = (byte) (v >>> 8);
            bytes[size++] = (byte) v;
        }

        public void int64(long v) {
            int32((int) (v >>> 32));
            int32((int) v);
        }

        public void raw(byte[] b) {
            raw(b, 0, b.length);
        }

        public void raw(byte[] b, int offset, int length) {
            ensure(length);
            System.arraycopy(b, offset, bytes, size, length);
            size += length;
        }

        /** A field of {@code b}'s bytes: their length, then them. */
        public void bytes(byte[] b) {
            int32(b.length);
            raw(b);
        }

        /**
         * Overwrites the 4 bytes at {@code position} (appended before) with {@code v}: the length of a
         * field whose size is known only once its content is appended (an array).
         */
        public void int32At(int position, int v) {
            if (position < 0 || position + 4 > size) {
                throw new IndexOutOfBoundsException("int32 at " + position + " of " + size + " bytes");
            }
            bytes[position] = (byte) (v >>> 24);
            bytes[position + 1] = (byte) (v >>> 16);
            bytes[position + 2] = (byte) (v >>> 8);
            bytes[position + 3] = (byte) v;
        }

        /**
         * Appends a text field if {@code s} is ASCII without NUL (where UTF-8 is one byte per char), with
         * no intermediate array; otherwise appends nothing and returns false, for the general path.
         */
        public boolean ascii(String s) {
            int n = s.length();
            ensure(4 + n);
            int at = size + 4;
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                if (c == 0 || c >= 0x80) {
                    return false;
                }
                bytes[at + i] = (byte) c;
            }
            int32(n);
            size += n;
            return true;
        }
    }
}
