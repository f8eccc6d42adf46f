package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.jdbc.sql.GuardHolder;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.XAConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
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
            XaDialect real = XaDialect.of(holder);
            long holderSession = real.sessionId(holder);
            real.markExecution(holder, sinkHash, context.execution(), holderSession);
            assertThat(real.tryLock(holder, sinkHash, 0)).isTrue();

            Connection guard = guardXa.getConnection();
            XaDialect endsTheHolder = new EndingHolderOnItsExecutionCheck(real, holderXa);
            XaLocks locks = new XaLocks(context, endsTheHolder, guard,
                    new XaIo(guard, Duration.ofSeconds(30), "claimant"), "table t");

            assertThatThrownBy(() -> locks.claim(0, 300))
                    .isInstanceOf(SinkException.class)
                    .isNotInstanceOf(MisconfigurationException.class)
                    .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                    .hasMessageContaining(real.name() + " session " + holderSession)
                    .hasMessageNotContaining("a session of another execution");
            assertThat(real.guardHolder(guard, sinkHash, 0)).as("the guard's holder afterwards").isZero();
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
    private static final class EndingHolderOnItsExecutionCheck extends XaDialect {
        private final XaDialect real;
        private final XAConnection holder;

        EndingHolderOnItsExecutionCheck(XaDialect real, XAConnection holder) {
            this.real = real;
            this.holder = holder;
        }

        @Override
        public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long session)
                throws SQLException {
            holder.close();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (real.guardHolder(c, sinkHash, 0) == session) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("session " + session + " holds the guard 30 s after its close");
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return real.holderExecution(c, sinkHash, execution, session);
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public String quote(String identifier) {
            return real.quote(identifier);
        }

        @Override
        public boolean keepsConnectionAfterPrepare() {
            return real.keepsConnectionAfterPrepare();
        }

        @Override
        public boolean tryLock(Connection guard, String sinkHash, int subtask) throws SQLException {
            return real.tryLock(guard, sinkHash, subtask);
        }

        @Override
        public void unlock(Connection guard, String sinkHash, int subtask) throws SQLException {
            real.unlock(guard, sinkHash, subtask);
        }

        @Override
        public void markExecution(Connection guard, String sinkHash, String execution, long session)
                throws SQLException {
            real.markExecution(guard, sinkHash, execution, session);
        }

        @Override
        public long sessionId(Connection c) throws SQLException {
            return real.sessionId(c);
        }

        @Override
        public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
            return real.guardHolder(c, sinkHash, subtask);
        }

        @Override
        public boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
            return real.tryBranchLock(c, sinkHash, subtask);
        }

        @Override
        public void unlockBranch(Connection c, String sinkHash, int subtask) throws SQLException {
            real.unlockBranch(c, sinkHash, subtask);
        }

        @Override
        public long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException {
            return real.branchLockHolder(c, sinkHash, subtask);
        }

        @Override
        public String endSessionSql(long id) {
            return real.endSessionSql(id);
        }

        @Override
        public String markerDdl(String schema, String table) {
            return real.markerDdl(schema, table);
        }

        @Override
        public String markerPruneSql(String schema, String table) {
            return real.markerPruneSql(schema, table);
        }
    }
}
