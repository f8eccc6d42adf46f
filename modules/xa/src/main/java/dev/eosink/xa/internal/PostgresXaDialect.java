package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.sql.GuardHolder;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * PostgreSQL through pgjdbc's {@code PGXADataSource}. Measured with pgjdbc 42.7 on PostgreSQL 17:
 *
 * <ul>
 *   <li>An Xid becomes the gid {@code <formatId>_<base64 gtrid>_<base64 bqual>} (at most 188 bytes for
 *       64-byte parts, under PostgreSQL's 200); {@code recover()} parses {@code pg_prepared_xacts} of the
 *       current database back, and returns nothing unless called with TMSTARTRSCAN.
 *   <li>After prepare the connection is idle and can start the next branch; another connection of the
 *       same role can commit the prepared branch while the preparing one is still open.
 *   <li>Commit or rollback of an unknown gid fails with XAER_NOTA (SQLSTATE 42704 underneath).
 *   <li>An empty branch prepares as XA_OK, not XA_RDONLY; a duplicate Xid is found only at prepare.
 *   <li>A session-level advisory lock taken before the branch's first statement stays held through
 *       PREPARE TRANSACTION until the session ends, and pg_locks names its holder: the branch lock
 *       ({@link XaDialect#tryBranchLock}), in a class of its own next to the guard's.
 *   <li>Every role sees pg_locks: a guard's holder is told apart by the shared one-key lock of the
 *       claimant's execution it holds, or not ({@link #markExecution}).
 * </ul>
 *
 * The marker table is the PostgreSQL sink's ({@link MarkerTable}), so both sinks' markers look alike.
 */
final class PostgresXaDialect extends XaDialect {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresXaDialect.class);

    @Override
    public String name() {
        return "PostgreSQL";
    }

    @Override
    public String quote(String identifier) {
        return SqlIdentifier.quote(identifier);
    }

    @Override
    public boolean keepsConnectionAfterPrepare() {
        return true;
    }

    @Override
    public void checkServer(Connection c, SubtaskContext context, String where, int maxPreparedPerSubtask)
            throws SQLException, SinkException {
        int max = Integer.parseInt(String.valueOf(single(c, "SELECT current_setting('max_prepared_transactions')")));
        int needed = 2 * context.parallelism();
        if (max < needed) {
            throw new MisconfigurationException(
                    context + ": PostgreSQL at " + where + " has max_prepared_transactions = " + max
                    + "; this sink needs at least " + needed + " (2 per subtask), and room for "
                    + maxPreparedPerSubtask * context.parallelism() + " (maxPreparedPerSubtask per subtask) when "
                    + "checkpoints fail. Remedy: set max_prepared_transactions in postgresql.conf "
                    + "(sql/00-server-settings.sql) and restart PostgreSQL.");
        }
        if (max < maxPreparedPerSubtask * context.parallelism()) {
            LOG.warn("{}: max_prepared_transactions = {} leaves no room for maxPreparedPerSubtask ({}) x parallelism "
                            + "({}) prepared branches of this sink, which it may hold while checkpoints fail; size it as "
                            + "the sum of parallelism x maxPreparedPerSubtask over the sinks on this server.",
                    context, max, maxPreparedPerSubtask, context.parallelism());
        }
    }

    @Override
    public boolean tryLock(Connection guard, String sinkHash, int subtask) throws SQLException {
        return Boolean.TRUE.equals(single(guard, "SELECT pg_try_advisory_lock(?, ?)", lockClass(sinkHash), subtask));
    }

    @Override
    public void unlock(Connection guard, String sinkHash, int subtask) throws SQLException {
        single(guard, "SELECT pg_advisory_unlock(?, ?)", lockClass(sinkHash), subtask);
    }

    /** The first 32 bits of the sink hash: the advisory lock's class. */
    private static int lockClass(String sinkHash) {
        return (int) Long.parseLong(sinkHash.substring(0, 8), 16);
    }

    /** The next 32 bits of the sink hash: the class of the branch lock, apart from the guard's. */
    private static int branchLockClass(String sinkHash) {
        return (int) Long.parseLong(sinkHash.substring(8, 16), 16);
    }

    @Override
    public boolean tryBranchLock(Connection c, String sinkHash, int subtask) throws SQLException {
        return Boolean.TRUE.equals(single(c, "SELECT pg_try_advisory_lock(?, ?)", branchLockClass(sinkHash), subtask));
    }

    @Override
    public void unlockBranch(Connection c, String sinkHash, int subtask) throws SQLException {
        single(c, "SELECT pg_advisory_unlock(?, ?)", branchLockClass(sinkHash), subtask);
    }

    /**
     * A shared advisory lock in the one-key form (pg_locks: {@code objsubid = 1}), keyed by 64 bits of the
     * sink hash and execution ({@link XaIds#executionMark}): every session of the execution may hold it at
     * once, and it never meets the two-key locks of the guards and branch locks.
     */
    @Override
    public void markExecution(Connection guard, String sinkHash, String execution, long session) throws SQLException {
        long key = LockNames.executionMarkKey(sinkHash, execution);
        if (!Boolean.TRUE.equals(single(guard, "SELECT pg_try_advisory_lock_shared(?)", key))) {
            // Only an exclusive lock of someone else's with the same 64-bit key refuses a shared one.
            LOG.warn("advisory lock {} (the execution mark of session {}) is held exclusively by another session; "
                    + "a later attempt of this job that finds this session holding a guard takes it for another job's",
                    key, session);
        }
    }

    @Override
    public GuardHolder holderExecution(Connection c, String sinkHash, String execution, long holder)
            throws SQLException {
        long key = LockNames.executionMarkKey(sinkHash, execution);
        Object marked = single(c, "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
                + " AND objsubid = 1 AND pid = ? AND classid::bigint = ? AND objid::bigint = ?)",
                (int) holder, key >>> 32, key & 0xFFFF_FFFFL);
        return Boolean.TRUE.equals(marked) ? GuardHolder.THIS : GuardHolder.OTHER;
    }

    @Override
    public long sessionId(Connection c) throws SQLException {
        return ((Number) single(c, "SELECT pg_backend_pid()")).longValue();
    }

    @Override
    public long guardHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return holder(c, lockClass(sinkHash), subtask);
    }

    @Override
    public long branchLockHolder(Connection c, String sinkHash, int subtask) throws SQLException {
        return holder(c, branchLockClass(sinkHash), subtask);
    }

    /**
     * The backend holding advisory lock {@code (key1, key2)} of this database: pg_locks shows the
     * two-int form with classid = key1 (as an unsigned oid), objid = key2 and objsubid = 2.
     */
    private static long holder(Connection c, int key1, int key2) throws SQLException {
        Object pid = single(c, "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2"
                + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND classid::bigint = ? AND objid::bigint = ?", Integer.toUnsignedLong(key1), Integer.toUnsignedLong(key2));
        return pid == null ? 0 : ((Number) pid).longValue();
    }

    @Override
    public String endSessionSql(long id) {
        return "SELECT pg_terminate_backend(" + id + ")";
    }

    @Override
    public void setLockTimeout(Connection c, java.time.Duration timeout) throws SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("SET lock_timeout = '" + Math.max(1, timeout.toMillis()) + "ms'");
        }
    }

    @Override
    public String lockTimeoutSetting() {
        return "lock_timeout";
    }

    /** lock_not_available (55P03): what lock_timeout raises. */
    @Override
    public boolean isLockTimeout(SQLException e) {
        return chain(e).stream().anyMatch(x -> "55P03".equals(x.getSQLState()));
    }

    @Override
    public String lockHoldersHint() {
        return "pg_locks joined with pg_stat_activity (pg_blocking_pids), and pg_prepared_xacts for prepared branches";
    }

    private static dev.eosink.jdbc.dialect.MarkerSql markers(String schema, String table) {
        return dev.eosink.jdbc.dialect.postgres.PostgresDialect.INSTANCE.markers(new SqlIdentifier(schema, table));
    }

    @Override
    public String deadLetterDdl(String schema, String table) {
        return "CREATE TABLE IF NOT EXISTS " + qualified(schema, table)
                + " (gid text NOT NULL, sink_id text NOT NULL, subtask integer NOT NULL, checkpoint_id bigint NOT NULL,"
                + " position bigint NOT NULL, record text NOT NULL, sqlstate text, error text NOT NULL,"
                + " created_at timestamptz NOT NULL DEFAULT now())";
    }

    @Override
    public String markerDdl(String schema, String table) {
        return markers(schema, table).createSql();
    }

    @Override
    public String markerInsertSql(String schema, String table) {
        return markers(schema, table).insertSql();
    }

    @Override
    public String markerExistsSql(String schema, String table) {
        return markers(schema, table).existsSql();
    }

    @Override
    public String markerPruneSql(String schema, String table) {
        return markers(schema, table).pruneSql();
    }

    @Override
    public String markerCommittedAfterSql(String schema, String table) {
        return markers(schema, table).committedAfterSql().orElseThrow();
    }
}
