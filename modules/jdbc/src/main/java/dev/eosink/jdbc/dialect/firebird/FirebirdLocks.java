/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.sql.GuardHolder;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Firebird 3 has no advisory locks, so the ownership guard is a row lock: an UPDATE of the guard's row in table
 * {@value #TABLE} by a transaction that stays open on the guard's connection ({@link #guardHoldsTransaction}), in
 * a NO WAIT transaction that ignores limbo ({@link FirebirdTpb#SKIP_LIMBO}). Measured on Firebird 3.0.11 with
 * Jaybird 6.0.3: another session's try fails at once (40001 / 335544336); the row is free again 1-2 ms after the
 * holder's attachment is ended by an operator ({@code DELETE FROM MON$ATTACHMENTS}), its client process is killed,
 * or the server restarts; it stays held through other statements, {@code XAResource.recover} and the commit or
 * rollback of another connection's prepared branch on the same connection; a commit or rollback of the connection
 * itself releases it.
 *
 * <p>Each guard of the connection has a savepoint of its own, so that one can be released while others stay: a
 * rollback to it also undoes the guards taken after it, which {@link #releaseGuard} takes again.
 *
 * <p>Who holds a guard: the holder's own update is not committed, so it is not what others see. Each holder
 * registers itself in a committed row ({@code <guard>/holder}, written in an autonomous transaction once it took the
 * guard, deleted when it lets go), and a registration counts only while its session is in {@code MON$ATTACHMENTS}.
 * The execution mark is a committed row too ({@link LockNames#executionMark}); a writer deletes its user's marks and
 * registrations of sessions that are gone when it marks its own. {@code MON$} tables are a snapshot per
 * transaction, so they are read in an autonomous transaction of their own, which sees the present also from the
 * guard's long transaction. A user sees only its own user's sessions there: a holder of another user counts as
 * gone (the sink's sessions share one user).
 *
 * <p>No branch lock ({@link #locksBranches}): a row lock is held by a transaction, and on a connection that carries
 * XA branches every transaction is a branch, whose locks end with it; a branch lock would need a second connection
 * beside each branch-carrying one, which ended with it.
 *
 * <p>The table is created when missing (the sink's user needs the CREATE TABLE privilege then, or an operator
 * creates it and grants SELECT, INSERT, UPDATE and DELETE on it): {@code CREATE TABLE "eosink_locks" ("name"
 * VARCHAR(100) NOT NULL PRIMARY KEY, "session" BIGINT, "owner" VARCHAR(63))}.
 */
final class FirebirdLocks implements SessionLocks {

    static final String TABLE = "eosink_locks";
    private static final String QUOTED = "\"" + TABLE + "\"";
    private static final String HOLDER = "/holder";

    @Override
    public boolean tryGuard(Connection c, String sinkHash, int subtask) throws SQLException {
        String guard = LockNames.guard(sinkHash, subtask);
        ensureRow(c, guard);
        beginGuard(c);
        if (holds(c, guard)) {
            // Its savepoint stays as it is: declared again, Firebird would release the old one into the transaction,
            // and the guard could not be released alone any more.
            return true;
        }
        String savepoint = savepoint(sinkHash, subtask);
        if (!take(c, guard, savepoint)) {
            endIfNoneHeld(c);
            return false;
        }
        autonomous(
                c,
                "UPDATE OR INSERT INTO " + QUOTED + " (\"name\", \"session\", \"owner\") VALUES (:n, "
                        + "CURRENT_CONNECTION, CURRENT_USER) MATCHING (\"name\");",
                guard + HOLDER);
        return true;
    }

    /**
     * Rolls back to the guard's savepoint, then takes again each guard of this connection that the rollback undid
     * (taken after this one); fails if another session took one of those in between. Once none is held, ends the
     * transaction and returns the connection to autocommit and READ COMMITTED.
     */
    @Override
    public void releaseGuard(Connection c, String sinkHash, int subtask) throws SQLException {
        if (c.getAutoCommit()) {
            return;
        }
        String guard = LockNames.guard(sinkHash, subtask);
        if (!holds(c, guard)) {
            return;
        }
        Sql.execute(c, "ROLLBACK TO SAVEPOINT " + savepoint(sinkHash, subtask));
        deleteRegistration(c, guard);
        List<String> lost = new ArrayList<>();
        for (String other : registered(c)) {
            if (!holds(c, other) && !take(c, other, savepoint(other))) {
                deleteRegistration(c, other);
                lost.add(other);
            }
        }
        endIfNoneHeld(c);
        if (!lost.isEmpty()) {
            throw new SQLException(
                    "Releasing guard " + guard + " on Firebird undid the guards taken after it, and "
                            + "another session took " + lost + " before this one could take them again: they are lost.",
                    "40001");
        }
    }

    /** Takes nothing: see the class comment. */
    @Override
    public boolean tryBranchLock(Connection c, String sinkHash, int subtask) {
        return true;
    }

    @Override
    public void releaseBranchLock(Connection c, String sinkHash, int subtask) {}

    @Override
    public boolean locksBranches() {
        return false;
    }

    @Override
    public boolean guardHoldsTransaction() {
        return true;
    }

    /** A committed row named after the sink, the execution and the session; marks of gone sessions are deleted. */
    @Override
    public void markExecution(Connection c, String sinkHash, String execution, long session) throws SQLException {
        ensureTable(c);
        autonomous(
                c,
                "DELETE FROM " + QUOTED + " WHERE \"owner\" = CURRENT_USER AND \"session\" IS NOT NULL AND "
                        + "\"session\" NOT IN (SELECT MON$ATTACHMENT_ID FROM MON$ATTACHMENTS);",
                "");
        autonomous(
                c,
                "UPDATE OR INSERT INTO " + QUOTED + " (\"name\", \"session\", \"owner\") VALUES (:n, "
                        + "CURRENT_CONNECTION, CURRENT_USER) MATCHING (\"name\");",
                LockNames.executionMark(sinkHash, execution, session));
    }

    @Override
    public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long holder)
            throws SQLException {
        return Sql.single(
                                c,
                                "SELECT 1 FROM " + QUOTED + " WHERE \"name\" = ?",
                                LockNames.executionMark(sinkHash, execution, holder))
                        == null
                ? GuardHolder.OTHER
                : GuardHolder.THIS;
    }

    /** {@code CURRENT_CONNECTION}: the attachment id of {@code MON$ATTACHMENTS}. */
    @Override
    public long sessionId(Connection c) throws SQLException {
        return ((Number) Sql.single(c, "SELECT CURRENT_CONNECTION FROM RDB$DATABASE")).longValue();
    }

    /** In {@code MON$ATTACHMENTS}, read in an autonomous transaction (a fresh snapshot). */
    @Override
    public boolean sessionAlive(Connection c, long id) throws SQLException {
        Object n = Sql.single(
                c,
                "EXECUTE BLOCK (id BIGINT = ?) RETURNS (n INTEGER) AS BEGIN\n"
                        + "IN AUTONOMOUS TRANSACTION DO SELECT COUNT(*) FROM MON$ATTACHMENTS WHERE MON$ATTACHMENT_ID = :id "
                        + "INTO :n;\nSUSPEND;\nEND",
                id);
        return ((Number) n).intValue() > 0;
    }

    /** The registered holder while its session lives; 0 without one. */
    @Override
    public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        Object id = Sql.single(
                c,
                "SELECT \"session\" FROM " + QUOTED + " WHERE \"name\" = ?",
                LockNames.guard(sinkHash, subtask) + HOLDER);
        if (id == null) {
            return 0;
        }
        long session = ((Number) id).longValue();
        return sessionAlive(c, session) ? session : 0;
    }

    @Override
    public long branchLockHolder(Connection c, String sinkHash, int subtask) {
        return 0;
    }

    /** Allowed to SYSDBA, the database's owner and RDB$ADMIN only (an ordinary user is refused, 28000). */
    @Override
    public String endSessionSql(long id) {
        return "DELETE FROM MON$ATTACHMENTS WHERE MON$ATTACHMENT_ID = " + id;
    }

    /** Leaves autocommit for a transaction of {@link FirebirdTpb#SKIP_LIMBO}, or checks that it is in one. */
    private static void beginGuard(Connection c) throws SQLException {
        if (c.getAutoCommit()) {
            FirebirdTpb.ensure(
                    c,
                    FirebirdTpb.SKIP_LIMBO,
                    FirebirdTpb.skipLimbo(),
                    "The ownership guard",
                    "Create the XADataSource through the Firebird dialect's XaDriver, or guard on a plain connection.");
            c.setTransactionIsolation(FirebirdTpb.SKIP_LIMBO);
            c.setAutoCommit(false);
        } else if (c.getTransactionIsolation() != FirebirdTpb.SKIP_LIMBO) {
            throw new SQLException("The ownership guard on Firebird needs the connection in autocommit, or in the "
                    + "transaction of its guards: it is in another transaction");
        }
    }

    /** Back to autocommit and READ COMMITTED once this connection holds no guard. */
    private static void endIfNoneHeld(Connection c) throws SQLException {
        for (String guard : registered(c)) {
            if (holds(c, guard)) {
                return;
            }
        }
        c.rollback();
        c.setAutoCommit(true);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }

    /** The row lock, under its savepoint: true if taken (or held already), false if another transaction holds it. */
    private static boolean take(Connection c, String guard, String savepoint) throws SQLException {
        Sql.execute(c, "SAVEPOINT " + savepoint);
        try (PreparedStatement s =
                c.prepareStatement("UPDATE " + QUOTED + " SET \"session\" = CURRENT_CONNECTION WHERE \"name\" = ?")) {
            s.setString(1, guard);
            if (s.executeUpdate() != 1) {
                throw new SQLException("The row of guard " + guard + " is missing from " + QUOTED);
            }
            return true;
        } catch (SQLException e) {
            if (e.getErrorCode() == FirebirdErrors.LOCK_CONFLICT) {
                return false;
            }
            throw e;
        }
    }

    /** Whether this connection's transaction holds {@code guard}: only its own update shows its session there. */
    private static boolean holds(Connection c, String guard) throws SQLException {
        Object session = Sql.single(
                c, "SELECT 1 FROM " + QUOTED + " WHERE \"name\" = ? AND \"session\" = " + "CURRENT_CONNECTION", guard);
        return session != null;
    }

    /** The guards this session registered as holding. */
    private static List<String> registered(Connection c) throws SQLException {
        List<String> guards = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT \"name\" FROM " + QUOTED + " WHERE \"name\" LIKE '%"
                        + HOLDER + "' AND \"session\" = CURRENT_CONNECTION ORDER BY \"name\"");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                String name = rs.getString(1);
                guards.add(name.substring(0, name.length() - HOLDER.length()));
            }
        }
        return guards;
    }

    private static void deleteRegistration(Connection c, String guard) throws SQLException {
        autonomous(
                c,
                "DELETE FROM " + QUOTED + " WHERE \"name\" = :n AND \"session\" = CURRENT_CONNECTION;",
                guard + HOLDER);
    }

    /** The guard's row, inserted (committed) if missing; a concurrent insert of the same row is no failure. */
    private static void ensureRow(Connection c, String guard) throws SQLException {
        ensureTable(c);
        autonomous(
                c,
                "INSERT INTO " + QUOTED + " (\"name\") SELECT :n FROM RDB$DATABASE WHERE NOT EXISTS (SELECT 1 "
                        + "FROM " + QUOTED + " WHERE \"name\" = :n);\nWHEN ANY DO\nBEGIN\nEND",
                guard);
    }

    private static void ensureTable(Connection c) throws SQLException {
        Sql.execute(
                c,
                "EXECUTE BLOCK AS BEGIN\n"
                        + DdlBlock.ifMissing(
                                "RDB$RELATIONS",
                                "RDB$RELATION_NAME",
                                TABLE,
                                "CREATE TABLE " + QUOTED
                                        + " (\"name\" VARCHAR(100) NOT NULL PRIMARY KEY, \"session\" BIGINT, "
                                        + "\"owner\" VARCHAR(63))")
                        + "END");
    }

    /**
     * Runs {@code psql} (statements, each ending in a semicolon) with {@code :n} = {@code name} in an autonomous
     * transaction: committed at once. Run again when it met a row that another short autonomous transaction of
     * these (another writer's registration, or its {@link #markExecution}, which deletes the registrations of gone
     * sessions) deleted or was changing: the next run sees that transaction ended. Measured when two or three
     * subtasks restart together: "cannot update erased record" (335544382) and, the other transaction still open,
     * the no-wait conflict (40001, 335544336). Never a guard's own row, whose conflict means it is held.
     */
    private static void autonomous(Connection c, String psql, String name) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("EXECUTE BLOCK (n VARCHAR(100) = ?) AS BEGIN\n"
                + "IN AUTONOMOUS TRANSACTION DO\nBEGIN\n" + psql + "\nEND\nEND")) {
            s.setString(1, name);
            for (int attempt = 1; ; attempt++) {
                try {
                    s.execute();
                    return;
                } catch (SQLException e) {
                    if (attempt >= AUTONOMOUS_ATTEMPTS
                            || ErrorKinds.chain(e).stream()
                                    .noneMatch(x -> x.getErrorCode() == RECORD_ERASED
                                            || x.getErrorCode() == FirebirdErrors.LOCK_CONFLICT)) {
                        throw e;
                    }
                    pause(attempt);
                }
            }
        }
    }

    /** "cannot update erased record": the row was deleted by a transaction that committed. */
    private static final int RECORD_ERASED = 335544382;
    /** The other transactions are a statement long: a few runs, some milliseconds apart, outlast them. */
    private static final int AUTONOMOUS_ATTEMPTS = 10;

    private static void pause(int attempt) throws SQLException {
        try {
            Thread.sleep(5L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while taking a guard's row on Firebird", e);
        }
    }

    /** The savepoint of guard {@code guard} ({@link LockNames#guard}). */
    private static String savepoint(String guard) {
        String[] parts = guard.split("/");
        return savepoint(parts[1], Integer.parseInt(parts[2]));
    }

    /** The savepoint of one guard: at most 1 + 16 + 1 + 10 characters, within Firebird 3's 31. */
    private static String savepoint(String sinkHash, int subtask) {
        return "\"G" + sinkHash + "_" + subtask + "\"";
    }
}
