/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.util.Locale;

/**
 * The data: record {@code i} (0..N-1) is a pure function of {@code i}, the same in every process, but for
 * the time the Flink jobs' source made it ({@link #made}).
 *
 * <p>Append: record i is the row with id i; the table ends with ids 0..N-1.
 *
 * <p>Upsert: 10% of the records (those with {@code i % 10 == 9}, from {@code i = d} on) update the row
 * written {@code d} records earlier ({@link #repeatDistance}, 10,001 unless N is small); the other 90%
 * insert a fresh id ({@code = i}). Every record carries {@code v = i}, so the final table is
 * predictable: per id, {@code v} is the index of the last record with that id (Flink keeps the order of
 * one key, since the upsert job is keyed by id).
 *
 * <p>Why a fixed distance: flink-connector-jdbc's upsert fails on a JDBC batch that holds a key twice
 * when pgjdbc rewrites the batch into multi-row statements ({@code reWriteBatchedInserts}): "ON
 * CONFLICT DO UPDATE command cannot affect row a second time". With {@code i -> i - d} every earlier id
 * is repeated at most once, and never within {@code d / parallelism} records of its insert in one
 * subtask's stream, so no batch of either sink holds a key twice and both run the same workload to the
 * end. (A first version drew the earlier key at random: two repeats of one key then met in one batch
 * now and then, and the peer failed on it.)
 */
final class Workload {

    /** 2026-01-01T00:00:00Z; record i has ts = this + i ms. */
    static final long BASE_MILLIS = 1_767_225_600_000L;

    static final String COLUMNS = "id, k, v, ts";

    /** Column counts: the workloads of the main tables, and the 20-column variant of append ({@link WideRow}). */
    static final int NARROW = 4;

    static final int WIDE = WideRow.COLUMN_COUNT;

    /** {@code ./bench --repeat-distance D} sets it in the bench's JVM and in every run's. */
    static final String REPEAT_DISTANCE_PROPERTY = "eosink.bench.repeatDistance";

    static String createTable(String table) {
        return "CREATE TABLE " + table + " (id bigint PRIMARY KEY, k text, v bigint, ts timestamptz)";
    }

    /** The same table on the server of {@code url}: MariaDB's types (InnoDB, as XA needs), else PostgreSQL's. */
    static String createTable(String table, String url) {
        return Database.isMariaDb(url)
                ? "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, k TEXT, v BIGINT, ts DATETIME(6)) ENGINE=InnoDB"
                : createTable(table);
    }

    enum Case {
        APPEND,
        UPSERT;

        String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private Workload() {}

    /**
     * How far back a repeat reaches: 10,001 records, or about N/4 for small N; always {@code = 1 (mod
     * 10)}, so that record {@code i} ({@code = 9 mod 10}) repeats record {@code i - d} ({@code = 8 mod
     * 10}), which inserted a fresh id.
     */
    static long repeatDistance(long rows) {
        long d = Math.min(Long.getLong(REPEAT_DISTANCE_PROPERTY, 10_001L), rows / 4);
        d -= Math.floorMod(d - 1, 10);
        return Math.max(1L, d);
    }

    /** Whether record i of the upsert workload repeats an earlier key. */
    static boolean repeats(long i, long rows) {
        return i % 10 == 9 && i >= repeatDistance(rows);
    }

    /** The id of record i. */
    static long id(Case workload, long i, long rows) {
        if (workload == Case.APPEND || !repeats(i, rows)) {
            return i;
        }
        return i - repeatDistance(rows);
    }

    /**
     * Record i as the Flink jobs' source makes it: {@link #row}, but with {@code ts} the wall-clock time
     * of its making (milliseconds), so that the table holds, for every row, when its record entered the
     * job, the start of its freshness ({@link Freshness}). Raw COPY keeps the fixed ts of {@link #row}.
     */
    static BenchRow made(Case workload, long i, long rows) {
        BenchRow r = row(workload, i, rows);
        r.tsMillis = System.currentTimeMillis();
        return r;
    }

    static BenchRow row(Case workload, long i, long rows) {
        return new BenchRow(id(workload, i, rows), "k" + Long.toHexString(mix(i)), i, BASE_MILLIS + i);
    }

    /** SplitMix64's finalizer: a cheap, well-mixed hash of the index. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return (z ^ (z >>> 31)) & Long.MAX_VALUE;
    }

    /**
     * What the table must hold after a correct run: row count and sum of v; for the 20-column table
     * also sum(i2) (a hashed integer) and sum(n1) in cents (the numeric). {@link #copyBytes}: the rows'
     * size in binary COPY (what raw COPY sends), for MB/s; 0 when not computed.
     */
    static final class Expected {
        final long rows;
        final long sumV;
        final long sumI2;
        final long sumN1Cents;
        long copyBytes;

        Expected(long rows, long sumV) {
            this(rows, sumV, 0, 0);
        }

        Expected(long rows, long sumV, long sumI2, long sumN1Cents) {
            this.rows = rows;
            this.sumV = sumV;
            this.sumI2 = sumI2;
            this.sumN1Cents = sumN1Cents;
        }

        @Override
        public String toString() {
            return rows + " rows, sum(v) " + sumV
                    + (sumI2 != 0 || sumN1Cents != 0
                            ? ", sum(i2) " + sumI2 + ", sum(n1) " + java.math.BigDecimal.valueOf(sumN1Cents, 2)
                            : "");
        }
    }

    /** What the 20-column table must hold after a correct run of N records, with its COPY size. */
    static Expected expectedWide(long rows) {
        long sumI2 = 0;
        long bytes = 0;
        for (long i = 0; i < rows; i++) {
            sumI2 += WideRow.i2(i);
            bytes += RawCopy.wideSize(i);
        }
        Expected e = new Expected(rows, rows * (rows - 1) / 2, sumI2, rows * (rows - 1) / 2);
        e.copyBytes = bytes;
        return e;
    }

    /** The binary COPY size of the 4-column append workload's N rows (for MB/s). */
    static long narrowCopyBytes(long rows) {
        long bytes = 0;
        for (long i = 0; i < rows; i++) {
            bytes += RawCopy.narrowSize(i, rows);
        }
        return bytes;
    }

    static Expected expected(Case workload, long rows) {
        if (workload == Case.APPEND) {
            return new Expected(rows, rows * (rows - 1) / 2);
        }
        long[] last = new long[Math.toIntExact(rows)];
        java.util.Arrays.fill(last, -1);
        for (long i = 0; i < rows; i++) {
            last[(int) id(workload, i, rows)] = i;
        }
        long count = 0;
        long sum = 0;
        for (long v : last) {
            if (v >= 0) {
                count++;
                sum += v;
            }
        }
        return new Expected(count, sum);
    }
}
