/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.XaTraits.MarkerRow;
import dev.eosink.jdbc.dialect.mariadb.MariaDbDialect;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.faults.LogCapture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.XAConnection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The branch lock itself, on each database: a writer that claims a subtask waits while a session of
 * an earlier writer of that subtask holds it (that session may still prepare a branch), names that
 * session and how to end it when claimWait runs out, and goes on as soon as the session ends.
 * {@code XaHardCases.aPrepareStillRunningWhenTheWriterRestartsIsWaitedForAndRolledBack} shows the
 * whole case through a job; this pins the mechanism and its message. On MariaDB, whose session lets go
 * of the branch lock before InnoDB lets go of its prepared branch, also the rollback of that branch at
 * recovery: done only once the server has let go of it, and never reported done when MariaDB answered
 * it without doing it.
 */
class XaWriterSessionITCase {

    /** A server of this class's own, for the tests that restart it. */
    @RegisterExtension
    static final OwnMariaDb OWN = new OwnMariaDb();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"MariaDB", "PostgreSQL"})
    void aClaimWaitsWhileASessionOfAnEarlierWriterHoldsTheBranchLock(String backend) throws Exception {
        String sinkId = "writer-session-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        XaConnector connector = connector(backend, table);
        XaDatabase<Long> database = new XaDatabase<>(new XaSinkOptions<>(
                connector,
                JdbcSinkOptions.builder(WriteMode.<Long>inserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, table), List.of("id"), id -> new Object[] {id}),
                                RefusedRecords.failTheEpoch()))
                        .batchSize(10)
                        .build(),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10))); // inserts, no dead letters
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 1, new JobRun("job", OptionalLong.empty()));

        // A session of an earlier writer of subtask 0 that the server has not finished with.
        XAConnection earlier = connector.open("earlier-writer");
        try {
            Connection c = earlier.getConnection();
            SessionLocks locks = JdbcDialects.forConnection(c).sessionLocks().orElseThrow();
            String name = JdbcDialects.forConnection(c).name();
            assertThat(locks.tryBranchLock(c, XaIds.sinkHash(sinkId), 0)).isTrue();
            long session = locks.sessionId(c);

            try (WriterSession<Long> writer = database.openWriter(context)) {
                long t0 = System.nanoTime();
                assertThatThrownBy(() -> writer.recovery().claim(0, 500))
                        .isInstanceOf(SinkException.class)
                        .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                        .hasMessageContaining(
                                "earlier writer of sink id '" + sinkId + "' subtask 0 into table " + table)
                        .hasMessageContaining(name + " session " + session + ")")
                        .hasMessageContaining("XA PREPARE")
                        .hasMessageContaining("Remedy")
                        .hasMessageContaining(locks.endSessionSql(session))
                        .hasMessageContaining("claimWait");
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
            }

            try (WriterSession<Long> writer = database.openWriter(context)) {
                AtomicLong closing = new AtomicLong(Long.MAX_VALUE);
                CompletableFuture<Void> ended = CompletableFuture.runAsync(() -> {
                    try {
                        Thread.sleep(700);
                        closing.set(System.nanoTime());
                        earlier.close();
                    } catch (InterruptedException | SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                long t0 = System.nanoTime();
                writer.recovery().claim(0, 10_000);
                long claimed = System.nanoTime();
                ended.get(10, TimeUnit.SECONDS);
                // By order, not by a duration: the claim returned only once the earlier session was ending.
                assertThat(claimed)
                        .as("the claim waited for the earlier session's end")
                        .isGreaterThan(closing.get());
                assertThat(Duration.ofNanos(claimed - t0))
                        .as("the claim's wait")
                        .isLessThan(Duration.ofSeconds(8));

                // The claim let the branch lock go: this writer's own epoch connection takes it.
                TransactionId id = new TransactionId(sinkId, 0, 1, "aaaaaaaa");
                writer.epoch().begin(id);
                writer.epoch().write(7L, 0);
                writer.epoch().prepare(id, 1);
                assertThat(writer.recovery().listPrepared()).containsExactly(id);
                rollBackOnceDetached(writer, id);
                assertThat(writer.recovery().listPrepared()).isEmpty();
            }
        } finally {
            earlier.close();
        }
    }

    /**
     * A restarted writer claims a subtask while a session of the earlier writer, which prepared a branch no
     * checkpoint promised, holds the branch lock; then that session ends. MariaDB ends it in steps: it
     * detaches the branch, lets go of the session's GET_LOCKs (the branch lock), frees its prepared
     * statements, leaves the process list, and only then does InnoDB let go of the branch. An XA ROLLBACK
     * before that last step is answered with success, does nothing, and drops the branch from XA RECOVER,
     * while InnoDB keeps it prepared, holding its locks, until the server restarts. Recovery must roll the
     * branch back for real: no lock left on its marker row, and nothing prepared after a restart.
     */
    @Test
    void aBranchWhoseSessionIsEndingIsRolledBackOnlyOnceTheServerHasLetGoOfIt() throws Exception {
        MariaDbFixture maria = OWN.get();
        RecoveryCase recovery = RecoveryCase.of(maria, "rollback-ending-");
        String sinkId = recovery.sinkId();
        String table = recovery.table();
        XaDatabase<Long> database = recovery.database();
        SubtaskContext context = recovery.context();
        TransactionId id = recovery.branch();

        XAConnection earlier = connector(maria).open("earlier-writer");
        LogCapture log = LogCapture.attach();
        try {
            long session = prepareHoldingTheBranchLock(earlier, id, table);
            try (WriterSession<Long> writer = database.openWriter(context)) {
                CompletableFuture<Void> claimed = CompletableFuture.runAsync(() -> claim(writer, 60_000));
                // Paced by what the claim did: it saw that session holding the branch lock, then the session ends.
                awaitLogged(log, "session " + session + " of an earlier writer", claimed);
                earlier.close();
                claimed.get(90, TimeUnit.SECONDS);

                assertThat(writer.recovery().listPrepared()).containsExactly(id);
                writer.recovery().rollbackPrepared(id);
                assertThat(writer.recovery().listPrepared()).isEmpty();
            }
        } finally {
            log.detach();
            earlier.close();
        }
        assertThat(markerRow(maria, id))
                .as("the branch's marker row after its rollback")
                .isEqualTo(MarkerRow.ABSENT);
        assertThat(maria.count("SELECT count(*) FROM " + table)).as("rows").isZero();
        maria.crash();
        maria.restart();
        assertThat(listed(maria, id))
                .as("the branch prepared after a restart of the server")
                .isFalse();
    }

    /**
     * The rollback of a branch whose session let go of the branch lock before the claim looked, so that the
     * claim never saw it, and is still ending: MariaDB answers the XA ROLLBACK with success and does nothing
     * (the previous test), and XAER_NOTA to the next, the branch no longer listed. Neither may count as rolled
     * back: the task fails naming the branch and the remedy, a restart of the server. After it the branch is
     * listed again, and the next writer's recovery rolls it back.
     */
    @Test
    void aRollbackMariaDbAnswersWithoutDoingItIsNeverReportedDone() throws Exception {
        MariaDbFixture maria = OWN.get();
        RecoveryCase recovery = RecoveryCase.of(maria, "rollback-undone-");
        String sinkId = recovery.sinkId();
        String table = recovery.table();
        XaDatabase<Long> database = recovery.database();
        SubtaskContext context = recovery.context();
        TransactionId id = recovery.branch();

        XAConnection earlier = connector(maria).open("earlier-writer");
        try (WriterSession<Long> writer = database.openWriter(context)) {
            prepareHoldingTheBranchLock(earlier, id, table);
            earlier.close();
            awaitBranchLockFree(maria, sinkId);
            writer.recovery().claim(0, 30_000);
            assertThat(writer.recovery().listPrepared()).containsExactly(id);

            assertThatThrownBy(() -> writer.recovery().rollbackPrepared(id))
                    .as("a rollback answered with success while the session that prepared the branch was ending")
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                    .hasMessageContaining(id.toString())
                    .hasMessageContaining("checkpoint 1")
                    .hasMessageContaining("subtask 0")
                    .hasMessageContaining("table " + table)
                    .hasMessageContaining("XA RECOVER")
                    .hasMessageContaining("Remedy: restart MariaDB");
            assertThatThrownBy(() -> writer.recovery().rollbackPrepared(id))
                    .as("a rollback of the branch answered XAER_NOTA, the branch no longer listed")
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("XAER_NOTA")
                    .hasMessageContaining("Remedy: restart MariaDB");
        } finally {
            earlier.close();
        }
        assertThat(markerRow(maria, id)).as("the branch's marker row").isEqualTo(MarkerRow.HELD);

        maria.crash();
        maria.restart();
        try (WriterSession<Long> writer = database.openWriter(context)) {
            writer.recovery().claim(0, 30_000);
            assertThat(writer.recovery().listPrepared())
                    .as("branches listed after the restart")
                    .containsExactly(id);
            writer.recovery().rollbackPrepared(id);
            assertThat(writer.recovery().listPrepared()).isEmpty();
        }
        assertThat(markerRow(maria, id))
                .as("the branch's marker row after its rollback")
                .isEqualTo(MarkerRow.ABSENT);
        assertThat(maria.count("SELECT count(*) FROM " + table)).as("rows").isZero();
        assertThat(listed(maria, id)).as("the branch left prepared").isFalse();
    }

    /**
     * Takes the branch lock of subtask 0 on {@code earlier}'s session, as an epoch connection does, makes that
     * session hold many prepared statements, which it frees after the branch lock ({@link EndingSessions}), and
     * prepares {@code id} with one row and its marker row on it; returns the session's id.
     */
    private static long prepareHoldingTheBranchLock(XAConnection earlier, TransactionId id, String table)
            throws Exception {
        Connection c = earlier.getConnection();
        SessionLocks dialect = new MariaDbDialect().sessionLocks().orElseThrow();
        assertThat(dialect.tryBranchLock(c, XaIds.sinkHash(id.sinkId()), id.subtask()))
                .isTrue();
        EndingSessions.holdPreparedStatements(c);
        EndingSessions.prepareWithMarker(earlier, id, table);
        return dialect.sessionId(c);
    }

    private static void claim(WriterSession<Long> writer, long waitMillis) {
        try {
            writer.recovery().claim(0, waitMillis);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until {@code log} shows {@code text}; fails early if {@code task} ended before. */
    private static void awaitLogged(LogCapture log, String text, CompletableFuture<?> task) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!log.text().contains(text)) {
            if (task.isDone()) {
                task.get();
                throw new AssertionError("the claim returned without logging '" + text + "'");
            }
            assertThat(System.nanoTime())
                    .as("'" + text + "' logged within 60 s")
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static void awaitBranchLockFree(MariaDbFixture maria, String sinkId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (Connection c = maria.connect()) {
            while (new MariaDbDialect().sessionLocks().orElseThrow().branchLockHolder(c, XaIds.sinkHash(sinkId), 0)
                    != 0) {
                assertThat(System.nanoTime())
                        .as("the branch lock free within 60 s")
                        .isLessThan(deadline);
            }
        }
    }

    private static MarkerRow markerRow(MariaDbFixture maria, TransactionId id) throws SQLException {
        try (Connection c = maria.connect()) {
            MariaDbDialect dialect = new MariaDbDialect();
            return dialect.xa().markerRow(c, dialect.markers(new SqlIdentifier(null, "eosink_markers")), id.toString());
        }
    }

    private static boolean listed(MariaDbFixture maria, TransactionId id) {
        String gtrid = new String(XaIds.toXid(id).getGlobalTransactionId(), StandardCharsets.ISO_8859_1);
        return maria.xaRecover().stream().anyMatch(xid -> xid[1].equals(gtrid));
    }

    private static XaConnector connector(MariaDbFixture maria) {
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        return XaConnector.of(maria.jdbcUrl(), props);
    }

    /**
     * A sink id of its own on {@code maria}, its table, the database of subtask 0 of 1, and the branch of
     * checkpoint 1 that an earlier writer prepared: what a recovery test starts from.
     */
    private record RecoveryCase(
            String sinkId, String table, XaDatabase<Long> database, SubtaskContext context, TransactionId branch) {
        static RecoveryCase of(MariaDbFixture maria, String prefix) {
            String sinkId = prefix + System.nanoTime() % 100000;
            String table = sinkId.replace('-', '_');
            return new RecoveryCase(
                    sinkId,
                    table,
                    mariaDbDatabase(maria, table),
                    new SubtaskContext(sinkId, 0, 1, 1, new JobRun("job", OptionalLong.empty())),
                    new TransactionId(sinkId, 0, 1, "aaaaaaaa"));
        }
    }

    /** Inserts into {@code table} (created here, with a primary key) on {@code maria}, markers in eosink_markers. */
    private static XaDatabase<Long> mariaDbDatabase(MariaDbFixture maria, String table) {
        maria.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY) ENGINE=InnoDB");
        maria.execute(new MariaDbDialect()
                .markers(new SqlIdentifier(null, "eosink_markers"))
                .createSql());
        return new XaDatabase<>(new XaSinkOptions<>(
                connector(maria),
                JdbcSinkOptions.builder(WriteMode.<Long>inserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, table), List.of("id"), id -> new Object[] {id}),
                                RefusedRecords.failTheEpoch()))
                        .batchSize(10)
                        .build(),
                Duration.ofSeconds(120),
                Duration.ofSeconds(60))); // inserts, no dead letters
    }

    /**
     * MariaDB lets another session roll a prepared branch back only once the session that prepared it
     * has ended on the server; the epoch connection closed at PREPARE, but the server may not have
     * finished with it yet. The sink then fails the task and the restarted one tries again; this does
     * the same, a few times, and requires the refusal to be that one.
     */
    private static void rollBackOnceDetached(WriterSession<Long> writer, TransactionId id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                writer.recovery().rollbackPrepared(id);
                return;
            } catch (SinkException e) {
                assertThat(e).hasMessageContaining("the session that prepared it has not ended");
                assertThat(System.nanoTime())
                        .as("the branch becomes free within 10 s")
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    private static XaConnector connector(String backend, String table) throws SQLException {
        Properties props = new Properties();
        if (backend.equals("MariaDB")) {
            MariaDbFixture maria = MariaDbFixture.get();
            maria.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL) ENGINE=InnoDB");
            props.setProperty("user", MariaDbFixture.SINK_USER);
            props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
            return XaConnector.of(maria.jdbcUrl(), props);
        }
        PostgresFixture pg = PostgresFixture.get();
        try (Connection c = pg.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id bigint NOT NULL)");
        }
        props.setProperty("user", pg.user());
        if (!pg.password().isEmpty()) {
            props.setProperty("password", pg.password());
        }
        return XaConnector.of(pg.jdbcUrl(), props);
    }
}
