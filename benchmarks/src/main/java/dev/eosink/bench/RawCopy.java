/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Properties;

/**
 * The limit: the same rows, made by the same generator, streamed with binary {@code COPY ... FROM
 * STDIN} over pgjdbc's CopyManager, no Flink, set up as {@link RawParts} says (each part's COPY is its
 * transaction: autocommit).
 */
final class RawCopy {

    private static final byte[] HEADER = {
        'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0
    };
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    private static final int BUFFER = 64 * 1024;

    private RawCopy() {}

    /** Copies all rows; records in {@link Probe} the first row's and the last commit's times. */
    static void run(String url, Properties props, String table, long rows, int parallelism) throws Exception {
        run(url, props, table, rows, parallelism, Workload.NARROW);
    }

    /** As {@link #run(String, Properties, String, long, int)}, of the 4- or the 20-column table. */
    static void run(String url, Properties props, String table, long rows, int parallelism, int columns)
            throws Exception {
        RawParts.run(url, props, rows, parallelism, (c, from, to) -> {
            if (columns == Workload.WIDE) {
                copyWide(c, table, from, to);
            } else {
                copy(c, table, from, to, rows);
            }
        });
    }

    private static void copy(Connection c, String table, long from, long to, long rows) throws Exception {
        CopyIn in = c.unwrap(PGConnection.class)
                .getCopyAPI()
                .copyIn("COPY " + table + " (" + Workload.COLUMNS + ") FROM STDIN (FORMAT binary)");
        byte[] buf = new byte[BUFFER];
        int n = 0;
        System.arraycopy(HEADER, 0, buf, 0, HEADER.length);
        n += HEADER.length;
        try {
            for (long i = from; i < to; i++) {
                BenchRow r = RawParts.appendRow(i, from, rows);
                byte[] k = r.k.getBytes(StandardCharsets.UTF_8);
                if (n + 46 + k.length > buf.length) {
                    in.writeToCopy(buf, 0, n);
                    n = 0;
                }
                n = int16(buf, n, 4);
                n = int32(buf, n, 8);
                n = int64(buf, n, r.id);
                n = int32(buf, n, k.length);
                System.arraycopy(k, 0, buf, n, k.length);
                n += k.length;
                n = int32(buf, n, 8);
                n = int64(buf, n, r.v);
                n = int32(buf, n, 8);
                n = int64(buf, n, r.tsMillis * 1_000L - PG_EPOCH_MICROS);
            }
            n = int16(buf, n, -1); // trailer
            in.writeToCopy(buf, 0, n);
            in.endCopy(); // autocommit: the COPY's transaction commits here
            RawParts.committed();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
        }
    }

    /** The 20-column table ({@link WideRow}): the same, with every value encoded by hand. */
    private static void copyWide(Connection c, String table, long from, long to) throws Exception {
        CopyIn in = c.unwrap(PGConnection.class)
                .getCopyAPI()
                .copyIn("COPY " + table + " (" + WideRow.COLUMNS + ") FROM STDIN (FORMAT binary)");
        byte[] buf = new byte[BUFFER];
        int n = 0;
        System.arraycopy(HEADER, 0, buf, 0, HEADER.length);
        n += HEADER.length;
        try {
            for (long i = from; i < to; i++) {
                WideRow r = WideRow.of(i);
                RawParts.made(i, from);
                if (n + WIDE_ROW_MAX > buf.length) {
                    in.writeToCopy(buf, 0, n);
                    n = 0;
                }
                n = wide(buf, n, r);
            }
            n = int16(buf, n, -1); // trailer
            in.writeToCopy(buf, 0, n);
            in.endCopy();
            RawParts.committed();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
        }
    }

    /** An upper bound of one encoded {@link WideRow}: its texts are at most 17, 24, 16 and 7 characters. */
    private static final int WIDE_ROW_MAX = 2 + 20 * 4 + 10 * 8 + 3 * 4 + 2 + (8 + 2 * 5) + 17 + 24 + 16 + 7;

    /** Binary COPY bytes of record i of the 4-column append workload (for MB/s). */
    static int narrowSize(long i, long rows) {
        BenchRow r = Workload.row(Case.APPEND, i, rows);
        return 2 + 4 * 4 + 3 * 8 + r.k.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Binary COPY bytes of record i of the 20-column workload (for MB/s). */
    static int wideSize(long i) {
        return wide(new byte[WIDE_ROW_MAX], 0, WideRow.of(i));
    }

    /** Appends one {@link WideRow}; returns the new end. */
    static int wide(byte[] buf, int n, WideRow r) {
        n = int16(buf, n, WideRow.COLUMN_COUNT);
        n = int64Field(buf, n, r.id);
        n = text(buf, n, r.k);
        n = int64Field(buf, n, r.v);
        n = int64Field(buf, n, r.tsMillis * 1_000L - PG_EPOCH_MICROS);
        n = int64Field(buf, n, r.b1);
        n = int64Field(buf, n, r.b2);
        n = int64Field(buf, n, r.b3);
        n = int32Field(buf, n, r.i1);
        n = int32Field(buf, n, r.i2);
        n = int32Field(buf, n, r.i3);
        n = int64Field(buf, n, Double.doubleToLongBits(r.d1));
        n = int64Field(buf, n, Double.doubleToLongBits(r.d2));
        n = text(buf, n, r.t1);
        n = text(buf, n, r.t2);
        n = text(buf, n, r.t3);
        n = int64Field(buf, n, r.ts2Millis * 1_000L - PG_EPOCH_MICROS);
        n = int64Field(buf, n, r.ts3Millis * 1_000L - PG_EPOCH_MICROS);
        n = int32(buf, n, 1);
        buf[n++] = (byte) (r.f1 ? 1 : 0);
        n = int32(buf, n, 1);
        buf[n++] = (byte) (r.f2 ? 1 : 0);
        return numericCents(buf, n, r.n1Cents);
    }

    private static int int64Field(byte[] b, int at, long v) {
        at = int32(b, at, 8);
        return int64(b, at, v);
    }

    private static int int32Field(byte[] b, int at, int v) {
        at = int32(b, at, 4);
        return int32(b, at, v);
    }

    private static int text(byte[] b, int at, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        at = int32(b, at, bytes.length);
        System.arraycopy(bytes, 0, b, at, bytes.length);
        return at + bytes.length;
    }

    /**
     * numeric's binary form of {@code cents / 100} (cents >= 0, dscale 2): ndigits, weight, sign,
     * dscale, then base-10000 digits without leading or trailing zero groups.
     */
    static int numericCents(byte[] b, int at, long cents) {
        long whole = cents / 100;
        int fraction = (int) (cents % 100) * 100;
        int[] groups = new int[6];
        int intGroups = 0;
        for (long w = whole; w > 0; w /= 10_000) {
            groups[intGroups++] = (int) (w % 10_000); // least significant first
        }
        for (int x = 0, y = intGroups - 1; x < y; x++, y--) {
            int t = groups[x];
            groups[x] = groups[y];
            groups[y] = t;
        }
        int count = intGroups;
        int weight = intGroups - 1;
        if (fraction != 0) {
            groups[count++] = fraction;
        }
        while (count > 0 && groups[count - 1] == 0) {
            count--;
        }
        if (count == 0) {
            weight = 0;
        }
        at = int32(b, at, 8 + 2 * count);
        at = int16(b, at, count);
        at = int16(b, at, weight);
        at = int16(b, at, 0); // sign: positive
        at = int16(b, at, 2); // dscale
        for (int g = 0; g < count; g++) {
            at = int16(b, at, groups[g]);
        }
        return at;
    }

    private static int int16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
        return at + 2;
    }

    private static int int32(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
        return at + 4;
    }

    private static int int64(byte[] b, int at, long v) {
        int32(b, at, (int) (v >>> 32));
        return int32(b, at + 4, (int) v);
    }
}
