/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.Faults.Point;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A routed sink of four related tables ({@link BankAndOrders}), each record one whole source transaction, through
 * failures at every point of the protocol: the tables end exactly as the records' replay says, nothing is left
 * prepared, and a reader polling the tables meanwhile sees, at every commit it observes, a state the source had
 * (the balances and orders of exactly some prefix of the transactions).
 */
class RoutedTablesITCase extends ExactlyOnceTestBase {

    @Test
    void manyTablesCommitTogetherThroughFailuresAndEveryObservedCommitIsAStateOfTheSource() throws Exception {
        BankAndOrders.ddl(table).forEach(db::execute);
        long n = 3_000;
        RoutedTables<Long> tables = BankAndOrders.tables(table);
        ExactlyOnceSink<Long> sink = FaultInjectingDatabase.wrap(PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .tables(tables)
                .batchSize(50) // runs mid-epoch too, right after barriers, while the previous commit is pending
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build());
        Faults.arm(sinkId, Point.WRITE, 900);
        Faults.arm(sinkId, Point.AFTER_PREPARE, 6);
        Faults.arm(sinkId, Point.BEFORE_COMMIT, 12);
        Faults.arm(sinkId, Point.AFTER_COMMIT, 18);
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.fixedDelayRestarts(20, Duration.ofMillis(100)));
        TestJobs.ids(env, n, 1_500).sinkTo(sink);

        Reader reader = new Reader(table);
        Thread polling = new Thread(reader, "reader");
        polling.start();
        try {
            env.execute("routed tables through failures");
        } finally {
            reader.stop.set(true);
            polling.join();
        }

        TablesModel expected = TablesModel.replay(
                tables,
                Map.of(
                        table + "_accounts",
                        LongStream.range(0, BankAndOrders.ACCOUNTS)
                                .mapToObj(a -> a + "," + BankAndOrders.OPENING_BALANCE)
                                .collect(Collectors.toList())),
                LongStream.range(0, n).boxed().collect(Collectors.toList()));
        Map<String, Map<String, String>> actual;
        try (Connection c = db.connect()) {
            actual = expected.read(c);
        }
        assertThat(preparedLeft())
                .as("prepared transactions of sink %s left", sinkId)
                .isEmpty();
        for (String name : expected.rows().keySet()) {
            Map<String, String> want = expected.rows().get(name);
            Map<String, String> got = actual.get(name);
            assertThat(got.size()).as("rows of %s", name).isEqualTo(want.size());
            assertThat(got).as("%s, row by row", name).isEqualTo(want);
        }
        assertThat(Faults.fired(sinkId, Point.WRITE)
                        + Faults.fired(sinkId, Point.AFTER_PREPARE)
                        + Faults.fired(sinkId, Point.BEFORE_COMMIT)
                        + Faults.fired(sinkId, Point.AFTER_COMMIT))
                .as("failures injected")
                .isEqualTo(4);
        assertThat(reader.failure).as("the reader's own failure").isNull();
        assertThat(reader.inconsistent)
                .as("observed commits that are no state of the source")
                .isEmpty();
        assertThat(reader.observed).as("commits the reader observed").isGreaterThanOrEqualTo(5);
        assertThat(reader.lastTransfers).as("transfers the reader saw last").isEqualTo(n);
    }

    /**
     * Polls the tables, each time in one snapshot, and checks what it sees whenever the number of transfers
     * changed (a commit): the balances after exactly that many transactions, as many orders as they leave, and
     * every order's lines adding up to its total.
     */
    private final class Reader implements Runnable {
        final String prefix;
        final AtomicBoolean stop = new AtomicBoolean();
        final List<String> inconsistent = new ArrayList<>();
        volatile Exception failure;
        int observed;
        long lastTransfers = -1;

        Reader(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public void run() {
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                boolean last = false;
                while (!last) {
                    last = stop.get(); // one more look after the job ended
                    look(c);
                    c.commit();
                    Thread.sleep(5);
                }
            } catch (Exception e) {
                failure = e;
            }
        }

        private void look(Connection c) throws Exception {
            try (Statement s = c.createStatement()) {
                long m = one(s, "SELECT count(*) FROM " + prefix + "_transfers");
                if (m == lastTransfers) {
                    return;
                }
                lastTransfers = m;
                observed++;
                List<String> wrong = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, balance FROM " + prefix + "_accounts ORDER BY id")) {
                    while (rs.next()) {
                        long want = BankAndOrders.balance(rs.getLong(1), m);
                        if (rs.getLong(2) != want) {
                            wrong.add("account " + rs.getLong(1) + " has " + rs.getLong(2) + ", not " + want);
                        }
                    }
                }
                long orders = one(s, "SELECT count(*) FROM " + prefix + "_orders");
                long deleted = m <= 14 ? 0 : (m - 14 + 9) / 10;
                if (orders != (m + 1) / 2 - deleted) {
                    wrong.add(orders + " orders, not " + ((m + 1) / 2 - deleted));
                }
                long unbalanced = one(
                        s,
                        "SELECT count(*) FROM " + prefix + "_orders o WHERE total <> (SELECT "
                                + "coalesce(sum(amount), 0) FROM " + prefix + "_lines l WHERE l.order_id = o.id)");
                if (unbalanced != 0) {
                    wrong.add(unbalanced + " orders whose lines do not add up to their total");
                }
                if (!wrong.isEmpty()) {
                    inconsistent.add("after " + m + " transfers: " + wrong);
                }
            }
        }

        private long one(Statement s, String sql) throws Exception {
            try (ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
