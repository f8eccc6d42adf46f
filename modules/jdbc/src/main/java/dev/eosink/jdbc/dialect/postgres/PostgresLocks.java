/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.postgres;

import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.sql.GuardHolder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Session-level advisory locks, in the two-int form: the guard's class is the first 32 bits of the sink hash, the
 * branch lock's the next 32, the key the subtask index. Measured with pgjdbc 42.7 on PostgreSQL 17: such a lock taken
 * before a transaction's first statement stays held through {@code PREPARE TRANSACTION} until the session ends, and
 * pg_locks names its holder to every role. The execution mark is a shared lock in the one-key form, which never meets
 * the two-key locks.
 */
final class PostgresLocks implements SessionLocks {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresLocks.class);

    /** The first 32 bits of the sink hash: the guard's class. */
    private static int guardClass(String sinkHash) {
        return (int) Long.parseLong(sinkHash.substring(0, 8), 16);
    }

    /** The next 32 bits of the sink hash: the class of the branch lock, apart from the guard's. */
    private static int branchClass(String sinkHash) {
        return (int) Long.parseLong(sinkHash.substring(8, 16), 16);
    }

    @Override
    public boolean tryGuard(Connection c, String sinkHash, int subtask) throws SQLException {
        return Boolean.TRUE.equals(Sql.single(c, "SELECT pg_try_advisory_lock(?, ?)", guardClass(sinkHash), subtask));
    }

    @Override
    public void releaseGuard(Connection c, String sinkHash, int subtask) throws SQLException {
        Sql.single(c, "SELECT pg_advisory_unlock(?, ?)", guardClass(sinkHash), subtask);
    }

    @Override
    public boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
        return Boolean.TRUE.equals(Sql.single(c, "SELECT pg_try_advisory_lock(?, ?)", branchClass(sinkHash), subtask));
    }

    @Override
    public void releaseBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
        Sql.single(c, "SELECT pg_advisory_unlock(?, ?)", branchClass(sinkHash), subtask);
    }

    /**
     * A shared advisory lock in the one-key form (pg_locks: {@code objsubid = 1}) keyed by 64 bits of the sink hash
     * and execution: every session of the execution may hold it at once.
     */
    @Override
    public void markExecution(Connection c, String sinkHash, String execution, long session) throws SQLException {
        long key = LockNames.executionMarkKey(sinkHash, execution);
        if (!Boolean.TRUE.equals(Sql.single(c, "SELECT pg_try_advisory_lock_shared(?)", key))) {
            // Only an exclusive lock of someone else's with the same 64-bit key refuses a shared one.
            LOG.warn(
                    "advisory lock {} (the execution mark of session {}) is held exclusively by another session; "
                            + "a later attempt of this job that finds this session holding a guard takes it for another job's",
                    key,
                    session);
        }
    }

    @Override
    public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long holder)
            throws SQLException {
        long key = LockNames.executionMarkKey(sinkHash, execution);
        Object marked = Sql.single(
                c,
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
                        + " AND objsubid = 1 AND pid = ? AND classid::bigint = ? AND objid::bigint = ?)",
                (int) holder,
                key >>> 32,
                key & 0xFFFF_FFFFL);
        return Boolean.TRUE.equals(marked) ? GuardHolder.THIS : GuardHolder.OTHER;
    }

    @Override
    public long sessionId(Connection c) throws SQLException {
        return ((Number) Sql.single(c, "SELECT pg_backend_pid()")).longValue();
    }

    @Override
    public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return holder(c, guardClass(sinkHash), subtask);
    }

    @Override
    public long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return holder(c, branchClass(sinkHash), subtask);
    }

    /**
     * The backend holding advisory lock {@code (key1, key2)} of this database: pg_locks shows the two-int form with
     * classid = key1 (as an unsigned oid), objid = key2 and objsubid = 2.
     */
    private static long holder(Connection c, int key1, int key2) throws SQLException {
        Object pid = Sql.single(
                c,
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2"
                        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                        + " AND classid::bigint = ? AND objid::bigint = ?",
                Integer.toUnsignedLong(key1),
                Integer.toUnsignedLong(key2));
        return pid == null ? 0 : ((Number) pid).longValue();
    }

    @Override
    public String endSessionSql(long id) {
        return "SELECT pg_terminate_backend(" + id + ")";
    }
}
