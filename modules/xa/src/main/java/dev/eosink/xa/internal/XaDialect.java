package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.GuardHolder;

import org.apache.flink.annotation.Internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What differs between XA databases, and nothing else: the protocol, the Xid layout and the error
 * table are the same for all. Chosen from the driver's product name when the writer connects.
 */
@Internal
public abstract class XaDialect {

    /** The dialect of the database a connection talks to. */
    public static XaDialect of(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName();
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("mariadb") || p.contains("mysql")) {
            return new MariaDbDialect();
        }
        if (p.contains("postgresql")) {
            return new PostgresXaDialect();
        }
        return new GenericXaDialect(product);
    }

    /** "MariaDB", "PostgreSQL": for messages. */
    public abstract String name();

    /** Quotes one identifier (MariaDB backticks, standard double quotes). */
    public abstract String quote(String identifier);

    /** A possibly schema-qualified name, quoted. */
    public String qualified(String schema, String name) {
        return schema == null ? quote(name) : quote(schema) + "." + quote(name);
    }

    public String insertSql(String schema, String table, List<String> columns) {
        return insertSql(schema, table, columns, 1);
    }

    /** The insert of {@code rows} rows in one statement: one parameter per column and row, row by row. */
    public String insertSql(String schema, String table, List<String> columns, int rows) {
        String row = "(" + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ")";
        return "INSERT INTO " + qualified(schema, table)
                + " (" + columns.stream().map(this::quote).collect(Collectors.joining(", ")) + ") VALUES "
                + String.join(", ", Collections.nCopies(rows, row));
    }

    /** The upsert of one row by {@code key}: {@link #upsertSql(String, String, List, List, int)} of 1 row. */
    public final String upsertSql(String schema, String table, List<String> columns, List<String> key) {
        return upsertSql(schema, table, columns, key, 1);
    }

    /**
     * The upsert of {@code rows} rows by {@code key} in one statement (every column updated from the row,
     * the key's too, so that a key the database takes as equal ends in the row's spelling), applied in
     * row order, with the
     * parameters of {@link #insertSql(String, String, List, int)}; null where the dialect has none, and
     * {@code upsert(...)} is refused at start.
     */
    public String upsertSql(String schema, String table, List<String> columns, List<String> key, int rows) {
        return null;
    }

    /**
     * The most bytes one statement may take on the wire: the server refuses a larger one (MariaDB's
     * and MySQL's {@code max_allowed_packet}, after which it closes the connection). A statement of
     * many rows ({@link #upsertSql(String, String, List, List, int)}) is cut below it; the driver cuts
     * a JDBC batch itself. {@link Long#MAX_VALUE} where the sink knows no bound.
     */
    public long maxStatementBytes(Connection c) throws SQLException {
        return Long.MAX_VALUE;
    }

    /**
     * The delete of one row by {@code key}: one parameter per key column, in its order. One key per
     * statement, each a lookup by the unique key: a DELETE of many keys ({@code k IN (...)}) may scan
     * the table instead, and under InnoDB it then waits for the lock of every row it reads, rows of
     * another subtask's prepared branch included, until the lock timeout.
     */
    public String deleteSql(String schema, String table, List<String> key) {
        return "DELETE FROM " + qualified(schema, table) + " WHERE "
                + key.stream().map(c -> quote(c) + " = ?").collect(Collectors.joining(" AND "));
    }

    /**
     * The column lists of the table's PRIMARY and UNIQUE keys, each in index order; called at start
     * only where {@link #upsertSql} is not null.
     */
    public List<List<String>> uniqueKeys(Connection c, String schema, String table) throws SQLException {
        return List.of();
    }

    /**
     * The dead-letter table's DDL (gid, sink_id, subtask, checkpoint_id, position, record, sqlstate,
     * error, created_at: see {@code DeadLetterBuffer}), created when missing like the marker table;
     * null where the dialect knows none, and {@code deadLetterTable(...)} is refused at start.
     */
    public String deadLetterDdl(String schema, String table) {
        return null;
    }

    /**
     * Whether the database refused a statement for its record's data (a NULL in a NOT NULL column, a
     * constraint, a value too long or of the wrong type), which a dead-letter table keeps, rather than
     * for anything else (a lost connection, a lock timeout, a missing privilege), which fails the epoch.
     */
    public boolean rejectsRecord(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.startsWith("22") || state.startsWith("23") || state.equals("42804");
    }

    /**
     * Whether the connection that prepared a branch can begin the next one. pgjdbc returns to idle
     * after prepare; MariaDB keeps the prepared branch attached to its session, refuses the next
     * XA START (XAER_RMFAIL) and lets no other session commit it (XAER_NOTA) until that session ends.
     */
    public abstract boolean keepsConnectionAfterPrepare();

    /**
     * Whether the database may answer an {@code XA COMMIT} or {@code XA ROLLBACK} from another session with
     * success and do nothing, or drop a branch that is still prepared from what {@code recover} lists.
     * MariaDB does all of it to a branch whose preparing session is ending ({@link MariaDbDialect}), so
     * there a commit or a rollback counts only once the branch's marker row shows it, and a branch gone
     * from the list counts as gone only once nothing holds its marker row ({@link #markerRow}). False: the
     * database's answers are the truth.
     */
    public boolean provesOutcomesByMarker() {
        return false;
    }

    /** What the marker row of a branch shows a session that asks for it ({@link #markerRow}). */
    public enum MarkerRow {
        /** Committed: the row is visible. */
        COMMITTED,
        /** Written by a transaction that has not ended (a branch still prepared, listed or not). */
        HELD,
        /** Neither: no transaction wrote it, or one that did was rolled back (or its row pruned since). */
        ABSENT
    }

    /**
     * The marker row named {@code gid}, asked on {@code c} (autocommit, READ COMMITTED). This default
     * reads it without locking, so it never answers {@link MarkerRow#HELD}; a dialect that {@link
     * #provesOutcomesByMarker} tells HELD apart.
     */
    public MarkerRow markerRow(Connection c, String schema, String table, String gid) throws SQLException {
        return single(c, markerExistsSql(schema, table), gid) == null ? MarkerRow.ABSENT : MarkerRow.COMMITTED;
    }

    /**
     * Checks server settings the sink needs, at writer start.
     *
     * @param maxPreparedPerSubtask the most prepared branches one writer subtask may hold
     */
    public void checkServer(Connection c, SubtaskContext context, String where, int maxPreparedPerSubtask)
            throws SQLException, SinkException {}

    /** Checks that the target table takes part in transactions, at writer start. */
    public void checkTransactional(Connection c, SubtaskContext context, String schema, String table)
            throws SQLException, SinkException {}

    /**
     * Tries once to take the ownership guard of {@code (sinkHash, subtask)} on {@code guard}, a
     * connection that lives as long as the writer; released when that session ends however it ends.
     *
     * @return false if another live session holds it
     */
    public abstract boolean tryLock(Connection guard, String sinkHash, int subtask) throws SQLException;

    public abstract void unlock(Connection guard, String sinkHash, int subtask) throws SQLException;

    /**
     * Whether the ownership guard can see a second job, and the branch lock covers the sessions that
     * carry branches; false only for the generic dialect, which knows no session lock.
     */
    public boolean guardsOwnership() {
        return true;
    }

    /**
     * Tries once to take the branch lock of {@code (sinkHash, subtask)} on {@code c}, a session lock
     * apart from the guard. Every connection that carries a branch of the subtask takes it before its
     * first {@code XA START} and holds it until the connection ends; a writer that claims the subtask
     * takes it (and lets it go) after the guard and before it lists prepared branches. The session
     * holding it is released only when the server has finished with it: a session whose client died
     * while its XA PREPARE was still running ends after that PREPARE, not when the socket closed
     * (the guard's session, idle, ends at once). Measured: MariaDB keeps a GET_LOCK taken before XA
     * START through XA END and XA PREPARE and allows GET_LOCK in every XA state; PostgreSQL keeps a
     * session-level advisory lock through PREPARE TRANSACTION. Both release it at the session's end.
     *
     * @return false if another live session holds it
     */
    public boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
        return true;
    }

    public void unlockBranch(Connection c, String sinkHash, int subtask) throws SQLException {}

    /**
     * Marks the session of {@code guard} (id {@code session}) as one of execution {@code execution} of the
     * sink, until the session ends; a writer does it before it takes any guard, so that another writer that
     * finds this session holding a guard can tell whose it is ({@link #holderExecution}). Nothing where the
     * dialect knows no session lock.
     */
    public void markExecution(Connection guard, String sinkHash, String execution, long session) throws SQLException {}

    /**
     * Whether session {@code holder}, which holds a guard of the sink, carries the mark of {@code execution}
     * ({@link #markExecution}); {@link GuardHolder#UNKNOWN} where the dialect cannot tell.
     */
    public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long holder)
            throws SQLException {
        return GuardHolder.UNKNOWN;
    }

    /** This session's id as the database shows it to operators; 0 where the dialect knows none. */
    public long sessionId(Connection c) throws SQLException {
        return 0;
    }

    /**
     * Whether session {@code id} is still on the server (in its process list), asked on {@code c}, a
     * session of the same user; false where the dialect knows no session ids.
     */
    public boolean sessionAlive(Connection c, long id) throws SQLException {
        return false;
    }

    /** The id of the session holding the ownership guard of {@code (sinkHash, subtask)}; 0 if none. */
    public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return 0;
    }

    /** The id of the session holding the branch lock of {@code (sinkHash, subtask)}; 0 if none. */
    public long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return 0;
    }

    /** The statement with which an operator ends session {@code id}, for remedies. */
    public String endSessionSql(long id) {
        return "(no statement known for " + name() + ")";
    }

    /**
     * Bounds how long a statement of this session waits for a lock held by another transaction (rounded
     * up to whole seconds where the database counts seconds). Nothing where the dialect knows no
     * setting: a write waiting on a lock is then bounded by the network timeout alone.
     */
    public void setLockTimeout(Connection c, java.time.Duration timeout) throws SQLException {}

    /** The server setting(s) {@link #setLockTimeout} sets, for messages. */
    public String lockTimeoutSetting() {
        return "no lock timeout (unknown database)";
    }

    /** Whether {@code e} (or an exception it carries) reports a lock wait that ran into the lock timeout. */
    public boolean isLockTimeout(SQLException e) {
        return false;
    }

    /** Where an operator sees who holds the lock a write waited for, for remedies. */
    public String lockHoldersHint() {
        return "the database's list of locks and of prepared XA transactions";
    }

    /** {@code e}, its causes and its chained exceptions, for codes a driver may wrap. */
    static java.util.List<SQLException> chain(SQLException e) {
        java.util.List<SQLException> all = new java.util.ArrayList<>();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        java.util.ArrayDeque<Throwable> todo = new java.util.ArrayDeque<>(java.util.List.of(e));
        while (!todo.isEmpty() && all.size() < 20) {
            Throwable t = todo.pop();
            if (t == null || !seen.add(t)) {
                continue;
            }
            if (t instanceof SQLException) {
                all.add((SQLException) t);
                if (((SQLException) t).getNextException() != null) {
                    todo.add(((SQLException) t).getNextException());
                }
            }
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
        }
        return all;
    }

    /** CREATE TABLE IF NOT EXISTS for the marker table (gid, sink_id, subtask, checkpoint_id, row_count, created_at). */
    public abstract String markerDdl(String schema, String table);

    public String markerInsertSql(String schema, String table) {
        return "INSERT INTO " + qualified(schema, table)
                + " (gid, sink_id, subtask, checkpoint_id, row_count) VALUES (?, ?, ?, ?, ?)";
    }

    public String markerExistsSql(String schema, String table) {
        return "SELECT 1 FROM " + qualified(schema, table) + " WHERE gid = ?";
    }

    /** Deletes a sink's ({@code ?1}) markers older than {@code ?2} seconds, by the database's clock. */
    public abstract String markerPruneSql(String schema, String table);

    /**
     * Count, rows, lowest and highest checkpoint of a sink's ({@code ?1}) markers named after checkpoint
     * {@code ?2} whose epoch began after {@code ?3} (epoch milliseconds); null where the dialect cannot
     * compare a marker's time with epoch milliseconds (the rewind check is then skipped).
     */
    public String markerCommittedAfterSql(String schema, String table) {
        return null;
    }

    /** Added to a failed XA recover: how to let the sink's user list prepared branches. */
    public String recoverRemedy() {
        return "";
    }

    /** Runs a query with parameters that returns a single value. */
    static Object single(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getObject(1) : null;
            }
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
