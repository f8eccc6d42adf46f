/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How fresh a run's rows were: for every row of the table, the time from its record's making in the
 * job's source (the row's {@code ts}, {@link Workload#made}) to the commit of the transaction that made
 * the row visible (PostgreSQL's commit timestamp of the row's {@code xmin}, with {@code
 * track_commit_timestamp}), as p50, p99 and max over all rows, in microseconds.
 *
 * <p>Why the commit timestamp and not a reader that polls: it is exact for every row, costs the writer
 * nothing while it runs, and is the same rule for every sink. It is taken when the server records the
 * commit, a WAL flush before readers see it: each figure is short of true visibility by one commit's
 * flush (a few milliseconds with fsync on; PostgreSQL's own cost per transaction is in the same report).
 * The source's clock has millisecond resolution, so a figure may be up to 1 ms long. For an upsert row,
 * the last record of its key and the transaction that wrote it.
 */
final class Freshness {

    static final String P50 = "freshness_p50_us";
    static final String P99 = "freshness_p99_us";
    static final String MAX = "freshness_max_us";

    private Freshness() {}

    /**
     * Measures the rows of {@code table} into {@code result}; {@code clockOffsetMicros} is the server's
     * clock minus the runs' (0 on one machine, up to a round trip).
     */
    static void measure(Statement s, String table, long clockOffsetMicros, RunResult result) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT percentile_disc(ARRAY[0.5, 0.99, 1.0]) WITHIN GROUP (ORDER BY f)"
                + " FROM (SELECT ((extract(epoch FROM pg_xact_commit_timestamp(xmin)) - extract(epoch FROM ts))"
                + " * 1000000)::bigint - " + clockOffsetMicros + " AS f FROM " + table + ") AS rows_of_the_run")) {
            rs.next();
            Long[] p = (Long[]) rs.getArray(1).getArray();
            result.set(P50, p[0]);
            result.set(P99, p[1]);
            result.set(MAX, p[2]);
        }
    }

    /** Whether the run has freshness figures: a Flink writer's run on the 4-column table, measured. */
    static boolean of(Measured m) {
        return m.ok() && m.result.get(P99) != null;
    }
}
