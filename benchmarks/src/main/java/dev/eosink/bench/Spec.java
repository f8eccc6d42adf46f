/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.util.Locale;

/**
 * One measured case: a writer at a parallelism and checkpoint interval, on the 4-column workload of
 * its writer or the 20-column variant of append, with N rows; run once per round.
 */
final class Spec {

    enum Purpose {
        /** A line of latest.csv. */
        THROUGHPUT,
        /** Only for the heap comparison (long checkpoint interval). */
        HEAP,
        /** Only for the freshness section (a writer at a shorter checkpoint interval). */
        FRESHNESS,
        /** Only for the sensitivity section (row width, checkpoint interval): sweep.csv. */
        SWEEP
    }

    final Writer writer;
    final int parallelism;
    final long intervalMs;
    final Purpose purpose;
    /** {@link Workload#NARROW} (the writer's workload) or {@link Workload#WIDE} (20-column append). */
    final int columns;

    final long rows;

    Spec(Writer writer, int parallelism, long intervalMs, Purpose purpose, long rows) {
        this(writer, parallelism, intervalMs, purpose, Workload.NARROW, rows);
    }

    Spec(Writer writer, int parallelism, long intervalMs, Purpose purpose, int columns, long rows) {
        this.writer = writer;
        this.parallelism = parallelism;
        this.intervalMs = intervalMs;
        this.purpose = purpose;
        this.columns = columns;
        this.rows = rows;
    }

    boolean wide() {
        return columns == Workload.WIDE;
    }

    /** Whether this spec measures exactly that; raw COPY has no checkpoint interval. */
    boolean is(Writer w, int p, long interval, int cols, long n) {
        return writer == w
                && parallelism == p
                && columns == cols
                && rows == n
                && (w == Writer.RAW_COPY || intervalMs == interval);
    }

    /** The workload as printed: append, upsert, or wide20 (the 20-column append). */
    String workloadId() {
        return wide() ? "wide" + columns : writer.workload.id();
    }

    String label() {
        return String.format("%-6s %-15s p%d %s", workloadId(), writer.id, parallelism, interval(intervalMs))
                + (purpose == Purpose.SWEEP ? String.format(Locale.ROOT, " (%,d rows)", rows) : "");
    }

    static String interval(long ms) {
        return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
    }
}
