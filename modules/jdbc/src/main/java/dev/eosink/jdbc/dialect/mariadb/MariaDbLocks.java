/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.mariadb;

import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.sql.GuardHolder;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Named session locks ({@code GET_LOCK(name, 0)}), released when the session ends. Names are at most 64 characters,
 * hence the sink hash ({@link LockNames}). A session may hold several (MariaDB 10.0.2+), in every XA state (ACTIVE,
 * IDLE, PREPARED), and one taken before {@code XA START} stays held through {@code XA PREPARE} until the session
 * ends; another session sees its holder ({@code IS_USED_LOCK}) and takes it within a millisecond of that end
 * (measured on 11.4.5). A guard's holder is told apart by a third lock, the execution mark: a session of another
 * execution does not hold the mark of the claimant's execution under its own id.
 */
final class MariaDbLocks implements SessionLocks {

    @Override
    public boolean tryGuard(Connection c, String sinkHash, int subtask) throws SQLException {
        return take(c, LockNames.guard(sinkHash, subtask));
    }

    @Override
    public void releaseGuard(Connection c, String sinkHash, int subtask) throws SQLException {
        Sql.single(c, "SELECT RELEASE_LOCK(?)", LockNames.guard(sinkHash, subtask));
    }

    @Override
    public boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
        return take(c, LockNames.branch(sinkHash, subtask));
    }

    @Override
    public void releaseBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
        Sql.single(c, "SELECT RELEASE_LOCK(?)", LockNames.branch(sinkHash, subtask));
    }

    /**
     * A lock of the session's own, named after the sink, the execution and the session's id: no other session ever
     * asks for that name, so it is always free, and {@code IS_USED_LOCK} of it answers whether a given session is of
     * a given execution.
     */
    @Override
    public void markExecution(Connection c, String sinkHash, String execution, long session) throws SQLException {
        take(c, LockNames.executionMark(sinkHash, execution, session));
    }

    @Override
    public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long holder)
            throws SQLException {
        long id = holder(c, LockNames.executionMark(sinkHash, execution, holder));
        return id == holder ? GuardHolder.THIS : GuardHolder.OTHER;
    }

    @Override
    public long sessionId(Connection c) throws SQLException {
        return ((Number) Sql.single(c, "SELECT CONNECTION_ID()")).longValue();
    }

    /** A user sees the sessions of its own account in the process list without the PROCESS privilege. */
    @Override
    public boolean sessionAlive(Connection c, long id) throws SQLException {
        Object found = Sql.single(c, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id);
        return ((Number) found).longValue() > 0;
    }

    @Override
    public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return holder(c, LockNames.guard(sinkHash, subtask));
    }

    @Override
    public long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return holder(c, LockNames.branch(sinkHash, subtask));
    }

    @Override
    public String endSessionSql(long id) {
        return "KILL " + id;
    }

    private static boolean take(Connection c, String name) throws SQLException {
        Object got = Sql.single(c, "SELECT GET_LOCK(?, 0)", name);
        return got != null && ((Number) got).intValue() == 1;
    }

    /** The id of the session holding lock {@code name}; 0 if none. */
    private static long holder(Connection c, String name) throws SQLException {
        Object id = Sql.single(c, "SELECT IS_USED_LOCK(?)", name);
        return id == null ? 0 : ((Number) id).longValue();
    }
}
