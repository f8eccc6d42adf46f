/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.sql.GuardHolder;
import dev.eosink.postgres.PostgresOwnership;

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
 * {@code objsubid = 2}. Advisory locks are per database: a sink with the same id in another database of
 * the server is another sink, and every look at pg_locks here keeps to the connection's database.
 * Callers run it between epochs, never inside the epoch's transaction.
 *
 * <p>Before its first guard, the session takes the <em>execution mark</em> of the sink: a shared advisory
 * lock keyed by the sink id and the execution ({@link SubtaskContext#execution()}), in the one-key form
 * ({@code objsubid = 1}), held until the session ends. So a claim that finds the guard held can tell whose
 * it is: a holder with this execution's mark is a session of an earlier attempt of this job, going away
 * (its task is being cancelled, or its TaskManager died and the server has not noticed yet), and a restart
 * waits for it again; a holder without it is a session of another job, or of another submission of this
 * one, and no restart helps: the claim refuses with a {@link MisconfigurationException}.
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

    /**
     * The advisory locks of the asking session's database: advisory locks are per database, and pg_locks shows
     * the whole server's, a same-named sink's of another database among them.
     */
    private static final String ADVISORY_LOCKS_HERE = "locktype = 'advisory' AND granted"
            + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";

    /** Whether the server session holding a guard is this connection's: pg_locks seen from the asking session. */
    private static final String HELD_HERE = "SELECT bool_or(pid = pg_backend_pid()) FROM pg_locks WHERE "
            + ADVISORY_LOCKS_HERE + " AND classid = ?::oid AND objid = ?::oid AND objsubid = 2";

    /**
     * The session holding the guard of a subtask other than the asking one, for the messages, and whether it
     * carries an execution's mark (parameters: the mark's two halves, the lock class, the subtask). Both from
     * one read of pg_locks, a MATERIALIZED CTE: each call of pg_lock_status() copies the lock table anew
     * (under all its partition locks at once), and a holder that ended between two copies would be seen
     * holding the guard in the first and without its mark in the second: another job's, by the rule.
     */
    static final String HOLDER = "WITH l AS MATERIALIZED (SELECT pid, classid, objid, objsubid FROM pg_locks"
            + " WHERE " + ADVISORY_LOCKS_HERE + ")"
            + " SELECT g.pid, a.application_name, a.client_addr, a.backend_start, EXISTS (SELECT 1 FROM l m"
            + " WHERE m.pid = g.pid AND m.objsubid = 1 AND m.classid = ?::oid AND m.objid = ?::oid)"
            + " FROM l g LEFT JOIN pg_stat_activity a ON a.pid = g.pid"
            + " WHERE g.classid = ?::oid AND g.objid = ?::oid AND g.objsubid = 2 AND g.pid <> pg_backend_pid()";

    private final Connection connection;
    private final SubtaskContext context;
    private final int lockClass;
    private final long executionMark;
    /** Whether this session took its execution mark. */
    private boolean marked;
    /** For the look at a new connection ({@link #refuseASharedSession}); null once it was taken. */
    private Opener probe;

    OwnershipGuard(Connection connection, SubtaskContext context, Opener probe) {
        this.connection = connection;
        this.context = context;
        this.lockClass = lockClass(context.sinkId());
        this.executionMark = LockNames.executionMarkKey(context.sinkId(), context.execution());
        this.probe = probe;
    }

    /** The advisory-lock class of a sink id: a stable 32-bit hash, so every job computes the same. */
    static int lockClass(String sinkId) {
        return PostgresOwnership.guardLockClass(sinkId);
    }

    /**
     * Takes the guard of {@code subtask}, waiting up to {@code waitMillis} for a holder going away. Refuses
     * with a {@link MisconfigurationException} when the holder is a session of another execution, with a
     * plain {@link SinkException} (a restart waits again) when it is this execution's or unknown.
     */
    void claim(int subtask, long waitMillis) throws SinkException {
        long deadline = System.currentTimeMillis() + waitMillis;
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            markExecution();
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
                    LOG.info(
                            "{}: waiting up to {} ms more for the ownership guard of sink id '{}' subtask {} ({})",
                            context,
                            deadline - now,
                            context.sinkId(),
                            subtask,
                            holder(subtask).description);
                    nextLog = now + 5_000;
                }
                if (now >= deadline) {
                    throw notReleased(subtask, waitMillis, holder(subtask));
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

    /** Takes this execution's mark, once per session, before any guard. */
    private void markExecution() throws SQLException {
        if (marked) {
            return;
        }
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_try_advisory_lock_shared(?)")) {
            s.setLong(1, executionMark);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    // Only an exclusive lock of someone else's with the same 64-bit key refuses a shared one.
                    LOG.warn(
                            "{}: advisory lock {} (this execution's mark) is held exclusively by another session; "
                                    + "a later attempt of this job that finds this session holding a guard takes it for "
                                    + "another job's",
                            context,
                            executionMark);
                }
            }
        }
        marked = true;
    }

    /** Why the claim of {@code subtask} gave up, by whose session holds the guard. */
    private SinkException notReleased(int subtask, long waitMillis, Holder holder) {
        String held = context + ": another live session holds the ownership guard of sink id '" + context.sinkId()
                + "' subtask " + subtask + " (" + holder.description + ") and did not release it within " + waitMillis
                + " ms";
        return holder.execution.refusal(held, "SELECT pg_terminate_backend(" + holder.pid + ")");
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
            throw new SinkException(
                    context + ": could not check that the ownership guard of subtask " + subtask
                            + " is this session's alone: " + e.getMessage(),
                    e);
        }
        boolean sharedWithANewConnection = false;
        try (Connection other = opener.open()) {
            other.setAutoCommit(true);
            sharedWithANewConnection = heldHere(other, subtask);
        } catch (SQLException e) {
            // A second look only (a tight pool, max_connections reached): it must not keep the job from starting.
            LOG.warn(
                    "{}: could not open a connection to check that no other client shares the session of the "
                            + "ownership guard of subtask {} (a pooler in transaction mode would: docs/postgresql.md, "
                            + "\"Connection poolers\"); going on: {}",
                    context,
                    subtask,
                    e.getMessage());
        }
        if (here && !sharedWithANewConnection) {
            return;
        }
        throw new MisconfigurationException(context + ": the ownership guard of sink id '"
                + context.sinkId() + "' subtask " + subtask + " (a session-level advisory lock) "
                + (here
                        ? "is held by the server session that a new connection was given too"
                        : "is not held by the server session of this connection's next transaction")
                + ": the connection goes through a pooler that hands server sessions out per transaction (PgBouncer with "
                + "pool_mode = transaction or statement). There the guard keeps no second job out, the session's "
                + "lock_timeout does not hold, and two writers could roll back each other's transactions. Remedy: connect "
                + "the sink to PostgreSQL directly, or through a pooler in session mode (PgBouncer pool_mode = session); "
                + "docs/postgresql.md, \"Connection poolers\"");
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

    /**
     * Who holds the guard, from pg_locks and pg_stat_activity, for the messages, and whether that session
     * carries this execution's mark. Every role sees pg_locks and the pid and application_name of every
     * session; the client address and start time only of its own sessions (or with pg_read_all_stats).
     */
    private Holder holder(int subtask) {
        try (PreparedStatement s = connection.prepareStatement(HOLDER)) {
            s.setLong(1, executionMark >>> 32);
            s.setLong(2, executionMark & 0xFFFF_FFFFL);
            s.setLong(3, Integer.toUnsignedLong(lockClass));
            s.setLong(4, subtask);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next()) {
                    int pid = rs.getInt(1);
                    return new Holder(
                            "held by backend pid " + pid + ", application_name '" + rs.getString(2) + "', client "
                                    + rs.getString(3) + ", connected since " + rs.getTimestamp(4),
                            rs.getBoolean(5) ? GuardHolder.THIS : GuardHolder.OTHER,
                            pid);
                }
                return new Holder("holder gone from pg_locks meanwhile", GuardHolder.UNKNOWN, 0);
            }
        } catch (SQLException e) {
            return new Holder("holder unknown: " + e.getMessage(), GuardHolder.UNKNOWN, 0);
        }
    }

    /** The session holding a guard: for messages, whose execution it is, and its pid (0: unknown). */
    private static final class Holder {
        final String description;
        final GuardHolder execution;
        final int pid;

        Holder(String description, GuardHolder execution, int pid) {
            this.description = description;
            this.execution = execution;
            this.pid = pid;
        }
    }
}
