package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.postgres.PostgresOwnership;

import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A writer session's ownership guards: a session-level advisory lock per sink id and subtask index,
 * held by the writer's connection as long as it lives. A second job with the same sink id cannot take
 * it; the writer releases it when it closes ({@link SessionEnd}), and PostgreSQL releases it by itself
 * when the session ends, however the task died.
 *
 * <p>The lock is {@code (lockClass(sinkId), subtask)}: the two-key form, which pg_locks shows with
 * {@code objsubid = 2}. Callers run it between epochs, never inside the epoch's transaction.
 *
 * <p>A session-level lock guards only while the writer's statements all run in the server session that took it and
 * no other client shares that session. A pooler that hands server sessions out per transaction (PgBouncer's {@code
 * pool_mode = transaction} or {@code statement}) breaks both, and with them the session's settings ({@code
 * lock_timeout}): so the first claim looks, once, whether it is talking to one ({@link #refuseASharedSession}).
 */
final class OwnershipGuard {

    private static final Logger LOG = LoggerFactory.getLogger(OwnershipGuard.class);

    /** Opens a connection of its own to the sink's database, as the writer's is opened. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    /** Whether the server session holding a guard is this connection's: pg_locks seen from the asking session. */
    private static final String HELD_HERE = "SELECT bool_or(pid = pg_backend_pid()) FROM pg_locks WHERE locktype = "
            + "'advisory' AND granted AND classid = ?::oid AND objid = ?::oid AND objsubid = 2";

    private final Connection connection;
    private final SubtaskContext context;
    private final int lockClass;
    /** For the look at a new connection ({@link #refuseASharedSession}); null once it was taken. */
    private Opener probe;

    OwnershipGuard(Connection connection, SubtaskContext context, Opener probe) {
        this.connection = connection;
        this.context = context;
        this.lockClass = lockClass(context.sinkId());
        this.probe = probe;
    }

    /** The advisory-lock class of a sink id: a stable 32-bit hash, so every job computes the same. */
    static int lockClass(String sinkId) {
        return PostgresOwnership.guardLockClass(sinkId);
    }

    /** Takes the guard of {@code subtask}, waiting up to {@code waitMillis} for a holder going away. */
    void claim(int subtask, long waitMillis) throws SinkException {
        long deadline = System.currentTimeMillis() + waitMillis;
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            s.setInt(1, lockClass);
            s.setInt(2, subtask);
            long nextLog = 0;
            while (true) {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        refuseASharedSession(subtask);
                        return;
                    }
                }
                long now = System.currentTimeMillis();
                if (now >= nextLog && now < deadline) {
                    // A task going away releases it within seconds; a live job holding it is a second job.
                    LOG.info("{}: waiting up to {} ms more for the ownership guard of sink id '{}' subtask {} ({})",
                            context, deadline - now, context.sinkId(), subtask, holder(subtask));
                    nextLog = now + 5_000;
                }
                if (now >= deadline) {
                    throw new SinkException(
                            context
                                    + ": another live session holds the ownership guard of sink id '"
                                    + context.sinkId()
                                    + "' subtask "
                                    + subtask
                                    + " ("
                                    + holder(subtask)
                                    + ") and did not release it within "
                                    + waitMillis
                                    + " ms. Two jobs with the same sink id would roll back each other's "
                                    + "transactions, so this one refuses to start. Remedy: stop the other job, or "
                                    + "give this sink a different sink id.");
                }
                Thread.sleep(Math.min(500, Math.max(1, deadline - System.currentTimeMillis())));
            }
        } catch (SQLException e) {
            throw claimFailed(subtask, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while waiting for the ownership guard", e);
        }
    }

    /**
     * Refuses a connection whose server session is not its own, right after its first claim: the guard just taken
     * must be held by the server session of this connection's next transaction, and by no session that a new
     * connection gets. Through PgBouncer in transaction pooling mode, the next transaction may run in another server
     * session, and a new client is handed the idle server session that holds the lock (PgBouncer reuses the most
     * recently used one): then two clients share a session, and the guard keeps out neither. Through a direct
     * connection or session pooling, both looks pass. A pool that is busy may hand out other sessions and pass both
     * looks by chance: docs/postgresql.md says what to configure.
     */
    private void refuseASharedSession(int subtask) throws SinkException {
        Opener opener = probe;
        if (opener == null) {
            return;
        }
        probe = null;
        boolean here;
        try {
            here = heldHere(connection, subtask);
        } catch (SQLException e) {
            throw new SinkException(context + ": could not check that the ownership guard of subtask " + subtask
                    + " is this session's alone: " + e.getMessage(), e);
        }
        boolean sharedWithANewConnection = false;
        try (Connection other = opener.open()) {
            other.setAutoCommit(true);
            sharedWithANewConnection = heldHere(other, subtask);
        } catch (SQLException e) {
            // A second look only (a tight pool, max_connections reached): it must not keep the job from starting.
            LOG.warn("{}: could not open a connection to check that no other client shares the session of the "
                    + "ownership guard of subtask {} (a pooler in transaction mode would: docs/postgresql.md, "
                    + "\"Connection poolers\"); going on: {}", context, subtask, e.getMessage());
        }
        if (here && !sharedWithANewConnection) {
            return;
        }
        throw new SuppressRestartsException(new SinkException(context + ": the ownership guard of sink id '"
                + context.sinkId() + "' subtask " + subtask + " (a session-level advisory lock) "
                + (here ? "is held by the server session that a new connection was given too"
                        : "is not held by the server session of this connection's next transaction")
                + ": the connection goes through a pooler that hands server sessions out per transaction (PgBouncer with "
                + "pool_mode = transaction or statement). There the guard keeps no second job out, the session's "
                + "lock_timeout does not hold, and two writers could roll back each other's transactions. Remedy: connect "
                + "the sink to PostgreSQL directly, or through a pooler in session mode (PgBouncer pool_mode = session); "
                + "docs/postgresql.md, \"Connection poolers\""));
    }

    private boolean heldHere(Connection c, int subtask) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(HELD_HERE)) {
            s.setLong(1, Integer.toUnsignedLong(lockClass));
            s.setLong(2, subtask);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** The error of a claim that failed for another reason than a holder. */
    SinkException claimFailed(int subtask, SQLException e) {
        return new SinkException(
                context + ": could not take the ownership guard of subtask " + subtask + ": " + e.getMessage(), e);
    }

    /** Releases the guard of an adopted {@code subtask}; the own subtask's goes when the session ends. */
    void release(int subtask) throws SinkException {
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_advisory_unlock(?, ?)")) {
            s.setInt(1, lockClass);
            s.setInt(2, subtask);
            s.execute();
        } catch (SQLException e) {
            throw releaseFailed(subtask, e);
        }
    }

    SinkException releaseFailed(int subtask, SQLException e) {
        return new SinkException(context + ": could not release the guard of subtask " + subtask, e);
    }

    /** Who holds the guard, from pg_locks and pg_stat_activity, for the refusal message. */
    private String holder(int subtask) {
        String sql =
                "SELECT a.pid, a.application_name, a.client_addr, a.backend_start FROM pg_locks l "
                        + "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                        + "AND l.classid = ?::oid AND l.objid = ?::oid AND l.objsubid = 2 AND l.pid <> pg_backend_pid()";
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setLong(1, Integer.toUnsignedLong(lockClass));
            s.setLong(2, subtask);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next()) {
                    return "held by backend pid "
                            + rs.getInt(1)
                            + ", application_name '"
                            + rs.getString(2)
                            + "', client "
                            + rs.getString(3)
                            + ", connected since "
                            + rs.getTimestamp(4);
                }
                return "holder not visible to this role";
            }
        } catch (SQLException e) {
            return "holder unknown: " + e.getMessage();
        }
    }
}
