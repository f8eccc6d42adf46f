/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.LockTimeout;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.GuardHolder;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.XAConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Whose session holds a guard that a claim gave up on, on each database, asked in two looks (which session
 * holds the guard, then whether it carries the claimant's execution mark): a holder that ends between them
 * must not be taken for another job's.
 */
class XaLocksITCase {

    /**
     * A session of this very execution holds the guard of subtask 0 through the claim's wait, then ends
     * while the claim asks whether it carries this execution's mark (the dialect below ends it right
     * there). Its mark went with it, so the second look alone would call it another execution's, and the
     * claim would refuse without restarts, as if a second job held the guard. It holds the guard no more:
     * the claim fails the task (which a restart heals), naming that session.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"MariaDB", "PostgreSQL"})
    void aHolderThatEndsWhileTheClaimAsksWhoseItIsIsNotTakenForAnotherJob(String backend) throws Exception {
        String sinkId = "locks-" + System.nanoTime() % 100000;
        String sinkHash = XaIds.sinkHash(sinkId);
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 1, new JobRun("job", OptionalLong.empty()));
        XaConnector connector = connector(backend);
        XAConnection holderXa = connector.open("holder");
        XAConnection guardXa = connector.open("claimant");
        try {
            Connection holder = holderXa.getConnection();
            JdbcDialect real = JdbcDialects.forConnection(holder);
            SessionLocks realLocks = real.sessionLocks().orElseThrow();
            long holderSession = realLocks.sessionId(holder);
            realLocks.markExecution(holder, sinkHash, context.execution(), holderSession);
            assertThat(realLocks.tryGuard(holder, sinkHash, 0)).isTrue();

            Connection guard = guardXa.getConnection();
            JdbcDialect endsTheHolder = new EndingHolderOnItsExecutionCheck(real, holderXa);
            XaLocks locks = new XaLocks(
                    context,
                    endsTheHolder,
                    guard,
                    new XaIo(
                            guard,
                            Duration.ofSeconds(30),
                            "claimant",
                            JdbcDialects.forConnection(guard).xa()),
                    "table t");

            assertThatThrownBy(() -> locks.claim(0, 300))
                    .isInstanceOf(SinkException.class)
                    .isNotInstanceOf(MisconfigurationException.class)
                    .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                    .hasMessageContaining(real.name() + " session " + holderSession)
                    .hasMessageNotContaining("a session of another execution");
            assertThat(realLocks.guardHolder(guard, sinkHash, 0))
                    .as("the guard's holder afterwards")
                    .isZero();
        } finally {
            holderXa.close();
            guardXa.close();
        }
    }

    private static XaConnector connector(String backend) {
        Properties props = new Properties();
        if (backend.equals("MariaDB")) {
            MariaDbFixture maria = MariaDbFixture.get();
            props.setProperty("user", MariaDbFixture.SINK_USER);
            props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
            return XaConnector.of(maria.jdbcUrl(), props);
        }
        PostgresFixture pg = PostgresFixture.get();
        props.setProperty("user", pg.user());
        if (!pg.password().isEmpty()) {
            props.setProperty("password", pg.password());
        }
        return XaConnector.of(pg.jdbcUrl(), props);
    }

    /**
     * A database's own dialect, except that asking for a holder's execution first ends the holder's session
     * and waits until the server has released its locks: the holder ends between the claim's two looks.
     */
    private static final class EndingHolderOnItsExecutionCheck implements JdbcDialect {
        private final JdbcDialect real;
        private final SessionLocks locks;

        EndingHolderOnItsExecutionCheck(JdbcDialect real, XAConnection holder) {
            this.real = real;
            SessionLocks realLocks = real.sessionLocks().orElseThrow();
            this.locks = new SessionLocks() {
                @Override
                public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long session)
                        throws SQLException {
                    holder.close();
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (realLocks.guardHolder(c, sinkHash, 0) == session) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException(
                                    "session " + session + " holds the guard 30 s after its " + "close");
                        }
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(e);
                        }
                    }
                    return realLocks.holderExecution(c, sinkHash, execution, session);
                }

                @Override
                public boolean tryGuard(Connection c, String sinkHash, int subtask) throws SQLException {
                    return realLocks.tryGuard(c, sinkHash, subtask);
                }

                @Override
                public void releaseGuard(Connection c, String sinkHash, int subtask) throws SQLException {
                    realLocks.releaseGuard(c, sinkHash, subtask);
                }

                @Override
                public boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
                    return realLocks.tryBranchLock(c, sinkHash, subtask);
                }

                @Override
                public void releaseBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
                    realLocks.releaseBranchLock(c, sinkHash, subtask);
                }

                @Override
                public void markExecution(Connection c, String sinkHash, String execution, long session)
                        throws SQLException {
                    realLocks.markExecution(c, sinkHash, execution, session);
                }

                @Override
                public long sessionId(Connection c) throws SQLException {
                    return realLocks.sessionId(c);
                }

                @Override
                public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
                    return realLocks.guardHolder(c, sinkHash, subtask);
                }

                @Override
                public long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException {
                    return realLocks.branchLockHolder(c, sinkHash, subtask);
                }

                @Override
                public String endSessionSql(long id) {
                    return realLocks.endSessionSql(id);
                }
            };
        }

        @Override
        public Optional<SessionLocks> sessionLocks() {
            return Optional.of(locks);
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public boolean acceptsUrl(String jdbcUrl) {
            return false;
        }

        @Override
        public String quote(String identifier) {
            return real.quote(identifier);
        }

        @Override
        public MarkerSql markers(SqlIdentifier table) {
            return real.markers(table);
        }

        @Override
        public WriteSql writes() {
            return real.writes();
        }

        @Override
        public ErrorKinds errors() {
            return real.errors();
        }

        @Override
        public Optional<LockTimeout> lockTimeout() {
            return real.lockTimeout();
        }

        @Override
        public XaTraits xa() {
            return real.xa();
        }
    }
}
