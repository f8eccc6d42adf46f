/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.spi.OwnCommits;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.xa.carried.XaCarried;

import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link XaUpserts} on a real MariaDB, driven directly (local transactions stand for the epochs'
 * branches): what each record kind does to its key, through the keyed statements, the wait for the
 * writer's own commit and the statements carried past a barrier. Records are {@code {k, v, kind}}.
 */
class XaUpsertsITCase {

    private static final List<String> COLUMNS = List.of("k", "v");
    private static final List<String> KEY = List.of("k");

    private final MariaDbFixture db = MariaDbFixture.get();
    private String table;

    @BeforeEach
    void createTable() {
        table = "xa_upserts_" + System.nanoTime() % 100_000;
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB");
    }

    /** The writer's own previous commit: pending until {@link #commit}; {@code await} says no while it is. */
    private static final class AbortedCheckpoint implements OwnCommits {
        boolean pending;

        @Override
        public boolean pending() {
            return pending;
        }

        @Override
        public boolean await() {
            return !pending;
        }
    }

    /** One writer's upserts on its own connection, and the table its records must leave. */
    private final class Writer implements AutoCloseable {
        final Connection connection;
        final XaUpserts<Object[]> upserts;
        final XaKeyedStatements keyed;
        final XaIo io;
        /** k -> v: the replayed end state. */
        final Map<Long, Long> expected;

        long position;

        Writer(Map<Long, Long> expected) throws Exception {
            this.expected = expected;
            connection = db.connect();
            connection.setAutoCommit(false);
            keyed = XaKeyedStatementsITCase.keyed(connection, table, COLUMNS, KEY, 10);
            io = new XaIo(
                    connection,
                    Duration.ofSeconds(30),
                    "XaUpsertsITCase " + table,
                    JdbcDialects.forConnection(connection).xa());
            upserts = new XaUpserts<>(
                    WriteMode.<Object[]>changelog(
                            InsertStatement.forColumns(
                                    new SqlIdentifier(null, table), COLUMNS, r -> new Object[] {r[0], r[1]}),
                            KEY,
                            r -> (RowKind) r[2]),
                    10);
        }

        void write(long k, long v, RowKind kind) throws Exception {
            upserts.add(new Object[] {k, v, kind}, position++);
            if (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE) {
                expected.remove(k);
            } else {
                expected.put(k, v);
            }
        }

        /** Runs the buffered statements now: one batch. */
        void runBatch() throws Exception {
            assertThat(upserts.run(keyed, io)).as("statements ran").isTrue();
        }

        /** Runs what is buffered and commits: the end of an epoch whose branch commits. */
        void commitEpoch() throws Exception {
            runBatch();
            connection.commit();
            upserts.epochPrepared();
            position = 0;
        }

        /** The value of {@code k} as this writer's open transaction sees it; null if absent. */
        Long valueInTransaction(long k) throws Exception {
            try (Statement s = connection.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM " + table + " WHERE k = " + k)) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }

        @Override
        public void close() throws Exception {
            connection.close();
        }
    }

    /**
     * An UPDATE_BEFORE deletes its key unless a later record of the key wins: a key of an earlier
     * epoch, one in the table before the job, one written earlier in the epoch, one nobody wrote.
     * Followed by its UPDATE_AFTER in the same batch, the key ends as that; in the next batch, it is
     * gone in between (the writer's own transaction shows it); in the next epoch, the committed table
     * has no such key until that epoch commits.
     *
     * <p>Failed while UPDATE_BEFORE was skipped: key 11 was in the table after its UPDATE_BEFORE
     * ("expected: null but was: 11L").
     */
    @Test
    void updateBeforeDeletesItsKeyUnlessALaterRecordOfItWins() throws Exception {
        db.execute("INSERT INTO " + table + " VALUES (1, -1), (2, -2)");
        try (Writer w = new Writer(new TreeMap<>(Map.of(1L, -1L, 2L, -2L)))) {
            w.write(1, 0, RowKind.UPDATE_BEFORE); // in the table before the job
            for (long k = 10; k < 20; k++) {
                w.write(k, k, RowKind.INSERT);
            }
            w.write(11, 0, RowKind.UPDATE_BEFORE); // its INSERT, in the same batch, never reaches the table
            w.write(12, 0, RowKind.UPDATE_BEFORE);
            w.write(12, 120, RowKind.UPDATE_AFTER); // the same batch: the UPDATE_AFTER wins
            w.write(99, 0, RowKind.UPDATE_BEFORE); // a key nobody wrote: nothing to delete
            w.runBatch();
            assertThat(w.valueInTransaction(11)).isNull();
            assertThat(w.valueInTransaction(12)).isEqualTo(120);
            w.write(13, 0, RowKind.UPDATE_BEFORE); // written by the last batch
            w.runBatch();
            assertThat(w.valueInTransaction(13))
                    .as("key 13 after its UPDATE_BEFORE")
                    .isNull();
            w.write(13, 130, RowKind.UPDATE_AFTER); // the next batch brings it back
            w.commitEpoch();
            assertTable(w.expected);
            assertThat(w.expected).containsKeys(2L, 10L, 12L, 13L).doesNotContainKeys(1L, 11L, 99L);

            w.write(2, 0, RowKind.UPDATE_BEFORE); // keys of the last epoch
            w.write(10, 0, RowKind.UPDATE_BEFORE);
            w.write(14, 0, RowKind.UPDATE_BEFORE);
            w.write(14, 140, RowKind.UPDATE_AFTER);
            w.commitEpoch();
            assertTable(w.expected);
            assertThat(w.expected).doesNotContainKeys(2L, 10L).containsEntry(14L, 140L);
            w.write(10, 100, RowKind.UPDATE_AFTER); // an epoch after its UPDATE_BEFORE
            w.commitEpoch();
            assertTable(w.expected);
            assertThat(w.expected).containsEntry(10L, 100L);
        }
    }

    /**
     * UPDATE_BEFOREs that must follow a commit that only a later checkpoint brings are held past the
     * barrier as deletes (an UPDATE_BEFORE followed by its UPDATE_AFTER as that upsert), carried in
     * checkpoint state; a restored writer that runs what was carried leaves the table as of that
     * barrier, and a later UPDATE_AFTER brings the key back.
     *
     * <p>Failed while UPDATE_BEFORE was skipped: nothing carried was a delete ("carried deletes:
     * Expected size: 20 but was: 0").
     */
    @Test
    void updateBeforesHeldPastTheBarrierAreCarriedAsDeletes() throws Exception {
        Map<Long, Long> expected = new TreeMap<>();
        byte[] carried;
        try (Writer w = new Writer(expected)) {
            for (long k = 0; k < 30; k++) {
                w.write(k, k, RowKind.INSERT);
            }
            w.commitEpoch();
            AbortedCheckpoint own = new AbortedCheckpoint();
            own.pending = true;
            w.upserts.ownCommits(own);
            for (long k = 0; k < 30; k++) {
                w.write(k, 0, RowKind.UPDATE_BEFORE);
                if (k >= 10 && k < 20) {
                    w.write(k, -k, RowKind.UPDATE_AFTER);
                }
            }
            assertThat(w.upserts.run(w.keyed, w.io))
                    .as("run while the own commit cannot come")
                    .isFalse();
            carried = w.upserts.carried().orElseThrow();
            assertThat(XaCarried.decode(carried).deletes())
                    .as("carried deletes")
                    .filteredOn(Boolean::booleanValue)
                    .hasSize(20);
            w.connection.commit(); // the epoch, prepared without them
        }
        try (Writer restored = new Writer(expected)) {
            XaCarried statements = restored.upserts.readCarried(carried);
            restored.upserts.executeCarried(statements, restored.keyed, restored.io);
            restored.connection.commit();
            assertTable(expected);
            assertThat(expected).hasSize(10).containsEntry(10L, -10L).doesNotContainKeys(0L, 20L, 29L);
            restored.write(20, 200, RowKind.UPDATE_AFTER);
            restored.commitEpoch();
            assertTable(expected);
        }
    }

    private void assertTable(Map<Long, Long> expected) throws Exception {
        Map<Long, Long> actual = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v FROM " + table)) {
            while (rs.next()) {
                actual.put(rs.getLong(1), rs.getLong(2));
            }
        }
        assertThat(actual).as("table %s", table).isEqualTo(expected);
    }
}
