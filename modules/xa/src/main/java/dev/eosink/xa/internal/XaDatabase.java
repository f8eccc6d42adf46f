package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.RowKindFunction;
import dev.eosink.jdbc.driver.JdbcDrivers;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.XAConnection;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Any {@code javax.sql.XADataSource} as a {@link TransactionalDatabase}: each epoch is one XA branch
 * (start at the epoch's first record, end + prepare at the barrier), committed by the committer with
 * {@code XAResource.commit} from a connection of its own. The protocol is the core's; this class only
 * checks the database at writer start and opens the sessions. What differs per database is in {@link
 * XaDialect}, chosen from the connection's product name.
 *
 * <p>A start-up check refuses with a {@link MisconfigurationException}, which fails the job without
 * restarts, when the database's answer says what a restart would find again: a setting, a table that is
 * missing, unreadable or not transactional, a missing unique key, a statement the database refuses for
 * what it is or for the user ({@link #refusesForGood}). A question the database could not answer (the
 * connection lost, a timeout) fails the task, and the job restarts.
 */
@Internal
public final class XaDatabase<IN> implements TransactionalDatabase<IN> {

    private static final long serialVersionUID = 1L;

    private static final Wording WORDS = new Wording(
            MarkerTable.MISSING,
            "docs/xa.md, Operators: XA RECOVER, XA COMMIT or XA ROLLBACK on MariaDB and MySQL, pg_prepared_xacts, "
                    + "COMMIT PREPARED or ROLLBACK PREPARED on PostgreSQL",
            "the row locks of the rows it wrote (a write to one of those rows waits for them until the lock timeout: "
                    + "innodb_lock_wait_timeout on MariaDB and MySQL) and, on PostgreSQL, one of the server's "
                    + "max_prepared_transactions, which every application on it shares",
            "look in the table for the rows of the records that subtask wrote between the barrier of the checkpoint "
                    + "before and that checkpoint's barrier (MariaDB and MySQL keep no writer's transaction id on a "
                    + "row); docs/operations.md, \"A transaction reported LOST\"",
            MarkerTable.RESTORE_MARKER);
    private static final Logger LOG = LoggerFactory.getLogger(XaDatabase.class);

    private final XaConnector connector;
    private final InsertStatement<IN> statement;
    private final String markerSchema;
    private final String markerTable;
    private final boolean createMarkerTable;
    private final int batchSize;
    /** The most prepared branches a writer subtask may hold: what the server should have room for. */
    private final int maxPreparedPerSubtask;
    /** Bounds every driver call of an epoch, a commit and a recovery (ZERO: only a cancelled task's). */
    private final Duration networkTimeout;
    /** The writer's branches wait at most this long for a lock held by another transaction. */
    private final Duration lockTimeout;
    /** Null: inserts. Else upserts by these key columns (table mode only, checked by the builder). */
    private final List<String> upsertKey;
    /** Null: every record upserts. */
    private final RowKindFunction<IN> rowKind;
    /** Null: a record the database refuses fails the epoch. Inserts only (checked by the builder). */
    private final SqlIdentifier deadLetterTable;

    /**
     * @param upsertKey null for inserts; else the key columns to upsert (and delete) by, among the
     *     columns of table mode
     * @param rowKind with {@code upsertKey}: which records are deletes; null: none is
     * @param deadLetterTable null, or where inserts keep the records the database refuses
     */
    public XaDatabase(
            XaConnector connector,
            InsertStatement<IN> statement,
            String markerSchema,
            String markerTable,
            boolean createMarkerTable,
            int batchSize,
            int maxPreparedPerSubtask,
            Duration networkTimeout,
            Duration lockTimeout,
            List<String> upsertKey,
            RowKindFunction<IN> rowKind,
            SqlIdentifier deadLetterTable) {
        if (upsertKey != null && deadLetterTable != null) {
            throw new IllegalArgumentException("a dead-letter table works with inserts only");
        }
        this.deadLetterTable = deadLetterTable;
        if (upsertKey != null && !(statement instanceof InsertStatement.Columns<IN>)) {
            throw new IllegalArgumentException("upserts need table mode: table(...) + columns(...) + rows(...)");
        }
        this.upsertKey = upsertKey == null ? null : List.copyOf(upsertKey);
        this.rowKind = rowKind;
        this.connector = connector;
        this.statement = statement;
        this.markerSchema = markerSchema;
        this.markerTable = markerTable;
        this.createMarkerTable = createMarkerTable;
        this.batchSize = batchSize;
        this.maxPreparedPerSubtask = maxPreparedPerSubtask;
        this.networkTimeout = networkTimeout;
        this.lockTimeout = lockTimeout;
    }

    Duration networkTimeout() {
        return networkTimeout;
    }

    Duration lockTimeout() {
        return lockTimeout;
    }

    XaConnector connector() {
        return connector;
    }

    InsertStatement<IN> statement() {
        return statement;
    }

    int batchSize() {
        return batchSize;
    }

    String markerSchema() {
        return markerSchema;
    }

    String markerTable() {
        return markerTable;
    }

    /** Each database's own statements and limits: which database it is, the sink knows only once it connects. */
    @Override
    public Wording wording() {
        return WORDS;
    }

    /** "table orders" or "table shop.orders", or the user's statement. Never credentials. */
    @Override
    public String target() {
        if (statement instanceof InsertStatement.Columns<IN> insert) {
            SqlIdentifier table = insert.table();
            return "table " + (table.schema() == null ? "" : table.schema() + ".") + table.name();
        }
        return statement.describe();
    }

    /** application_name (PostgreSQL) or program_name (MariaDB): how operators see the sink's sessions. */
    static String applicationName(SubtaskContext context, String role) {
        String name = "eosink-xa/" + context.sinkId() + "/" + context.subtask() + "/" + role;
        return name.length() <= 63 ? name : "eosink-xa/" + XaIds.sinkHash(context.sinkId()) + "/" + context.subtask() + "/" + role;
    }

    /**
     * pgjdbc's and MariaDB Connector/J's drivers register themselves when loaded: they must not keep the
     * job's class loader (see {@link JdbcDrivers}).
     */
    @Override
    public void registerReleaseHooks(UserCodeClassLoader userCode) {
        JdbcDrivers.deregisterOnRelease(userCode);
    }

    @Override
    public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
        XAConnection guard = open(context, "guard");
        try {
            Connection c = guard.getConnection();
            c.setAutoCommit(true);
            XaDialect dialect = XaDialect.of(c);
            dialect.checkServer(c, context, connector.describe(), maxPreparedPerSubtask);
            ensureMarkerTable(c, context, dialect);
            checkTarget(c, context, dialect);
            if (upsertKey != null) {
                checkUpsertKey(c, context, dialect);
            }
            if (deadLetterTable != null) {
                ensureDeadLetterTable(c, context, dialect);
            }
            if (!dialect.guardsOwnership()) {
                LOG.warn("{}: {} has no session lock this sink knows, so a second live job with sink id '{}' "
                        + "cannot be detected (never run two), and a restarted writer cannot wait for the sessions "
                        + "of the writer before it: a branch whose XA PREPARE was still running on the server when "
                        + "its task manager died may be prepared after this writer's recovery, and then stays "
                        + "prepared until a later start rolls it back. It sets no lock timeout either.",
                        context, dialect.name(), context.sinkId());
            }
            return new XaWriterSession<>(context, this, dialect, guard, c, statements(dialect));
        } catch (SQLException e) {
            closeQuietly(guard, e);
            throw new SinkException(context + ": checking the database at " + connector.describe() + " failed: "
                    + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            closeQuietly(guard, e);
            throw e;
        }
    }

    /** The epoch's statements: inserts, or upserts and deletes by key, in the database's dialect. */
    private XaEpochBranch.Statements<IN> statements(XaDialect dialect) {
        if (upsertKey == null) {
            return XaEpochBranch.Statements.inserts(insertSql(dialect), deadLetterTable == null ? null
                    : new XaDeadLetters<>(dialect, statement, dialect.qualified(deadLetterTable.schema(),
                            deadLetterTable.name())));
        }
        InsertStatement.Columns<IN> columns = (InsertStatement.Columns<IN>) statement;
        SqlIdentifier table = columns.table();
        return XaEpochBranch.Statements.upserts(new XaUpserts<>(columns, upsertKey, rowKind, batchSize),
                rows -> dialect.upsertSql(table.schema(), table.name(), columns.columns(), upsertKey, rows),
                dialect.deleteSql(table.schema(), table.name(), upsertKey));
    }

    /**
     * An upsert needs a unique key on exactly the key columns: without one, {@code ON DUPLICATE KEY}
     * never fires and every record inserts a row; with a unique key on other columns only, it updates
     * whichever row that key matches. Checked at start, before any record.
     */
    private void checkUpsertKey(Connection c, SubtaskContext context, XaDialect dialect) throws SQLException, SinkException {
        SqlIdentifier table = ((InsertStatement.Columns<IN>) statement).table();
        if (dialect.upsertSql(table.schema(), table.name(), upsertKey, upsertKey) == null) {
            throw new MisconfigurationException(
                    context + ": upsert(" + String.join(", ", upsertKey) + ") into " + target()
                    + " is not supported through XA on " + dialect.name() + ". Remedy: for PostgreSQL use PostgresSink, "
                    + "which upserts; otherwise give sql(...) with your database's own upsert statement.");
        }
        List<List<String>> keys = dialect.uniqueKeys(c, table.schema(), table.name());
        Set<String> wanted = lower(upsertKey);
        if (keys.stream().noneMatch(k -> lower(k).equals(wanted))) {
            throw new MisconfigurationException(
                    context + ": " + target() + " has no PRIMARY KEY or UNIQUE key on exactly the upsert "
                    + "key columns " + upsertKey + " (its unique keys: " + (keys.isEmpty() ? "none" : keys.toString())
                    + "), so an upsert could not find the row of a key: it would insert a second row, or update the row "
                    + "another key matches. Remedy: ALTER TABLE " + dialect.qualified(table.schema(), table.name())
                    + " ADD UNIQUE KEY (" + upsertKey.stream().map(dialect::quote).collect(Collectors.joining(", "))
                    + "), or give upsert(...) the columns of an existing unique key.");
        }
        if (keys.size() > 1) {
            LOG.warn("{}: {} has more unique keys than the upsert key {}: {}. A record that matches another key's row "
                    + "updates that row (ON DUPLICATE KEY UPDATE fires on any unique key).", context, target(), upsertKey, keys);
        }
    }

    /** MariaDB compares column names without case. */
    private static Set<String> lower(List<String> columns) {
        return columns.stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }

    /**
     * Table mode's INSERT in the database's dialect (its quoting: MariaDB's backticks), or the user's
     * statement as given. Both bind by position, as the PostgreSQL sink's do.
     */
    private String insertSql(XaDialect dialect) {
        if (statement instanceof InsertStatement.Columns<IN> insert) {
            return dialect.insertSql(insert.table().schema(), insert.table().name(), insert.columns());
        }
        return ((InsertStatement.UserSql<IN>) statement).sql();
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) {
        return new XaCommitSession(context, this);
    }

    XAConnection open(SubtaskContext context, String role) throws SinkException {
        try {
            return connector.open(applicationName(context, role));
        } catch (SQLException e) {
            throw new SinkException(context + ": could not connect to " + connector.describe() + ": " + e.getMessage()
                    + " (SQLSTATE " + e.getSQLState() + "). Remedy: check the JDBC URL, the credentials and that the "
                    + "server accepts connections from the task managers.", e);
        }
    }

    static void closeQuietly(XAConnection c, Exception primary) {
        try {
            c.close();
        } catch (SQLException suppressed) {
            primary.addSuppressed(suppressed);
        }
    }

    private void ensureMarkerTable(Connection c, SubtaskContext context, XaDialect dialect)
            throws SQLException, SinkException {
        String marker = dialect.qualified(markerSchema, markerTable);
        if (createMarkerTable && !readable(c, dialect.markerExistsSql(markerSchema, markerTable))) {
            try (Statement s = c.createStatement()) {
                s.execute(dialect.markerDdl(markerSchema, markerTable));
                LOG.info("{}: created marker table {}", context, marker);
            } catch (SQLException e) {
                // Several subtasks race on CREATE TABLE; the loser may fail, and then finds the table.
                if (!readable(c, dialect.markerExistsSql(markerSchema, markerTable))) {
                    throw refused(e, context + ": could not create marker table " + marker + ": "
                            + e.getMessage() + ". Remedy: create it (see docs/xa.md, What each database needs) and grant the sink's "
                            + "user INSERT, SELECT, DELETE on it, or grant CREATE.");
                }
            }
        }
        if (!readable(c, dialect.markerExistsSql(markerSchema, markerTable))) {
            throw new MisconfigurationException(
                    context + ": marker table " + marker + " is missing or not readable by the sink's "
                    + "user. Remedy: create it (docs/xa.md, What each database needs) and GRANT INSERT, SELECT, DELETE on it, or allow "
                    + "the sink to create it (createMarkerTable(true)).");
        }
        dialect.checkTransactional(c, context, markerSchema, markerTable);
    }

    /** The dead-letter table: created when missing and allowed to (as the marker table), InnoDB on MariaDB. */
    private void ensureDeadLetterTable(Connection c, SubtaskContext context, XaDialect dialect)
            throws SQLException, SinkException {
        String schema = deadLetterTable.schema();
        String name = deadLetterTable.name();
        String ddl = dialect.deadLetterDdl(schema, name);
        if (ddl == null) {
            throw new MisconfigurationException(
                    context + ": deadLetterTable(...) is not supported through XA on " + dialect.name()
                    + " (the sink knows no DDL for it there). Remedy: drop deadLetterTable(...), or use MariaDB, MySQL "
                    + "or PostgreSQL.");
        }
        String qualified = dialect.qualified(schema, name);
        if (createMarkerTable && !readable(c, dialect.markerExistsSql(schema, name))) {
            try (Statement s = c.createStatement()) {
                s.execute(ddl);
                LOG.info("{}: created dead-letter table {}", context, qualified);
            } catch (SQLException e) {
                if (!readable(c, dialect.markerExistsSql(schema, name))) {
                    throw refused(e, context + ": could not create dead-letter table " + qualified + ": "
                            + e.getMessage() + ". Remedy: create it (" + ddl + ") and grant the sink's user INSERT on it, "
                            + "or grant CREATE.");
                }
            }
        }
        if (!readable(c, dialect.markerExistsSql(schema, name))) {
            throw new MisconfigurationException(
                    context + ": dead-letter table " + qualified + " is missing or not readable by the "
                    + "sink's user. Remedy: create it (" + ddl + ") and GRANT SELECT, INSERT on it, or allow the sink to "
                    + "create it (createMarkerTable(true)).");
        }
        dialect.checkTransactional(c, context, schema, name);
    }

    /**
     * Whether a probe of the marker table runs (for a gid that never exists): false when the database
     * refuses it for good (no such table, no privilege); anything else (a lost connection) is thrown.
     */
    private static boolean readable(Connection c, String existsSql) throws SQLException {
        try (java.sql.PreparedStatement s = c.prepareStatement(existsSql)) {
            s.setString(1, "eosink-probe");
            s.executeQuery().close();
            return true;
        } catch (SQLException e) {
            if (refusesForGood(e)) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Whether the database refused a statement for what it is or for the user, which a restart finds the
     * same: SQLSTATE class 42, syntax error or access rule violation (a missing table or column, a missing
     * privilege; MariaDB's 42S02, 42S22 and 42000 among them). Anything else (a connection lost, a
     * timeout, a lock) may be over by the next attempt; so are MariaDB's and MySQL's limits of a user's
     * resources, which they report as 42000 too: {@value #TOO_MANY_USER_CONNECTIONS} (the user's
     * {@code max_user_connections}) and {@value #USER_LIMIT_REACHED} ({@code max_queries_per_hour} and the
     * like, reset every hour).
     */
    static boolean refusesForGood(SQLException e) {
        String state = e.getSQLState();
        if (state == null || !state.startsWith("42")) {
            return false;
        }
        return e.getErrorCode() != TOO_MANY_USER_CONNECTIONS && e.getErrorCode() != USER_LIMIT_REACHED;
    }

    /** MariaDB's and MySQL's ER_TOO_MANY_USER_CONNECTIONS (SQLSTATE 42000): a limit, not a refusal. */
    static final int TOO_MANY_USER_CONNECTIONS = 1203;
    /** MariaDB's and MySQL's ER_USER_LIMIT_REACHED (SQLSTATE 42000): an hourly limit, not a refusal. */
    static final int USER_LIMIT_REACHED = 1226;

    /** A CREATE that failed: for good when the database refused it for the user, else for the moment. */
    private static SinkException refused(SQLException e, String message) {
        return refusesForGood(e) ? new MisconfigurationException(message, e) : new SinkException(message, e);
    }

    private void checkTarget(Connection c, SubtaskContext context, XaDialect dialect) throws SQLException, SinkException {
        if (!(statement instanceof InsertStatement.Columns<IN> insert)) {
            return; // the user's statement is checked by the database at the first record
        }
        SqlIdentifier table = insert.table();
        List<String> columns = insert.columns();
        String probe = "SELECT " + columns.stream().map(dialect::quote).collect(Collectors.joining(", "))
                + " FROM " + dialect.qualified(table.schema(), table.name()) + " WHERE 1 = 0";
        try (Statement s = c.createStatement()) {
            s.executeQuery(probe).close();
        } catch (SQLException e) {
            if (!refusesForGood(e)) {
                throw e; // not an answer about the table: the connection, a timeout
            }
            throw new MisconfigurationException(
                    context + ": " + target() + " with columns " + columns + " cannot be read on "
                    + connector.describe() + ": " + e.getMessage() + ". Remedy: create the table, fix the table or "
                    + "column names given to the sink, or grant the sink's user SELECT and INSERT on it.", e);
        }
        dialect.checkTransactional(c, context, table.schema(), table.name());
    }

    @Override
    public String toString() {
        return "XaDatabase{" + connector.describe() + ", " + target() + "}";
    }
}
