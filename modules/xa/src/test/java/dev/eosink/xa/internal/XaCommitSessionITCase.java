/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession.Attempt;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.mariadb.MariaDbDialect;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The commit of a branch from another session on MariaDB, where it needs care: XAER_NOTA for a branch that
 * is still prepared (attached to the live session that prepared it) is retried, never resolved by the
 * marker, which would call a committable branch LOST; a branch MariaDB lost track of while the session that
 * prepared it was ending is counted neither committed nor lost, but retried until a restart of the server
 * brings it back; and the writer's prepare returns only once that session has ended, so that its commit
 * never meets that moment.
 */
class XaCommitSessionITCase {

    /** A server of this class's own, for the test that must restart it. */
    @RegisterExtension
    static final OwnMariaDb OWN = new OwnMariaDb();

    @Test
    void notaForABranchStillAttachedToItsPreparerIsRetriedNotResolved() throws Exception {
        MariaDbFixture maria = MariaDbFixture.get();
        String sinkId = "commit-session-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        maria.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL) ENGINE=InnoDB");
        maria.execute(new MariaDbDialect()
                .markers(new SqlIdentifier(null, "eosink_markers"))
                .createSql()); // as every writer of a sink ensures
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        XaConnector connector = XaConnector.of(maria.jdbcUrl(), props);
        XaDatabase<Long> database = new XaDatabase<>(new XaSinkOptions<>(
                connector,
                JdbcSinkOptions.builder(WriteMode.<Long>inserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, table), List.of("id"), id -> new Object[] {id}),
                                RefusedRecords.failTheEpoch()))
                        .batchSize(10)
                        .build(),
                Duration.ofSeconds(120),
                Duration.ofSeconds(60))); // inserts, no dead letters
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 0, new JobRun("job", OptionalLong.empty()));
        TransactionId id = new TransactionId(sinkId, 0, 1, "aaaaaaaa");
        Xid xid = XaIds.toXid(id);

        XAConnection preparer = connector.open("test");
        try (XaCommitSession committer = new XaCommitSession(context, database)) {
            XAResource xa = preparer.getXAResource();
            xa.start(xid, XAResource.TMNOFLAGS);
            try (Statement s = preparer.getConnection().createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
            }
            xa.end(xid, XAResource.TMSUCCESS);
            xa.prepare(xid);

            assertThatThrownBy(() -> committer.commit(id))
                    .isInstanceOf(RetriableCommitException.class)
                    .hasMessageContaining("still prepared");
            preparer.close();
            assertThat(commitOnceTheServerHasDetached(committer, id)).isEqualTo(Attempt.COMMITTED);
            assertThat(committer.commit(id)).isEqualTo(Attempt.NOT_FOUND);
        } finally {
            preparer.close();
        }
        assertThat(maria.count("SELECT count(*) FROM " + table)).isEqualTo(1);
    }

    /**
     * MariaDB (11.4.5 and 10.11 alike) ends a session that holds a prepared branch in two steps: the
     * server detaches the branch (from then on another session's XA COMMIT reaches it) and frees the
     * session's user variables, locks and statements, and only then does InnoDB let go of the branch's
     * transaction. An XA COMMIT in between is answered with success, commits nothing, and removes the
     * branch from XA RECOVER, while InnoDB keeps it prepared, holding its locks, until the server
     * restarts. The preparer here holds many user variables and prepared statements, which makes that
     * moment long ({@link EndingSessions}); the committer,
     * retried while the branch is attached as Flink retries it, meets it. It must count that commit
     * neither done (the rows are not there) nor lost (a restart brings the branch back): it retries,
     * naming the remedy, and commits the branch once the server restarted.
     */
    @Test
    void aBranchMariaDbLostTrackOfWhileItsPreparerEndedIsRetriedUntilARestartBringsItBack() throws Exception {
        MariaDbFixture maria = OWN.get();
        String sinkId = "commit-forgotten-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        maria.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL) ENGINE=InnoDB");
        maria.execute(new MariaDbDialect()
                .markers(new SqlIdentifier(null, "eosink_markers"))
                .createSql());
        XaDatabase<Long> database = database(maria, table);
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 0, new JobRun("job", OptionalLong.empty()));
        TransactionId id = new TransactionId(sinkId, 0, 1, "aaaaaaaa");

        XAConnection preparer = connector(maria).open("test");
        EndingSessions.holdUserVariables(preparer.getConnection());
        EndingSessions.holdPreparedStatements(preparer.getConnection());
        EndingSessions.prepareWithMarker(preparer, id, table);
        try (XaCommitSession committer = new XaCommitSession(context, database)) {
            CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> closeQuietly(preparer));
            Object outcome = outcomeOnceDetached(committer, id, new int[1]);
            closed.get();

            assertThat(maria.count("SELECT count(*) FROM " + table))
                    .as("rows the commit made visible")
                    .isZero();
            assertThat(listed(maria, id)).as("the branch listed by XA RECOVER").isFalse();
            assertThat(outcome)
                    .as("what the committer made of the commit MariaDB answered, which committed nothing")
                    .isInstanceOf(RetriableCommitException.class);
            assertThat(((Exception) outcome).getMessage())
                    .contains(id.toString())
                    .contains("checkpoint 1")
                    .contains("subtask 0")
                    .contains("table " + table)
                    .contains("XA RECOVER")
                    .contains("Remedy: restart MariaDB");

            maria.crash();
            maria.restart();
            assertThat(commitOnceTheServerAnswers(committer, id)).isEqualTo(Attempt.COMMITTED);
            assertThat(committer.commit(id)).isEqualTo(Attempt.NOT_FOUND);
            assertThat(committer.isMarked(id)).isTrue();
        } finally {
            closeQuietly(preparer);
        }
        assertThat(maria.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(1);
        assertThat(maria.count("SELECT count(*) FROM eosink_markers WHERE gid = ?", id.toString()))
                .isEqualTo(1);
        assertThat(maria.xaRecover()).as("branches left prepared").isEmpty();
    }

    /**
     * The writer's side of the previous test: the writer ends its epoch connection after each prepare, and
     * the prepare returns, so that the checkpoint can complete and the committer commit, only once the
     * server has ended that session. However soon the commit then comes, it never meets the moment the
     * previous test shows. Here every session of the writer ends slowly (it holds many user variables),
     * and the first commit after the prepare returned commits the branch.
     */
    @Test
    void theFirstCommitAfterTheWriterPreparedCommits() throws Exception {
        MariaDbFixture maria = OWN.get();
        String sinkId = "commit-after-prepare-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        maria.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL) ENGINE=InnoDB");
        String url = maria.jdbcUrl();
        XaDatabase<Long> slowToEnd = new XaDatabase<>(new XaSinkOptions<>(
                XaConnector.of(() -> new SlowToEnd(url)),
                JdbcSinkOptions.builder(WriteMode.<Long>inserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, table), List.of("id"), id -> new Object[] {id}),
                                RefusedRecords.failTheEpoch()))
                        .batchSize(10)
                        .build(),
                Duration.ofSeconds(120),
                Duration.ofSeconds(60)));
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 0, new JobRun("job", OptionalLong.empty()));
        TransactionId id = new TransactionId(sinkId, 0, 1, "aaaaaaaa");

        int[] attempts = {0};
        try (WriterSession<Long> writer = slowToEnd.openWriter(context);
                XaCommitSession committer = new XaCommitSession(context, database(maria, table))) {
            writer.recovery().claim(0, 30_000);
            writer.epoch().begin(id);
            writer.epoch().write(1L, 0);
            writer.epoch().prepare(id, 1);
            Object outcome = outcomeOnceDetached(committer, id, attempts);

            assertThat(maria.count("SELECT count(*) FROM " + table))
                    .as("rows the commit made visible")
                    .isEqualTo(1);
            assertThat(outcome).isEqualTo(Attempt.COMMITTED);
            assertThat(attempts[0]).as("commit attempts").isEqualTo(1);
        }
        assertThat(maria.count("SELECT count(*) FROM eosink_markers WHERE gid = ?", id.toString()))
                .isEqualTo(1);
        assertThat(listed(maria, id)).as("the branch left prepared").isFalse();
    }

    /** MariaDB XA connections of the sink's user, each holding {@link EndingSessions#USER_VARIABLES} user variables. */
    private static final class SlowToEnd implements XADataSource {
        private final XaConnector connector;

        SlowToEnd(String url) {
            Properties props = new Properties();
            props.setProperty("user", MariaDbFixture.SINK_USER);
            props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
            this.connector = XaConnector.of(url, props);
        }

        @Override
        public XAConnection getXAConnection() throws SQLException {
            XAConnection c = connector.open("slow-to-end");
            try {
                EndingSessions.holdUserVariables(c.getConnection());
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return c;
        }

        @Override
        public XAConnection getXAConnection(String user, String password) throws SQLException {
            throw new SQLFeatureNotSupportedException("the sink's user only");
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException("no logger");
        }
    }

    private static boolean listed(MariaDbFixture maria, TransactionId id) {
        String gtrid = new String(XaIds.toXid(id).getGlobalTransactionId(), StandardCharsets.ISO_8859_1);
        return maria.xaRecover().stream().anyMatch(xid -> xid[1].equals(gtrid));
    }

    /**
     * Commits as Flink's committer would while the branch is still attached to its preparer (each attempt
     * answered XAER_NOTA with the branch listed): until an attempt returns, or throws for another reason;
     * that outcome. Counts the attempts in {@code attempts[0]}.
     */
    private static Object outcomeOnceDetached(XaCommitSession committer, TransactionId id, int[] attempts)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            attempts[0]++;
            try {
                return committer.commit(id);
            } catch (RetriableCommitException e) {
                if (!e.getMessage().contains("still attached to the session that prepared it")) {
                    return e;
                }
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    /** Commits, retrying while the restarted server does not answer yet. */
    private static Attempt commitOnceTheServerAnswers(XaCommitSession committer, TransactionId id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return committer.commit(id);
            } catch (RetriableCommitException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static XaConnector connector(MariaDbFixture maria) {
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        return XaConnector.of(maria.jdbcUrl(), props);
    }

    private static XaDatabase<Long> database(MariaDbFixture maria, String table) {
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

    private static void closeQuietly(XAConnection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // closed before
        }
    }

    /**
     * The server detaches a closed session's prepared branch on its own time, not within the client's
     * close(): until it has, the commit is retried exactly as Flink would retry it.
     */
    private static Attempt commitOnceTheServerHasDetached(XaCommitSession committer, TransactionId id)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return committer.commit(id);
            } catch (RetriableCommitException stillAttached) {
                if (System.nanoTime() > deadline) {
                    throw stillAttached;
                }
                Thread.sleep(50);
            }
        }
    }
}
