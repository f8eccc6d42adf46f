package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.GuardHolder;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * MariaDB and MySQL (InnoDB). Measured on MariaDB 10.11 with MariaDB Connector/J 3.5:
 *
 * <ul>
 *   <li>After {@code XA PREPARE} the session can run plain statements but refuses the next {@code XA
 *       START} (XAER_RMFAIL, "global transaction is in the PREPARED state"), and while it lives, {@code
 *       XA COMMIT} of that branch from any other session fails with XAER_NOTA although {@code XA
 *       RECOVER} lists it. Once the session ends (close or connection loss), the prepared branch
 *       survives, detached, and any session (any user) can commit or roll it back. So the writer ends
 *       its connection after every prepare: it could not begin the next epoch, and the committer could
 *       not commit this one.
 *   <li>A session ends in steps (seen on 11.4.5; by the server's source, since 10.5): the server
 *       detaches its prepared branch (from then on another session's XA COMMIT reaches it), frees the
 *       session's user variables, locks ({@code GET_LOCK}) and prepared statements, leaves the process
 *       list, closes the socket, and only then does InnoDB let go of the branch's transaction. An XA COMMIT
 *       or XA ROLLBACK from another session in between is answered with success, does nothing, and removes
 *       the branch from XA RECOVER; InnoDB keeps it prepared, holding its locks, out of reach of every XA
 *       statement (XAER_NOTA) until the server restarts, whose recovery lists it again ({@code
 *       XaCommitSessionITCase}, {@code XaWriterSessionITCase}). So the writer's prepare returns only once
 *       the epoch session it closed has left the process list ({@link #sessionAlive}), a claim waits for
 *       the sessions it saw holding the branch lock to leave it too, and the committer and recovery prove
 *       each commit and rollback by the marker row ({@link #provesOutcomesByMarker}).
 *   <li>A prepared branch that wrote rows survives {@code kill -9} of mariadbd ("Transaction N was in
 *       the XA prepared state" at restart) and commits afterwards; an empty prepared branch does not
 *       survive. Every branch of this sink writes its marker row, so none is empty ({@code
 *       XaMariaDbITCase.serverCrashRightAfterPrepareLosesNothingAndDuplicatesNothing}).
 *   <li>{@code XA RECOVER} needs no privilege on MariaDB 10.11 (every user sees every branch); MySQL 8
 *       needs XA_RECOVER_ADMIN.
 *   <li>Only InnoDB takes part in XA: rows in a MyISAM table are visible at once, whatever the branch
 *       does. The target and marker tables must be InnoDB.
 *   <li>{@code GET_LOCK(name, 0)} is a session lock, released when the session ends: the ownership
 *       guard. Names are at most 64 characters, hence the sink hash instead of the sink id. A session
 *       may hold several (MariaDB 10.0.2+), in every XA state (ACTIVE, IDLE, PREPARED), and one taken
 *       before {@code XA START} stays held through {@code XA PREPARE} until the session ends; another
 *       session sees its holder ({@code IS_USED_LOCK}) and takes it within a millisecond of that end
 *       (measured on 11.4.5): the branch lock ({@link XaDialect#tryBranchLock}).
 *   <li>A guard's holder is told apart by a third lock, the execution mark ({@link #markExecution}): a
 *       session of another execution does not hold the mark of the claimant's execution under its own id.
 *   <li>{@code XA RECOVER} and {@code GET_LOCK} are server-wide, not per database: a sink id must be
 *       unique per server. The guard enforces that for live jobs (a sink with the same id on another
 *       database of the same server is refused like a second job); recovery would otherwise treat
 *       the other database's branches as its own.
 * </ul>
 */
final class MariaDbDialect extends XaDialect {

    @Override
    public String name() {
        return "MariaDB";
    }

    @Override
    public String quote(String identifier) {
        return '`' + identifier.replace("`", "``") + '`';
    }

    /**
     * {@code INSERT ... VALUES (...), (...) ON DUPLICATE KEY UPDATE c = VALUES(c)}: InnoDB takes the rows
     * in order, locks each key's row (or its gap) and updates it in place. {@code VALUES(c)} rather than
     * MariaDB 10.3.3+'s {@code VALUE(c)} or MySQL 8's row alias, so that one statement runs on MariaDB
     * 10.x/11.x and MySQL 5.7/8 alike. Many rows per statement: see {@link XaKeyedStatements}. The key
     * columns are updated too: a {@code _ci} or PAD SPACE collation takes 'alice' and 'ALICE ' as one
     * key, and the row must end as the last record spelled it (an unchanged value changes nothing).
     */
    @Override
    public String upsertSql(String schema, String table, List<String> columns, List<String> key, int rows) {
        String updates = columns.stream().map(c -> quote(c) + " = VALUES(" + quote(c) + ")").collect(Collectors.joining(", "));
        return insertSql(schema, table, columns, rows) + " ON DUPLICATE KEY UPDATE " + updates;
    }

    /** The session's {@code max_allowed_packet}: the global value when the session began. */
    @Override
    public long maxStatementBytes(Connection c) throws SQLException {
        return ((Number) single(c, "SELECT @@max_allowed_packet")).longValue();
    }

    @Override
    public List<List<String>> uniqueKeys(Connection c, String schema, String table) throws SQLException {
        String sql = "SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
                + (schema == null ? "DATABASE()" : "?") + " AND TABLE_NAME = ? AND NON_UNIQUE = 0"
                + " ORDER BY INDEX_NAME, SEQ_IN_INDEX";
        Map<String, List<String>> keys = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            if (schema != null) {
                s.setString(i++, schema);
            }
            s.setString(i, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    keys.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        return new ArrayList<>(keys.values());
    }

    /**
     * The record and the error in utf8mb4 whatever the database's default (latin1 on MariaDB before
     * 11.6 and MySQL 5.7): a refused record may be in any script, and a dead letter that the table
     * cannot hold would fail its epoch after every restart. The other columns are ASCII.
     */
    @Override
    public String deadLetterDdl(String schema, String table) {
        return "CREATE TABLE IF NOT EXISTS " + qualified(schema, table)
                + " (gid VARCHAR(200) NOT NULL, sink_id VARCHAR(100) NOT NULL, subtask INT NOT NULL,"
                + " checkpoint_id BIGINT NOT NULL, position BIGINT NOT NULL, record TEXT CHARACTER SET utf8mb4 NOT NULL,"
                + " `sqlstate` VARCHAR(5), error TEXT CHARACTER SET utf8mb4 NOT NULL, created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
                + " KEY " + quote(table + "_gid") + " (gid)) ENGINE=InnoDB";
    }

    /**
     * Besides SQLSTATE classes 22 and 23: errors strict mode raises for a value the column does not take
     * whose SQLSTATE is the generic HY000 (1366 incorrect value, 1292 truncated incorrect value, 1264 out
     * of range, 4025 CHECK constraint failed).
     */
    @Override
    public boolean rejectsRecord(SQLException e) {
        int code = e.getErrorCode();
        return super.rejectsRecord(e) || code == 1366 || code == 1292 || code == 1264 || code == 4025;
    }

    @Override
    public boolean keepsConnectionAfterPrepare() {
        return false;
    }

    /**
     * See the class comment: a commit or a rollback in the wrong moment does nothing and drops the branch from
     * the list.
     */
    @Override
    public boolean provesOutcomesByMarker() {
        return true;
    }

    /**
     * A locking read of the marker row: it waits for the lock of a transaction that inserted the row and
     * has not ended (a branch still prepared, whether XA RECOVER lists it or not), and a second's wait
     * tells that apart, as nothing else writes a marker row. The session's lock wait timeout is restored.
     */
    @Override
    public MarkerRow markerRow(Connection c, String schema, String table, String gid) throws SQLException {
        Object before = single(c, "SELECT @@SESSION.innodb_lock_wait_timeout");
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("SET SESSION innodb_lock_wait_timeout = 1");
        }
        try {
            return single(c, markerExistsSql(schema, table) + " LOCK IN SHARE MODE", gid) == null
                    ? MarkerRow.ABSENT : MarkerRow.COMMITTED;
        } catch (SQLException e) {
            if (isLockTimeout(e)) {
                return MarkerRow.HELD;
            }
            throw e;
        } finally {
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("SET SESSION innodb_lock_wait_timeout = " + ((Number) before).longValue());
            }
        }
    }

    @Override
    public void checkTransactional(Connection c, SubtaskContext context, String schema, String table)
            throws SQLException, SinkException {
        Object engine = single(c, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                + (schema == null ? "DATABASE()" : "?") + " AND TABLE_NAME = ?",
                schema == null ? new Object[] {table} : new Object[] {schema, table});
        if (engine != null && !"InnoDB".equalsIgnoreCase(engine.toString())) {
            throw new MisconfigurationException(context + ": table " + qualified(schema, table) + " uses the " + engine
                    + " engine, which ignores XA transactions: its rows would be visible before their checkpoint "
                    + "completes and again after a replay. Remedy: ALTER TABLE " + qualified(schema, table)
                    + " ENGINE=InnoDB.");
        }
    }

    private static String lockName(String sinkHash, int subtask) {
        return XaIds.guardLockName(sinkHash, subtask);
    }

    @Override
    public boolean tryLock(Connection guard, String sinkHash, int subtask) throws SQLException {
        Object got = single(guard, "SELECT GET_LOCK(?, 0)", lockName(sinkHash, subtask));
        return got != null && ((Number) got).intValue() == 1;
    }

    @Override
    public void unlock(Connection guard, String sinkHash, int subtask) throws SQLException {
        single(guard, "SELECT RELEASE_LOCK(?)", lockName(sinkHash, subtask));
    }

    private static String branchLockName(String sinkHash, int subtask) {
        return XaIds.branchLockName(sinkHash, subtask);
    }

    @Override
    public boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
        Object got = single(c, "SELECT GET_LOCK(?, 0)", branchLockName(sinkHash, subtask));
        return got != null && ((Number) got).intValue() == 1;
    }

    @Override
    public void unlockBranch(Connection c, String sinkHash, int subtask) throws SQLException {
        single(c, "SELECT RELEASE_LOCK(?)", branchLockName(sinkHash, subtask));
    }

    /**
     * A lock of the session's own, named after the sink, the execution and the session's id: no other
     * session ever asks for that name, so it is always free, and {@code IS_USED_LOCK} of it answers whether a
     * given session is of a given execution ({@link XaIds#executionMarkName}).
     */
    @Override
    public void markExecution(Connection guard, String sinkHash, String execution, long session) throws SQLException {
        single(guard, "SELECT GET_LOCK(?, 0)", XaIds.executionMarkName(sinkHash, execution, session));
    }

    @Override
    public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long holder)
            throws SQLException {
        Object id = single(c, "SELECT IS_USED_LOCK(?)", XaIds.executionMarkName(sinkHash, execution, holder));
        return id != null && ((Number) id).longValue() == holder ? GuardHolder.THIS : GuardHolder.OTHER;
    }

    @Override
    public long sessionId(Connection c) throws SQLException {
        return ((Number) single(c, "SELECT CONNECTION_ID()")).longValue();
    }

    /** A user sees the sessions of its own account in the process list without the PROCESS privilege. */
    @Override
    public boolean sessionAlive(Connection c, long id) throws SQLException {
        Object found = single(c, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id);
        return ((Number) found).longValue() > 0;
    }

    @Override
    public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        Object id = single(c, "SELECT IS_USED_LOCK(?)", lockName(sinkHash, subtask));
        return id == null ? 0 : ((Number) id).longValue();
    }

    @Override
    public long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        Object id = single(c, "SELECT IS_USED_LOCK(?)", branchLockName(sinkHash, subtask));
        return id == null ? 0 : ((Number) id).longValue();
    }

    @Override
    public String endSessionSql(long id) {
        return "KILL " + id;
    }

    /**
     * innodb_lock_wait_timeout bounds row-lock waits (a row of a prepared branch, or of another
     * client's open transaction); lock_wait_timeout bounds metadata-lock waits (ALTER TABLE, LOCK
     * TABLES), which otherwise wait a year by default. Both count whole seconds.
     */
    @Override
    public void setLockTimeout(Connection c, java.time.Duration timeout) throws SQLException {
        long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("SET SESSION innodb_lock_wait_timeout = " + seconds + ", SESSION lock_wait_timeout = " + seconds);
        }
    }

    @Override
    public String lockTimeoutSetting() {
        return "innodb_lock_wait_timeout and lock_wait_timeout";
    }

    /** ER_LOCK_WAIT_TIMEOUT (1205), for row and metadata locks alike. */
    @Override
    public boolean isLockTimeout(SQLException e) {
        return chain(e).stream().anyMatch(x -> x.getErrorCode() == 1205);
    }

    @Override
    public String lockHoldersHint() {
        return "information_schema.INNODB_LOCK_WAITS and INNODB_TRX, SHOW PROCESSLIST, and XA RECOVER for prepared "
                + "branches";
    }

    @Override
    public String markerDdl(String schema, String table) {
        // InnoDB explicitly: a marker in a non-transactional table would prove nothing.
        return "CREATE TABLE IF NOT EXISTS " + qualified(schema, table)
                + " (gid VARCHAR(200) NOT NULL PRIMARY KEY, sink_id VARCHAR(100) NOT NULL, subtask INT NOT NULL,"
                + " checkpoint_id BIGINT NOT NULL, row_count BIGINT NOT NULL,"
                + " created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
                + " KEY " + quote(table + "_sink_created") + " (sink_id, created_at)) ENGINE=InnoDB";
    }

    @Override
    public String markerPruneSql(String schema, String table) {
        return "DELETE FROM " + qualified(schema, table)
                + " WHERE sink_id = ? AND created_at < NOW(6) - INTERVAL ? SECOND";
    }

    @Override
    public String markerCommittedAfterSql(String schema, String table) {
        return "SELECT COUNT(*), COALESCE(SUM(row_count), 0), MIN(checkpoint_id), MAX(checkpoint_id) FROM "
                + qualified(schema, table) + " WHERE sink_id = ? AND (checkpoint_id > ? OR gid NOT LIKE ?)"
                + " AND created_at > FROM_UNIXTIME(? / 1000)";
    }

    @Override
    public String recoverRemedy() {
        return " Remedy: MySQL 8 lists prepared XA transactions only to users with XA_RECOVER_ADMIN: "
                + "GRANT XA_RECOVER_ADMIN ON *.* TO the sink's user.";
    }
}
