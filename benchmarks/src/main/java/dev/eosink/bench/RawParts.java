/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What the limits without Flink ({@link RawCopy}, {@link RawBulk}) share: at parallelism p, p
 * connections opened before any row is made (start-up, not timed), and p threads that each write one
 * contiguous p-th of the ids, in one transaction of their own; and the moments they record in
 * {@link Probe}, the same as the Flink jobs'.
 */
final class RawParts {

    /** Writes ids {@code [from, to)} on its own connection and commits them. */
    @FunctionalInterface
    interface Part {
        void write(Connection c, long from, long to) throws Exception;
    }

    private RawParts() {}

    /** Runs {@code part} on p connections and threads; returns when every part has committed. */
    static void run(String url, Properties props, long rows, int parallelism, Part part) throws Exception {
        List<Connection> connections = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(parallelism);
        try {
            for (int i = 0; i < parallelism; i++) {
                connections.add(DriverManager.getConnection(url, props)); // start-up, not timed
            }
            List<Future<Void>> parts = new ArrayList<>();
            for (int i = 0; i < parallelism; i++) {
                Connection c = connections.get(i);
                long from = rows * i / parallelism;
                long to = rows * (i + 1) / parallelism;
                parts.add(pool.submit(() -> {
                    part.write(c, from, to);
                    return null;
                }));
            }
            for (Future<Void> f : parts) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    /** Row {@code i} of the 4-column append workload, made by the generator the Flink jobs use. */
    static BenchRow appendRow(long i, long from, long rows) {
        BenchRow r = Workload.row(Case.APPEND, i, rows);
        made(i, from);
        return r;
    }

    /**
     * Records the first row's time when {@code i} is a part's first id: the same moment as in the Flink
     * jobs, the row is made, not yet sent.
     */
    static void made(long i, long from) {
        if (i == from) {
            Probe.firstRow();
        }
    }

    /** Records a part's commit: the run's last commit is the latest of them. */
    static void committed() {
        Probe.lastCommitMicros.accumulateAndGet(Probe.wallMicros(), Math::max);
    }
}
