package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.driver.JdbcDrivers;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.RowKindFunction;
import dev.eosink.postgres.WriteMethod;
import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.zip.CRC32;

/**
 * PostgreSQL's native two-phase commit ({@code PREPARE TRANSACTION} / {@code COMMIT PREPARED}) as a
 * {@link TransactionalDatabase}. Opening a writer checks everything that would otherwise fail at the
 * first checkpoint: that prepared transactions are enabled and plentiful enough, that the marker
 * table exists and the role may use it, that the target table and columns exist and may be written.
 */
public final class PostgresDatabase<IN> implements TransactionalDatabase<IN> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PostgresDatabase.class);

    /** The writer session's lock_timeout: a write waiting longer for a row lock fails the task. */
    static final int WRITER_LOCK_TIMEOUT_SECONDS = 60;

    /** Prepared transactions one subtask needs at the least: the one being committed and the next. */
    static final int PREPARED_PER_SUBTASK = 2;

    private final PostgresConnection connection;
    private final InsertStatement<IN> statement;
    private final MarkerTable markers;
    private final boolean createMarkerTable;
    private final int batchSize;
    private final WriteMethod writeMethod;
    private final List<String> upsertKey; // null: insert
    private final RowKindFunction<IN> rowKind; // null: every record is an INSERT
    /** Bound of every call into the driver during an epoch or a commit; ZERO: unbounded. */
    private final Duration networkTimeout;
    /** Where refused records go; null: a refused record fails the epoch (the default). */
    private final SqlIdentifier deadLetterTable;
    /** COPY flow control's bound of data sent and not yet read by the server; 0: off. */
    private final long maxCopyBacklog;
    /** The most prepared transactions a writer subtask may hold: what the server should have room for. */
    private final int maxPreparedPerSubtask;

    public PostgresDatabase(PostgresSinkOptions<IN> options) {
        this.connection = options.connection();
        this.statement = options.statement();
        this.markers = options.markers();
        this.createMarkerTable = options.createTables();
        this.batchSize = options.batchSize();
        this.writeMethod = options.writeMethod();
        this.upsertKey = options.rowAction() instanceof RowAction.Upsert<IN> upsert ? upsert.key() : null;
        this.rowKind = options.rowAction() instanceof RowAction.Upsert<IN> upsert ? upsert.rowKind() : null;
        this.networkTimeout = options.networkTimeout();
        this.deadLetterTable = options.refusedRecords() instanceof RefusedRecords.DeadLetterTable deadLetters
                ? deadLetters.table()
                : null;
        this.maxCopyBacklog = options.maxCopyBacklog();
        this.maxPreparedPerSubtask = options.maxPreparedPerSubtask();
    }

    SqlIdentifier deadLetterTable() {
        return deadLetterTable;
    }

    RowKindFunction<IN> rowKind() {
        return rowKind;
    }

    InsertStatement<IN> statement() {
        return statement;
    }

    MarkerTable markers() {
        return markers;
    }

    int batchSize() {
        return batchSize;
    }

    public PostgresConnection connection() {
        return connection;
    }

    @Override
    public String target() {
        return statement.describe();
    }

    /** The advisory-lock class of a sink id: a stable 32-bit hash, so every job computes the same. */
    static int lockClass(String sinkId) {
        CRC32 crc = new CRC32();
        crc.update(("eosink/" + sinkId).getBytes(StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }

    /** pgjdbc's driver registers itself when loaded: it must not keep the job's class loader (see {@link JdbcDrivers}). */
    @Override
    public void registerReleaseHooks(UserCodeClassLoader userCode) {
        JdbcDrivers.deregisterOnRelease(userCode);
    }

    @Override
    public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
        Connection c = connect(context, "writer");
        // Aborts go to pgjdbc's connection itself, under a pool's wrapper if there is one: what an abort
        // of a wrapper does is the pool's choice, and the socket must close.
        IoWatchdog io = new IoWatchdog(SessionEnd.physical(c), networkTimeout, context);
        try {
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                // A writer must never wait forever on a row lock: a lock held by a prepared
                // transaction is released only by a commit that may need this very task thread.
                s.execute("SET lock_timeout = '" + WRITER_LOCK_TIMEOUT_SECONDS + "s'");
            }
            checkPreparedTransactions(c, context);
            ensureMarkerTable(c, context);
            ensureDeadLetterTable(c, context);
            checkTarget(c, context);
            List<String[]> types = statement instanceof InsertStatement.Columns<IN> insert
                    ? columnTypes(c, insert.table(), insert.columns())
                    : List.of();
            // The session's COPY flow control, for either COPY path; its monitor connection is opened
            // when first needed, so a session that never falls behind (or never copies) has none.
            CopyBacklog backlog = new CopyBacklog(
                    () -> connection.open(applicationName(context, "copy-monitor")), maxCopyBacklog, context);
            Object path = rowPath(c, io, context, types, backlog);
            String insertSql = insertSql(types);
            return new PostgresWriterSession<>(context, this, c, io, insertSql,
                    path instanceof CopyStream ? (CopyStream) path : null,
                    path instanceof UpsertWriter ? (UpsertWriter) path : null,
                    backlog,
                    deadLetterTable == null ? null : new DeadLetters(deadLetterTable));
        } catch (SQLException e) {
            endQuietly(c, io, context, e);
            throw new SinkException(
                    context + ": checking PostgreSQL at " + connection.describe() + " failed: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            endQuietly(c, io, context, e);
            throw e;
        }
    }

    /** Ends the session of a writer that failed to open (it set lock_timeout): never back to a pool alive. */
    private static void endQuietly(Connection c, IoWatchdog io, SubtaskContext context, Exception primary) {
        try {
            SessionEnd.endSession(c, io, context);
        } catch (SQLException suppressed) {
            primary.addSuppressed(suppressed);
        }
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) throws IOException {
        String name = applicationName(context, "committer");
        return new PostgresCommitSession(context, markers, connection.pool(name, name, 2), networkTimeout);
    }

    private Connection connect(SubtaskContext context, String role) throws SinkException {
        try {
            return connection.open(applicationName(context, role));
        } catch (SQLException e) {
            throw new SinkException(
                    context
                            + ": could not connect to PostgreSQL at "
                            + connection.describe()
                            + ": "
                            + e.getMessage()
                            + " (SQLSTATE "
                            + e.getSQLState()
                            + "). Remedy: check the JDBC URL, the credentials and that the server accepts "
                            + "connections from the task managers.",
                    e);
        }
    }

    /**
     * application_name: how operators and tests recognize the sink's sessions in pg_stat_activity.
     * PostgreSQL truncates it to 63 bytes; a long sink id is shortened here instead, so that the
     * subtask and role at the end survive.
     */
    static String applicationName(SubtaskContext context, String role) {
        String suffix = "/" + context.subtask() + "/" + role;
        String sinkId = context.sinkId(); // ASCII by construction (TransactionId.SINK_ID)
        int room = 63 - "eosink/".length() - suffix.length();
        if (sinkId.length() > room) {
            sinkId = sinkId.substring(0, room - 1) + "~";
        }
        return "eosink/" + sinkId + suffix;
    }

    static List<TransactionId> listPrepared(Connection c, String sinkId) throws SQLException {
        List<TransactionId> ids = new ArrayList<>();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, ?)")) {
            s.setString(1, TransactionId.sinkPrefix(sinkId));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Optional<TransactionId> id = TransactionId.parse(rs.getString(1));
                    if (id.isPresent()) {
                        ids.add(id.get());
                    } else {
                        LOG.warn("Ignoring prepared transaction '{}': it starts like this sink's but does not parse", rs.getString(1));
                    }
                }
            }
        }
        return ids;
    }

    private void checkPreparedTransactions(Connection c, SubtaskContext context) throws SQLException, SinkException {
        int max;
        int used;
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT current_setting('max_prepared_transactions')::int, (SELECT count(*) FROM pg_prepared_xacts)")) {
            rs.next();
            max = rs.getInt(1);
            used = rs.getInt(2);
        }
        int needed = PREPARED_PER_SUBTASK * context.parallelism();
        if (max < needed) {
            throw new SinkException(
                    context
                            + ": PostgreSQL at "
                            + connection.describe()
                            + " has max_prepared_transactions = "
                            + max
                            + (max == 0 ? ", which disables PREPARE TRANSACTION" : "")
                            + "; this sink needs at least "
                            + needed
                            + " ("
                            + PREPARED_PER_SUBTASK
                            + " per subtask x parallelism "
                            + context.parallelism()
                            + "), and room for "
                            + maxPreparedPerSubtask * context.parallelism()
                            + " (maxPreparedPerSubtask "
                            + maxPreparedPerSubtask
                            + " per subtask) when checkpoints fail, more with several sinks. Remedy: set "
                            + "max_prepared_transactions in postgresql.conf (see sql/00-server-settings.sql) and "
                            + "restart PostgreSQL.");
        }
        int room = maxPreparedPerSubtask * context.parallelism();
        if (max < room) {
            LOG.warn(
                    "{}: max_prepared_transactions = {} leaves no room for maxPreparedPerSubtask ({}) x parallelism ({}) "
                            + "= {} prepared transactions of this sink, which it may hold while checkpoints fail after "
                            + "it prepared; PREPARE TRANSACTION then fails before the sink's own bound does. Size it as "
                            + "the sum of parallelism x maxPreparedPerSubtask over the sinks on this server, plus what "
                            + "other applications prepare (sql/00-server-settings.sql).",
                    context, max, maxPreparedPerSubtask, context.parallelism(), room);
        } else if (max - used < room) {
            LOG.warn(
                    "{}: only {} of max_prepared_transactions = {} are free ({} in use); this sink may need {}. "
                            + "Lingering prepared transactions hold locks and block VACUUM: see "
                            + "sql/03-prepared-transactions.sql.",
                    context,
                    max - used,
                    max,
                    used,
                    room);
        }
    }

    private void ensureMarkerTable(Connection c, SubtaskContext context) throws SQLException, SinkException {
        String role = currentRole(c);
        checkSchemaUsage(c, context, role, markers.table(), "marker table");
        if (!exists(c, markers.table())) {
            if (!createMarkerTable) {
                throw new SinkException(
                        context
                                + ": marker table "
                                + markers.table()
                                + " does not exist. Remedy: have a database administrator run "
                                + "sql/01-marker-table.sql, or allow the sink to create it (createMarkerTable(true)).");
            }
            try (Statement s = c.createStatement()) {
                s.execute(markers.createSql());
                LOG.info("{}: created marker table {}", context, markers.table());
            } catch (SQLException e) {
                // Several subtasks may race on CREATE TABLE IF NOT EXISTS; the loser sees a
                // duplicate. Anything else is a real problem (usually privileges).
                if (!exists(c, markers.table())) {
                    throw new SinkException(
                            context
                                    + ": could not create marker table "
                                    + markers.table()
                                    + ": "
                                    + oneLine(e)
                                    + ". Remedy: have a database administrator run sql/01-marker-table.sql and "
                                    + "GRANT INSERT, SELECT, DELETE ON "
                                    + markers.table()
                                    + " TO "
                                    + role
                                    + ", or let the sink create it: GRANT CREATE ON SCHEMA "
                                    + SqlIdentifier.quote(schemaOf(c, markers.table()))
                                    + " TO "
                                    + role
                                    + " (see sql/02-sink-role.sql).",
                            e);
                }
            }
        }
        List<String> missing = missingPrivileges(c, markers.table(), "INSERT", "SELECT", "DELETE");
        if (!missing.isEmpty()) {
            throw new SinkException(
                    context
                            + ": the role "
                            + role
                            + " lacks "
                            + missing
                            + " on marker table "
                            + markers.table()
                            + " (INSERT writes a marker inside each transaction, SELECT proves a commit, DELETE "
                            + "prunes). Remedy: GRANT INSERT, SELECT, DELETE ON "
                            + markers.table()
                            + " TO "
                            + role
                            + " (see sql/02-sink-role.sql).");
        }
    }

    /** Like the marker table: created when missing if the sink may, and the role must be able to INSERT. */
    private void ensureDeadLetterTable(Connection c, SubtaskContext context) throws SQLException, SinkException {
        if (deadLetterTable == null) {
            return;
        }
        String role = currentRole(c);
        checkSchemaUsage(c, context, role, deadLetterTable, "dead-letter table");
        if (!exists(c, deadLetterTable)) {
            if (!createMarkerTable) {
                throw new SinkException(context + ": dead-letter table " + deadLetterTable + " does not exist. Remedy: "
                        + "create it (" + DeadLetters.createSql(deadLetterTable) + ") and GRANT INSERT on it to " + role
                        + ", or allow the sink to create its tables (createMarkerTable(true)).");
            }
            try (Statement s = c.createStatement()) {
                s.execute(DeadLetters.createSql(deadLetterTable));
                LOG.info("{}: created dead-letter table {}", context, deadLetterTable);
            } catch (SQLException e) {
                if (!exists(c, deadLetterTable)) { // another subtask may have won the race
                    throw new SinkException(context + ": could not create dead-letter table " + deadLetterTable + ": "
                            + oneLine(e) + ". Remedy: create it (" + DeadLetters.createSql(deadLetterTable)
                            + ") and GRANT INSERT on it to " + role + ".", e);
                }
            }
        }
        if (!missingPrivileges(c, deadLetterTable, "INSERT").isEmpty()) {
            throw new SinkException(context + ": the role " + role + " lacks INSERT on dead-letter table " + deadLetterTable
                    + ". Remedy: GRANT INSERT ON " + deadLetterTable + " TO " + role + ".");
        }
    }

    /**
     * The batch path's statement: the generated INSERT with each parameter cast to its column's type
     * ({@code ?::jsonb}), since the driver binds Java strings as varchar, which PostgreSQL will not
     * assign to json, uuid and other columns without a cast; or the user's SQL as given.
     */
    private String insertSql(List<String[]> types) {
        if (statement instanceof InsertStatement.Columns<IN> insert) {
            return insert.sql(types.stream().map(t -> "?::" + t[1]).collect(Collectors.toList()));
        }
        return ((InsertStatement.UserSql<IN>) statement).sql();
    }

    private void checkTarget(Connection c, SubtaskContext context) throws SQLException, SinkException {
        if (!(statement instanceof InsertStatement.Columns<IN> insert)) {
            checkUserSql(c, context, (InsertStatement.UserSql<IN>) statement);
            return;
        }
        SqlIdentifier table = insert.table();
        String role = currentRole(c);
        checkSchemaUsage(c, context, role, table, "table");
        if (!exists(c, table)) {
            throw new SinkException(
                    context + ": table " + table + " does not exist (names are case-sensitive as given; without a "
                            + "schema, only schemas on the search_path that the role may use are searched). Remedy: "
                            + "create it, or fix the table name given to the sink.");
        }
        List<String> missing = missingPrivileges(c, table, "INSERT");
        if (!missing.isEmpty()) {
            throw new SinkException(
                    context + ": the role " + role + " lacks INSERT on table " + table + ". Remedy: GRANT INSERT ON "
                            + table + " TO " + role + " (see sql/02-sink-role.sql).");
        }
        String probe =
                "SELECT "
                        + insert.columns().stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                        + " FROM "
                        + table.sql()
                        + " WHERE false";
        try (Statement s = c.createStatement()) {
            s.executeQuery(probe).close();
        } catch (SQLException e) {
            if ("42703".equals(e.getSQLState())) {
                throw new SinkException(
                        context + ": table " + table + " lacks a column the sink writes: " + oneLine(e)
                                + ". Columns configured: " + insert.columns() + ". Remedy: add the column to "
                                + "the table, or fix columns(...) (names are case-sensitive as given).",
                        e);
            }
            if (!"42501".equals(e.getSQLState())) { // SELECT is not needed to insert
                throw e;
            }
        }
    }

    /**
     * How rows reach the table: upserts through {@link UpsertWriter}, inserts through binary COPY when
     * every column's type has an encoder, otherwise (or when asked) through JDBC batches (null).
     */
    private Object rowPath(Connection c, IoWatchdog io, SubtaskContext context, List<String[]> types,
            CopyBacklog backlog) throws SQLException, SinkException {
        if (!(statement instanceof InsertStatement.Columns<IN> insert)) {
            return null; // user SQL
        }
        SqlIdentifier table = insert.table();
        List<String> columns = insert.columns();
        Optional<BinaryCopyEncoder> encoder = BinaryCopyEncoder.forTypes(
                columns, types.stream().map(t -> t[0]).collect(Collectors.toList()), declaredLengths(c, types));
        String noCopy = writeMethod != WriteMethod.COPY ? "writeMethod(BATCH) asks so"
                : encoder.isEmpty() ? "a column type has no binary COPY encoder (" + types.stream().map(t -> t[0])
                        .collect(Collectors.toList()) + ")"
                : copyRefusal(c, table);
        if (upsertKey != null) {
            KeyColumns keys = KeyColumns.read(c, table, upsertKey);
            if (keys.unsupported() != null) {
                throw new SinkException(context + ": table " + table + ": " + keys.unsupported() + ". Remedy: give the key "
                        + "column a deterministic collation (citext already ignores case), or make it text with the "
                        + "nondeterministic collation instead of citext.");
            }
            UpsertBuffer upserts = new UpsertBuffer(
                    table, columns, types.stream().map(t -> t[1]).collect(Collectors.toList()), keys);
            checkUpsertKey(c, context, table, upserts);
            if (noCopy == null && keys.databaseDecides()) {
                // COPY takes keys the subtask never wrote, which needs the key's exact form in Java.
                noCopy = keys.whyDatabaseDecides() + ": only the database can tell which records share a key, so each "
                        + "statement merges them by its equality";
            }
            if (noCopy != null) {
                LOG.info("{}: every upsert into {} goes as a statement, none by COPY: {}", context, table, noCopy);
            }
            CopyStream newKeys = noCopy == null ? new CopyStream(c, io, table, columns, encoder.get(), batchSize, backlog) : null;
            return new UpsertWriter(c, io, upserts, newKeys, batchSize, new KeyFilter());
        }
        if (writeMethod != WriteMethod.COPY) {
            return null;
        }
        if (deadLetterTable != null) {
            // A refused row aborts a COPY and everything it streamed so far; only statements of a
            // batch can be undone one by one (savepoints), which keeping refused records needs.
            LOG.info("{}: a dead-letter table is configured, so inserts go as JDBC batches, not COPY", context);
            return null;
        }
        if (noCopy != null) {
            LOG.info("{}: writing into {} with JDBC batches, not COPY: {}", context, table, noCopy);
            return null;
        }
        return new CopyStream(c, io, table, columns, encoder.get(), batchSize, backlog);
    }

    /**
     * Why COPY cannot write into the target although INSERT can, or null: COPY FROM refuses views
     * (automatically updatable ones included) and tables whose row-level security applies to this role
     * ("COPY FROM not supported with row-level security").
     */
    private static String copyRefusal(Connection c, SqlIdentifier table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT c.relkind, row_security_active(c.oid) FROM pg_class c WHERE c.oid = to_regclass(?)")) {
            s.setString(1, table.sql());
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null; // not found: the privilege check at start names it
                }
                String kind = rs.getString(1);
                if (!"r".equals(kind) && !"p".equals(kind)) {
                    return table + " is not a table (relkind '" + kind + "'), and COPY writes into tables only";
                }
                if (rs.getBoolean(2)) {
                    return "row-level security applies to this role on " + table + ", and COPY FROM refuses it";
                }
                return null;
            }
        }
    }

    /**
     * Per column, the declared length n of a varchar(n) or char(n) column (atttypmod is n plus the
     * 4-byte varlena header; -1 without one), which the COPY encoder checks itself; -1 for others. None
     * on a SQL_ASCII server, which counts bytes, not characters: the server checks those alone.
     */
    private static int[] declaredLengths(Connection c, List<String[]> types) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW server_encoding")) {
            rs.next();
            if ("SQL_ASCII".equalsIgnoreCase(rs.getString(1))) {
                return null;
            }
        }
        int[] lengths = new int[types.size()];
        for (int i = 0; i < lengths.length; i++) {
            String type = types.get(i)[0];
            int typmod = Integer.parseInt(types.get(i)[2]);
            lengths[i] = ("varchar".equals(type) || "bpchar".equals(type)) && typmod >= 4 ? typmod - 4 : -1;
        }
        return lengths;
    }

    /** Per column, in the given order: {typname, format_type, atttypmod}. */
    private static List<String[]> columnTypes(Connection c, SqlIdentifier table, List<String> columns) throws SQLException {
        List<String[]> types = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(
                "SELECT t.typname, format_type(a.atttypid, NULL), a.atttypmod FROM pg_attribute a JOIN pg_type t "
                        + "ON t.oid = a.atttypid "
                        + "WHERE a.attrelid = to_regclass(?) AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
            for (String column : columns) {
                s.setString(1, table.sql());
                s.setString(2, column);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("column \"" + column + "\" of " + table + " does not exist", "42703");
                    }
                    // format_type without a modifier names char(n) "character", which is char(1): a
                    // cast to it would truncate. bpchar is the unbounded spelling.
                    String cast = "bpchar".equals(rs.getString(1)) ? "bpchar" : rs.getString(2);
                    types.add(new String[] {rs.getString(1), cast, rs.getString(3)});
                }
            }
        }
        return types;
    }

    /** ON CONFLICT needs a unique index on exactly the key columns: EXPLAIN finds out without writing. */
    private void checkUpsertKey(Connection c, SubtaskContext context, SqlIdentifier table, UpsertBuffer upserts)
            throws SinkException, SQLException {
        try (Statement s = c.createStatement()) {
            s.executeQuery("EXPLAIN " + upserts.upsertSqlWithNulls()).close();
        } catch (SQLException e) {
            if ("42P10".equals(e.getSQLState())) {
                throw new SinkException(context + ": upsert key " + upsertKey + " of table " + table
                        + " has no unique index or constraint on exactly those columns, which INSERT ... ON CONFLICT "
                        + "needs. Remedy: CREATE UNIQUE INDEX ON " + table + " (" + upsertKey.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                        + "), or give upsert(...) the columns of the primary key.", e);
            }
            throw e;
        }
    }

    /**
     * User SQL names its tables itself: let PostgreSQL parse it now (Parse/Describe, nothing is
     * executed), so that a wrong table or column is found at start and not at the first batch.
     * Privileges are checked only when a statement runs, so a missing one still shows at the first
     * batch.
     */
    private void checkUserSql(Connection c, SubtaskContext context, InsertStatement.UserSql<IN> userSql) throws SinkException {
        try (PreparedStatement s = c.prepareStatement(userSql.sql())) {
            s.getParameterMetaData();
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": " + userSql.describe() + " is refused by PostgreSQL: "
                            + oneLine(e) + " (SQLSTATE "
                            + e.getSQLState() + "). Remedy: fix the statement given to sql(...).",
                    e);
        }
    }

    /**
     * A table in a schema the role may not use cannot be found at all (to_regclass itself fails), so
     * the schema is checked first, when it is named.
     */
    private static void checkSchemaUsage(
            Connection c, SubtaskContext context, String role, SqlIdentifier table, String what)
            throws SQLException, SinkException {
        if (table.schema() == null) {
            return;
        }
        try (PreparedStatement s =
                c.prepareStatement("SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = ?")) {
            s.setString(1, table.schema());
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next() && !rs.getBoolean(1)) {
                    throw new SinkException(
                            context + ": the role " + role + " lacks USAGE on schema " + SqlIdentifier.quote(table.schema())
                                    + ", so it cannot use " + what + " " + table + ". Remedy: GRANT USAGE ON SCHEMA "
                                    + SqlIdentifier.quote(table.schema()) + " TO " + role + " (see sql/02-sink-role.sql).");
                }
            }
        }
    }

    /** The server's message on one line (it puts Detail, Hint and Position on lines of their own). */
    private static String oneLine(SQLException e) {
        return String.valueOf(e.getMessage()).replaceAll("\\s+", " ").trim();
    }

    /** The role the sink's sessions run as, quoted, for remedies the operator can paste. */
    private static String currentRole(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            return SqlIdentifier.quote(rs.getString(1));
        }
    }

    /** The schema a table is or would be created in: its own, or the first usable one on the search_path. */
    private static String schemaOf(Connection c, SqlIdentifier table) throws SQLException {
        if (table.schema() != null) {
            return table.schema();
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(current_schema(), 'public')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static boolean exists(Connection c, SqlIdentifier table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, table.sql());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static List<String> missingPrivileges(Connection c, SqlIdentifier table, String... privileges)
            throws SQLException {
        List<String> missing = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT has_table_privilege(to_regclass(?), ?)")) {
            for (String privilege : privileges) {
                s.setString(1, table.sql());
                s.setString(2, privilege);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        missing.add(privilege);
                    }
                }
            }
        }
        return missing;
    }

    @Override
    public String toString() {
        return "PostgresDatabase{" + connection.describe() + ", " + target() + ", markers " + markers.table()
                + (deadLetterTable == null ? "" : ", dead letters " + deadLetterTable) + "}";
    }
}
