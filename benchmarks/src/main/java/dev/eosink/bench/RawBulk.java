/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Properties;

/**
 * The limit on MariaDB ({@code raw-bulk}): the rows as JDBC batches of the run's batch size, which
 * Connector/J 3.5 sends by MariaDB's bulk protocol (measured in docs/xa.md as fast as multi-row
 * INSERT and LOAD DATA LOCAL INFILE), no Flink, set up as {@link RawParts} says.
 */
final class RawBulk {

    private RawBulk() {}

    /** Writes all rows; records in {@link Probe} the first row's and the last commit's times. */
    static void run(String url, Properties props, String table, long rows, int parallelism, int batchSize)
            throws Exception {
        RawParts.run(url, props, rows, parallelism, (c, from, to) -> write(c, table, from, to, rows, batchSize));
    }

    private static void write(Connection c, String table, long from, long to, long rows, int batchSize)
            throws Exception {
        c.setAutoCommit(false);
        try (PreparedStatement s = c.prepareStatement(Sinks.insertSql(table))) {
            int inBatch = 0;
            for (long i = from; i < to; i++) {
                BenchRow r = RawParts.appendRow(i, from, rows);
                s.setLong(1, r.id);
                s.setString(2, r.k);
                s.setLong(3, r.v);
                s.setObject(4, r.ts());
                s.addBatch();
                if (++inBatch == batchSize) {
                    s.executeBatch();
                    inBatch = 0;
                }
            }
            if (inBatch > 0) {
                s.executeBatch();
            }
        }
        c.commit();
        RawParts.committed();
    }
}
