package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.WriteMethod;
import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import static dev.eosink.postgres.internal.Catalog.checkSchemaUsage;
import static dev.eosink.postgres.internal.Catalog.currentRole;
import static dev.eosink.postgres.internal.Catalog.exists;
import static dev.eosink.postgres.internal.Catalog.missingPrivileges;
import static dev.eosink.postgres.internal.Catalog.oneLine;

/**
 * What a writer checks on its own connection before it writes anything, so that what would fail at
 * the first record or checkpoint fails at start, with a remedy: that prepared transactions are
 * enabled and plentiful enough, that the marker table (and the dead-letter table, if any) exists or
 * can be created and may be used, that the target table and columns exist and may be written, or that
 * PostgreSQL parses the user's statement, and that an upsert key has its unique index. It runs the
 * checks in that order, and returns what it found: the columns' types and the {@link WritePlan}.
 *
 * <p>It changes nothing but the sink's own tables (created when missing, if the sink may).
 */
final class Preflight<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(Preflight.class);

    /** Prepared transactions one subtask needs at the least: the one being committed and the next. */
    static final int PREPARED_PER_SUBTASK = 2;

    /**
     * What the preflight found.
     *
     * @param columns the target columns' types, in the order of the statement's columns; none for
     *     the user's SQL
     * @param plan how the session will write
     */
    record Findings<IN>(List<ColumnType> columns, WritePlan<IN> plan) {
        Findings {
            columns = List.copyOf(columns);
        }
    }

    private final Connection c;
    private final SubtaskContext context;
    private final PostgresSinkOptions<IN> options;

    private Preflight(Connection c, SubtaskContext context, PostgresSinkOptions<IN> options) {
        this.c = c;
        this.context = context;
        this.options = options;
    }

    /** Runs every check on {@code c} (autocommit on); a failed one throws, naming the remedy. */
    static <IN> Findings<IN> run(Connection c, SubtaskContext context, PostgresSinkOptions<IN> options)
            throws SQLException, SinkException {
        return new Preflight<>(c, context, options).run();
    }

    private Findings<IN> run() throws SQLException, SinkException {
        checkPreparedTransactions();
        SinkTables tables = new SinkTables(c, context, options.createTables());
        tables.ensureMarkerTable(options.markers());
        if (options.refusedRecords() instanceof RefusedRecords.DeadLetterTable deadLetters) {
            tables.ensureDeadLetterTable(deadLetters.table());
        }
        if (!(options.statement() instanceof InsertStatement.Columns<IN> insert)) {
            InsertStatement.UserSql<IN> userSql = (InsertStatement.UserSql<IN>) options.statement(); // the other form
            checkUserSql(userSql);
            return new Findings<>(List.of(), new WritePlan.Batch<>(userSql, userSql.sql(), options.refusedRecords()));
        }
        checkTable(insert);
        List<ColumnType> types = columnTypes(insert.table(), insert.columns());
        return new Findings<>(types, plan(insert, types));
    }

    private void checkPreparedTransactions() throws SQLException, SinkException {
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
        int maxPreparedPerSubtask = options.maxPreparedPerSubtask();
        int needed = PREPARED_PER_SUBTASK * context.parallelism();
        if (max < needed) {
            throw new SinkException(
                    context
                            + ": PostgreSQL at "
                            + options.connection().describe()
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

    /**
     * User SQL names its tables itself: let PostgreSQL parse it now (Parse/Describe, nothing is
     * executed), so that a wrong table or column is found at start and not at the first batch.
     * Privileges are checked only when a statement runs, so a missing one still shows at the first
     * batch.
     */
    private void checkUserSql(InsertStatement.UserSql<IN> userSql) throws SinkException {
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

    private void checkTable(InsertStatement.Columns<IN> insert) throws SQLException, SinkException {
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

    /** Per column, in the given order, its type; the declared lengths as {@link ColumnType} says. */
    private List<ColumnType> columnTypes(SqlIdentifier table, List<String> columns) throws SQLException {
        List<String[]> found = new ArrayList<>(); // {typname, cast, atttypmod}
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
                    found.add(new String[] {rs.getString(1), cast, rs.getString(3)});
                }
            }
        }
        boolean countsBytes;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW server_encoding")) {
            rs.next();
            countsBytes = "SQL_ASCII".equalsIgnoreCase(rs.getString(1));
        }
        List<ColumnType> types = new ArrayList<>();
        for (String[] f : found) {
            // atttypmod is n plus the 4-byte varlena header; -1 without one.
            int typmod = Integer.parseInt(f[2]);
            boolean declared = !countsBytes && ("varchar".equals(f[0]) || "bpchar".equals(f[0])) && typmod >= 4;
            types.add(new ColumnType(f[0], f[1], declared ? typmod - 4 : -1));
        }
        return types;
    }

    /**
     * How rows reach the table: upserts through {@link UpsertWriter}, inserts through binary COPY when
     * every column's type has an encoder, otherwise (or when asked, or with a dead-letter table)
     * through JDBC batches of the INSERT with casts.
     */
    private WritePlan<IN> plan(InsertStatement.Columns<IN> insert, List<ColumnType> types)
            throws SQLException, SinkException {
        SqlIdentifier table = insert.table();
        List<String> typeNames = types.stream().map(ColumnType::typeName).collect(Collectors.toList());
        Optional<BinaryCopyEncoder> encoder = BinaryCopyEncoder.forTypes(
                insert.columns(), typeNames, types.stream().mapToInt(ColumnType::declaredLength).toArray());
        String noCopy = options.writeMethod() != WriteMethod.COPY ? "writeMethod(BATCH) asks so"
                : encoder.isEmpty() ? "a column type has no binary COPY encoder (" + typeNames + ")"
                : copyRefusal(table);
        List<String> casts = types.stream().map(ColumnType::cast).collect(Collectors.toList());
        if (options.rowAction() instanceof RowAction.Upsert<IN> upsert) {
            KeyColumns keys = KeyColumns.read(c, table, upsert.key());
            if (keys.unsupported() != null) {
                throw new SinkException(context + ": table " + table + ": " + keys.unsupported() + ". Remedy: give the key "
                        + "column a deterministic collation (citext already ignores case), or make it text with the "
                        + "nondeterministic collation instead of citext.");
            }
            WritePlan.Upsert<IN> statementsOnly =
                    new WritePlan.Upsert<>(insert, casts, keys, upsert.rowKind(), Optional.empty());
            checkUpsertKey(table, upsert.key(), statementsOnly.newBuffer());
            if (noCopy == null && keys.databaseDecides()) {
                // COPY takes keys the subtask never wrote, which needs the key's exact form in Java.
                noCopy = keys.whyDatabaseDecides() + ": only the database can tell which records share a key, so each "
                        + "statement merges them by its equality";
            }
            if (noCopy != null) {
                LOG.info("{}: every upsert into {} goes as a statement, none by COPY: {}", context, table, noCopy);
                return statementsOnly;
            }
            return new WritePlan.Upsert<>(insert, casts, keys, upsert.rowKind(), encoder);
        }
        // The batch path's statement: each parameter cast to its column's type ({@code ?::jsonb}),
        // since the driver binds Java strings as varchar, which PostgreSQL will not assign to json,
        // uuid and other columns without a cast.
        String castInsert = insert.sql(casts.stream().map(t -> "?::" + t).collect(Collectors.toList()));
        WritePlan<IN> batches = new WritePlan.Batch<>(insert, castInsert, options.refusedRecords());
        if (options.writeMethod() != WriteMethod.COPY) {
            return batches;
        }
        if (options.refusedRecords() instanceof RefusedRecords.DeadLetterTable) {
            // A refused row aborts a COPY and everything it streamed so far; only statements of a
            // batch can be undone one by one (savepoints), which keeping refused records needs.
            LOG.info("{}: a dead-letter table is configured, so inserts go as JDBC batches, not COPY", context);
            return batches;
        }
        if (noCopy != null) {
            LOG.info("{}: writing into {} with JDBC batches, not COPY: {}", context, table, noCopy);
            return batches;
        }
        return new WritePlan.Copy<>(insert, encoder.get());
    }

    /**
     * Why COPY cannot write into the target although INSERT can, or null: COPY FROM refuses views
     * (automatically updatable ones included) and tables whose row-level security applies to this role
     * ("COPY FROM not supported with row-level security").
     */
    private String copyRefusal(SqlIdentifier table) throws SQLException {
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

    /** ON CONFLICT needs a unique index on exactly the key columns: EXPLAIN finds out without writing. */
    private void checkUpsertKey(SqlIdentifier table, List<String> key, UpsertBuffer upserts)
            throws SinkException, SQLException {
        try (Statement s = c.createStatement()) {
            s.executeQuery("EXPLAIN " + upserts.upsertSqlWithNulls()).close();
        } catch (SQLException e) {
            if ("42P10".equals(e.getSQLState())) {
                throw new SinkException(context + ": upsert key " + key + " of table " + table
                        + " has no unique index or constraint on exactly those columns, which INSERT ... ON CONFLICT "
                        + "needs. Remedy: CREATE UNIQUE INDEX ON " + table + " (" + key.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                        + "), or give upsert(...) the columns of the primary key.", e);
            }
            throw e;
        }
    }
}
