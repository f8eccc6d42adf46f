/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.xa.carried.XaCarried;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The upserts and deletes a restored writer writes before its first record, in a local transaction of
 * their own ({@code XaEpochBranch.applyCarried}), on a real MariaDB: they take no gap locks, as the
 * epoch's upserts take none (READ COMMITTED). At a restore every writer subtask writes what it
 * carried at once, into the same gaps of the key's index; under InnoDB's REPEATABLE READ a delete of
 * a key not in the table locks the gap around it, and two such transactions inserting into each
 * other's gap deadlock: a failover of the restored job.
 */
class XaCarriedWritesITCase {

    private final MariaDbFixture db = MariaDbFixture.get();

    /**
     * The carried delete of key 50 (not in the table: 0 and 100 are), then an upsert of 100, which
     * waits for another session's lock on row 100. That session then inserts 40, into the gap the
     * delete looked into: it must not wait for the carried writes (which wait for it), and both commit.
     */
    @Test
    void carriedWritesTakeNoGapLocks() throws Exception {
        String table = "xa_carried_" + System.nanoTime() % 100_000;
        String sinkId = table.replace('_', '-');
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER
                + "'@'%'");
        db.execute("INSERT INTO " + table + " VALUES (0, 0), (100, 0)");
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        List<String> columns = List.of("k", "v");
        XaDatabase<Long> database = new XaDatabase<>(new XaSinkOptions<>(
                XaConnector.of(db.jdbcUrl(), props),
                JdbcSinkOptions.builder(WriteMode.<Long>upserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, table), columns, k -> new Object[] {k, k}),
                                List.of("k")))
                        .batchSize(10)
                        .build(),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10)));
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 1, new JobRun("job", OptionalLong.empty()));
        byte[] carried = XaCarried.encode(
                columns, List.of("k"), List.of(new Object[] {50L, 0L}, new Object[] {100L, 1L}), List.of(true, false));

        try (Connection other = db.connect();
                WriterSession<Long> writer = database.openWriter(context)) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("SET SESSION innodb_lock_wait_timeout = 5");
                s.executeQuery("SELECT v FROM " + table + " WHERE k = 100 FOR UPDATE")
                        .close();
            }
            CompletableFuture<Void> applied = CompletableFuture.runAsync(() -> {
                try {
                    writer.carriedWrites().orElseThrow().held().applyCarried(carried, 0, "the test's state");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            waitForTheCarriedUpsert(table, applied);
            try (Statement s = other.createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " VALUES (40, 0)");
            }
            other.commit();
            applied.get(20, TimeUnit.SECONDS);
        }
        Map<Long, Long> expected = new TreeMap<>(Map.of(0L, 0L, 40L, 0L, 100L, 1L));
        assertThat(rows(table)).isEqualTo(expected);
    }

    /**
     * A marker table that an earlier release created (MariaDB's sink_id was VARCHAR(100); the sink creates it
     * with CREATE TABLE IF NOT EXISTS, which leaves an existing one as it is) and a sink id of 100 characters,
     * which {@link TransactionId#SINK_ID} allows. A writer holds an upsert past the barrier (its previous
     * commit is pending): the branch prepared there records a notice whose sink_id is the sink id followed by
     * '/carried', 108 characters. It must be prepared, and once committed, the notice must be visible.
     */
    @Test
    void aNoticeOfCarriedWritesFitsTheMarkerTableOfAnEarlierRelease() throws Exception {
        String table = "xa_notice_" + System.nanoTime() % 100_000;
        String markers = table + "_markers";
        String sinkId = (table.replace('_', '-') + "-" + "s".repeat(100)).substring(0, 100);
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER
                + "'@'%'");
        db.execute("CREATE TABLE " + markers + " (gid VARCHAR(200) NOT NULL PRIMARY KEY, sink_id VARCHAR(100) NOT NULL,"
                + " subtask INT NOT NULL, checkpoint_id BIGINT NOT NULL, row_count BIGINT NOT NULL,"
                + " created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
                + " KEY " + markers + "_sink_created (sink_id, created_at)) ENGINE=InnoDB");
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        XaDatabase<Long> database = new XaDatabase<>(new XaSinkOptions<>(
                XaConnector.of(db.jdbcUrl(), props),
                JdbcSinkOptions.builder(WriteMode.<Long>upserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, table), List.of("k", "v"), k -> new Object[] {k, k}),
                                List.of("k")))
                        .batchSize(10)
                        .markerTable(new SqlIdentifier(null, markers))
                        .build(),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10)));
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 0, new JobRun("job", OptionalLong.empty()));
        TransactionId carrying = new TransactionId(sinkId, 0, 2, TransactionId.newRunToken(context.execution()));

        try (WriterSession<Long> writer = database.openWriter(context);
                CommitSession committer = database.openCommitter(context)) {
            writer.epoch().ownCommits(new OwnCommits() {
                @Override
                public boolean pending() {
                    return true; // the writer's previous transaction: its checkpoint was aborted
                }

                @Override
                public boolean await() {
                    return false;
                }
            });
            writer.epoch().begin(carrying);
            writer.epoch().write(7L, 0);
            writer.epoch().flush();
            assertThat(writer.carriedWrites().orElseThrow().held().holdsWrites())
                    .as("the upsert is held past the barrier")
                    .isTrue();
            writer.epoch().prepare(carrying, 1);
            committer.commit(carrying);
            assertThat(writer.carriedWrites().orElseThrow().ledger().openCarried())
                    .as("the notice of the carried upsert")
                    .extracting(CarriedNotice::transaction)
                    .containsExactly(carrying);
        }
    }

    /** Until the carried upsert of 100 has waited 300 ms (for the lock of row 100). */
    private void waitForTheCarriedUpsert(String table, CompletableFuture<Void> applied) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (db.count(
                        "SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND TIME_MS > 300",
                        "INSERT INTO `" + table + "`%")
                == 0) {
            if (applied.isDone()) {
                applied.get(); // its failure
            }
            assertThat(System.nanoTime())
                    .as("the carried upsert of 100 waits for the row's lock")
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private Map<Long, Long> rows(String table) throws Exception {
        Map<Long, Long> rows = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v FROM " + table)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return rows;
    }
}
