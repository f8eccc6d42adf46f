/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.jdbc.sql.GuardHolder;

import org.apache.flink.annotation.PublicEvolving;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Session locks: locks the database releases when the session that took them ends, however it ends (closed, its
 * client gone, killed), that another session can try without waiting and whose holder it can look up. A sink holds
 * two per subtask index, both keyed by the sink's hash ({@link LockNames#sinkHash}) and the index:
 *
 * <ul>
 *   <li>the <b>ownership guard</b>, on a connection that lives as long as the writer: a second job with the same
 *       sink id finds it held and refuses to start, rather than roll back the first job's transactions;
 *   <li>the <b>branch lock</b>, on every connection that carries a transaction of the subtask, from before the
 *       transaction's first statement until the connection ends: a restarted writer that claims the index waits
 *       for it, and so for every session of the writer before it to have finished (a session whose client died
 *       while its PREPARE still ran on the server ends only after that PREPARE).
 * </ul>
 *
 * <p>Each session of a sink also carries its execution's mark ({@link #markExecution}), so that a writer that
 * finds the guard held can tell an earlier attempt of its own job, going away, from another job.
 */
@PublicEvolving
public interface SessionLocks {

    /** Tries once to take the ownership guard of {@code (sinkHash, subtask)}; false if another session holds it. */
    boolean tryGuard(Connection c, String sinkHash, int subtask) throws SQLException;

    /** Releases the ownership guard of {@code (sinkHash, subtask)} that this session holds. */
    void releaseGuard(Connection c, String sinkHash, int subtask) throws SQLException;

    /**
     * Tries once to take the branch lock of {@code (sinkHash, subtask)}; false if another session holds it. It must
     * stay held through the transaction's PREPARE (an XA PREPARE, or {@code PREPARE TRANSACTION}) until the session
     * ends.
     */
    boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException;

    /** Releases the branch lock of {@code (sinkHash, subtask)} that this session holds. */
    void releaseBranchLock(Connection c, String sinkHash, int subtask) throws SQLException;

    /**
     * Marks the session of {@code c} (id {@code session}) as one of execution {@code execution} of the sink, until
     * the session ends; taken before any guard.
     */
    void markExecution(Connection c, String sinkHash, String execution, long session) throws SQLException;

    /** Whether session {@code holder}, which holds a guard of the sink, carries the mark of {@code execution}. */
    GuardHolder holderExecution(Connection c, String sinkHash, String execution, long holder) throws SQLException;

    /** This session's id as the database shows it to operators. */
    long sessionId(Connection c) throws SQLException;

    /** The id of the session holding the ownership guard of {@code (sinkHash, subtask)}; 0 if none. */
    long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException;

    /** The id of the session holding the branch lock of {@code (sinkHash, subtask)}; 0 if none. */
    long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException;

    /**
     * Whether session {@code id} is still on the server, asked on {@code c}, a session of the same user; needed
     * only where a session ends in steps ({@link XaTraits#provesOutcomesByMarker}).
     */
    default boolean sessionAlive(Connection c, long id) throws SQLException {
        throw new SQLException("this dialect cannot tell whether a session is alive");
    }

    /** The statement with which an operator ends session {@code id}, for remedies. */
    String endSessionSql(long id);

    /**
     * Whether {@link #tryBranchLock} takes a lock. False where the database has no lock that a connection carrying
     * XA branches can hold through its PREPARE: {@link #tryBranchLock} then answers true and takes nothing, and
     * {@link #branchLockHolder} answers 0. The sink then cannot see a session of an earlier writer that is still
     * running a statement of its branch (its PREPARE, say) when a restarted writer lists the prepared branches: such
     * a branch is prepared after the listing, and stays prepared, holding its rows, until the next recovery of that
     * subtask or an operator resolves it; the writer says so at start. The ownership guard is unaffected.
     */
    default boolean locksBranches() {
        return true;
    }

    /**
     * Whether the ownership guard is held by a transaction left open on the guard's connection (a row lock) rather
     * than by the session. Then, from the first {@link #tryGuard} until the last {@link #releaseGuard}, that
     * connection is not in autocommit and must never be committed or rolled back (that would release every guard
     * it holds), and whatever it runs stays uncommitted: the sink runs statements that must commit (the marker and
     * dead-letter DDL, prunes, inserts) on another connection. Reads, {@code XAResource.recover} and {@code commit}
     * and {@code rollback} of other connections' prepared branches may run on it. False (the default): the guard
     * is the session's, and the connection stays in autocommit.
     */
    default boolean guardHoldsTransaction() {
        return false;
    }
}
