package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The limit on MariaDB ({@code raw-bulk}): the rows as JDBC batches of the run's batch size, which
 * Connector/J 3.5 sends by MariaDB's bulk protocol (measured in docs/xa.md as fast as multi-row
 * INSERT and LOAD DATA LOCAL INFILE), no Flink. At parallelism p, p connections and threads each write
 * one contiguous p-th of the ids in one transaction.
 */
final class RawBulk {

    private RawBulk() {}

    /** Writes all rows; records in {@link Probe} the first row's and the last commit's times. */
    static void run(String url, Properties props, String table, long rows, int parallelism, int batchSize)
            throws Exception {
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
                    write(c, table, from, to, rows, batchSize);
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

    private static void write(Connection c, String table, long from, long to, long rows, int batchSize) throws Exception {
        c.setAutoCommit(false);
        try (PreparedStatement s = c.prepareStatement(Sinks.insertSql(table))) {
            boolean first = true;
            int inBatch = 0;
            for (long i = from; i < to; i++) {
                BenchRow r = Workload.row(Case.APPEND, i, rows);
                if (first) { // the same moment as in the Flink jobs: the first row is made, not yet sent
                    Probe.firstRow();
                    first = false;
                }
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
        Probe.lastCommitMicros.accumulateAndGet(Probe.wallMicros(), Math::max);
    }
}
