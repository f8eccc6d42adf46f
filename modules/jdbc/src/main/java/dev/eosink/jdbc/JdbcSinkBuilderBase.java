/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.InputDistribution;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.jdbc.sql.UpsertKeys;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * The part that {@code PostgresSinkBuilder} ({@code PostgresSink.builder()}) and {@code XaSinkBuilder}
 * ({@code XaSink.builder()}) have in common: not an entry point, start from one of those. It holds the
 * options that mean the same for both (sink id, what to write, batch size, marker table, the
 * protocol's {@link SinkSettings}, the JDBC URL's credentials and properties) and the checks of
 * {@link #build()} that span them. {@link #build()} hands them to the concrete builder as one immutable
 * {@link JdbcSinkOptions}; the concrete builder adds its own options and makes the database.
 *
 * <p>Each setter checks its own argument; {@link #build()} checks the rules that span several
 * settings. Messages name the sink, the setting and the remedy.
 *
 * @param <IN> the records the sink writes
 * @param <SELF> the concrete builder, which every setter returns for chaining
 */
@PublicEvolving
public abstract class JdbcSinkBuilderBase<IN, SELF extends JdbcSinkBuilderBase<IN, SELF>> {

    /** Records per JDBC batch when {@code batchSize} is not set: 1000. */
    public static final int DEFAULT_BATCH_SIZE = 1000;
    /** The marker table, in the connection's default schema or database, when {@code markerTable} is not set. */
    public static final String DEFAULT_MARKER_TABLE = "eosink_markers";

    /** The concrete builder's other source of connections, for messages: "dataSource", "xaDataSource". */
    private final String dataSourceSetter;
    /** What that setter supplies, for messages: "DataSource", "XADataSource". */
    private final String dataSourceType;

    private String jdbcUrl;
    private final Properties properties = new Properties();

    private String sinkId;
    private final StatementSettings<IN> statement = new StatementSettings<>();

    private int batchSize = DEFAULT_BATCH_SIZE;
    private final WriteModeSettings<IN> writeMode = new WriteModeSettings<>();
    private SqlIdentifier markerTable = new SqlIdentifier(null, DEFAULT_MARKER_TABLE);
    private boolean createMarkerTable = true;
    private final ProtocolSettings protocol = new ProtocolSettings();
    /** password(null) was given: build() refuses it (see {@link #password}). */
    private boolean nullPassword;

    /**
     * @param dataSourceSetter the concrete builder's setter for connections without a URL, as its
     *     messages name it ({@code "dataSource"})
     * @param dataSourceType what that setter supplies ({@code "DataSource"})
     */
    protected JdbcSinkBuilderBase(String dataSourceSetter, String dataSourceType) {
        this.dataSourceSetter = Objects.requireNonNull(dataSourceSetter, "dataSourceSetter");
        this.dataSourceType = Objects.requireNonNull(dataSourceType, "dataSourceType");
    }

    @SuppressWarnings("unchecked")
    private SELF self() {
        return (SELF) this;
    }

    // ---------------------------------------------------------------------------------------------
    // Connection by URL (the concrete builder adds its data source)
    // ---------------------------------------------------------------------------------------------

    /** The database's JDBC URL; the concrete builder checks that it knows the scheme. */
    public abstract SELF jdbcUrl(String jdbcUrl);

    /** For {@link #jdbcUrl(String)}, once the concrete builder has checked the URL. */
    protected final SELF setJdbcUrl(String jdbcUrl) {
        this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        return self();
    }

    /** The user of a {@link #jdbcUrl(String)} connection (driver property {@code user}); not null. */
    public SELF username(String username) {
        return property("user", Objects.requireNonNull(username, "username"));
    }

    /**
     * The password of {@link #username}, for a URL connection. Leave it out for a server that asks for none
     * (trust or peer authentication, a client certificate): the driver then sends none. A null is not taken for
     * "none": it is most often a secret or an environment variable that is not set, so {@link #build()} refuses
     * it, naming the sink and the remedy.
     */
    public SELF password(String password) {
        nullPassword = password == null;
        if (nullPassword) {
            properties.remove("password");
            return self();
        }
        return property("password", password);
    }

    /**
     * A JDBC driver connection property (pgjdbc: ssl, sslmode, sslrootcert, socketTimeout, ...;
     * MariaDB: sslMode, socketTimeout, ...), passed to the driver as given. A property set here or in
     * the URL wins over the sink's defaults (see the concrete builder's {@code networkTimeout}).
     */
    public SELF property(String key, String value) {
        properties.setProperty(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return self();
    }

    /** URL, user, password and properties from flink-connector-jdbc's options. */
    public SELF connection(JdbcConnectionOptions options) {
        jdbcUrl(options.getDbURL());
        properties.putAll(options.getProperties());
        options.getUsername().ifPresent(this::username);
        options.getPassword().ifPresent(this::password);
        return self();
    }

    // ---------------------------------------------------------------------------------------------
    // What to write
    // ---------------------------------------------------------------------------------------------

    /**
     * A stable name for this sink: every transaction id carries it, and recovery only ever touches
     * transactions of its own sink id. Keep it across restarts and upgrades of the job; give every
     * sink that writes to the same database its own.
     */
    public SELF sinkId(String sinkId) {
        this.sinkId = TransactionId.checkSinkId(sinkId);
        return self();
    }

    /**
     * The table to insert into, in the connection's default schema (PostgreSQL: through the
     * search_path) or database (MariaDB/MySQL). Case-sensitive: quoted as given.
     */
    public SELF table(String table) {
        return table(null, table);
    }

    /** A table in another schema (PostgreSQL) or database (MariaDB/MySQL). */
    public SELF table(String schema, String table) {
        statement.table = new SqlIdentifier(schema, table);
        return self();
    }

    /**
     * The columns of {@link #table(String)} that the sink writes, in the order of the values of {@link #rows};
     * case-sensitive, quoted as given. Throws {@link IllegalArgumentException} for no column, a column listed twice, or
     * a name that is empty or contains NUL.
     */
    public SELF columns(String... columns) {
        List<String> list = Arrays.asList(columns);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("columns: give at least one column");
        }
        if (new HashSet<>(list).size() != list.size()) {
            throw new IllegalArgumentException("columns: a column is listed twice: " + list);
        }
        list.forEach(c -> new SqlIdentifier(null, c)); // validates each
        statement.columns = new ArrayList<>(list);
        return self();
    }

    /** From a record to the values of {@link #columns}, in that order. */
    public SELF rows(RowMapper<IN> mapper) {
        statement.rowMapper = Objects.requireNonNull(mapper, "mapper");
        return self();
    }

    /** Your own statement and binder, as with flink-connector-jdbc's {@code JdbcSink}. */
    public SELF sql(String sql, JdbcStatementBuilder<IN> statementBuilder) {
        if (sql == null || sql.isBlank()) {
            throw new IllegalArgumentException("sql: give an INSERT (or other DML) statement with ? parameters");
        }
        statement.sql = sql;
        statement.statementBuilder = Objects.requireNonNull(statementBuilder, "statementBuilder");
        return self();
    }

    /** Records routed to many tables, for the sinks that offer it ({@code PostgresSinkBuilder.tables}). */
    protected final SELF setRoutes(RoutedTables<IN> routes) {
        statement.routes = Objects.requireNonNull(routes, "routes");
        return self();
    }

    /**
     * Records per JDBC batch sent into the open transaction, per upsert statement, or (PostgreSQL's COPY)
     * at most held before they are sent (default 1000, at least 1).
     */
    public SELF batchSize(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be >= 1, was " + batchSize);
        }
        this.batchSize = batchSize;
        return self();
    }

    // ---------------------------------------------------------------------------------------------
    // Write mode: upserts and deletes by key, refused records
    // ---------------------------------------------------------------------------------------------

    /**
     * Upsert instead of insert: the database's own upsert statement, which updates every other column
     * (the concrete builder's documentation names it and what else it needs). The key columns must be
     * among {@link #columns} and be those of a unique key of the table (checked at start); the last
     * record of a key wins. The sink partitions its input by the key columns' values itself (a hash
     * exchange before the writers), so that one writer subtask owns each key whatever the job did
     * before it: a {@code keyBy} of the job's own is not needed.
     */
    public SELF upsert(String... keyColumns) {
        if (keyColumns.length == 0) {
            throw new IllegalArgumentException("upsert: give the key column(s)");
        }
        List<String> keys = Arrays.asList(keyColumns);
        keys.forEach(c -> new SqlIdentifier(null, c));
        writeMode.upsertKey = new ArrayList<>(keys);
        return self();
    }

    /**
     * For changelog streams with {@link #upsert}: each record's kind. DELETE and UPDATE_BEFORE delete
     * the key's row, INSERT and UPDATE_AFTER upsert; the last record of a key wins ({@link
     * RowKindFunction}).
     */
    public SELF changelog(RowKindFunction<IN> rowKind) {
        writeMode.rowKind = Objects.requireNonNull(rowKind, "rowKind");
        return self();
    }

    /**
     * Off by default: a record the database refuses for its data (NULL in a NOT NULL column, a
     * constraint, a value too long or of the wrong type) or that the row mapper cannot map fails the
     * job. With a dead-letter table, such records go there instead, with the database's error, in the
     * epoch's own transaction: the rest of the epoch commits, and the refused records are kept exactly
     * once too. Inserts only, not with {@link #upsert}. Created when missing, like the marker table;
     * the sink's user needs INSERT on it (the concrete builder's documentation says what else).
     */
    public SELF deadLetterTable(String schema, String table) {
        writeMode.deadLetterTable = new SqlIdentifier(schema, table);
        return self();
    }

    // ---------------------------------------------------------------------------------------------
    // Marker table and protocol
    // ---------------------------------------------------------------------------------------------

    /**
     * The marker table (default {@value #DEFAULT_MARKER_TABLE}, in the connection's default schema or
     * database, as for {@link #table(String)}).
     */
    public SELF markerTable(String schema, String table) {
        this.markerTable = new SqlIdentifier(schema, table);
        return self();
    }

    /** Whether the sink may create the marker table when it is missing (default true). */
    public SELF createMarkerTable(boolean create) {
        this.createMarkerTable = create;
        return self();
    }

    /** Marker rows older than this are deleted (default 7 days). Keep it longer than savepoints you may restore. */
    public SELF markerRetention(Duration retention) {
        protocol.markerRetention = retention;
        return self();
    }

    /** How often marker rows older than {@link #markerRetention} are deleted (default 1 hour; positive). */
    public SELF markerPruneInterval(Duration interval) {
        protocol.markerPruneInterval = interval;
        return self();
    }

    /**
     * What the sink does with prepared transactions of its sink id that another job left behind, when no
     * state of this sink is restored (a fresh start, or a restore without the sink's state): refuse to
     * start (FAIL, the default), or roll them back (ROLLBACK), for jobs whose sources replay everything
     * when they start without state. See {@link LeftoverPolicy}.
     */
    public SELF leftoverPolicy(LeftoverPolicy policy) {
        protocol.leftoverPolicy = Objects.requireNonNull(policy, "policy");
        return self();
    }

    /**
     * How many prepared, not yet committed transactions one writer subtask may hold (default {@value
     * SinkSettings#DEFAULT_MAX_PREPARED_PER_SUBTASK}, at least 2). When checkpoints keep failing after the
     * sink prepared, each leaves a transaction prepared until a later checkpoint completes; past this
     * bound the subtask fails over instead of exhausting the database's prepared transactions. Size the
     * database for parallelism x this bound per sink.
     */
    public SELF maxPreparedPerSubtask(int max) {
        if (max < 2) {
            throw new IllegalArgumentException("maxPreparedPerSubtask must be >= 2 (the transaction being committed "
                    + "and the next one), was " + max);
        }
        protocol.maxPreparedPerSubtask = max;
        return self();
    }

    /**
     * What a job restored from a checkpoint older than what the sink already committed does: warn and
     * replay (WARN, the default), or refuse to start (FAIL). See {@link RewindPolicy}.
     */
    public SELF rewindPolicy(RewindPolicy policy) {
        protocol.rewindPolicy = Objects.requireNonNull(policy, "policy");
        return self();
    }

    /** Retries of a commit whose outcome is unknown, before the task fails over (default 5). */
    public SELF commitRetries(int retries) {
        protocol.commitRetries = retries;
        return self();
    }

    /** The wait before the first retry of a commit (see {@link #commitRetries}; default 200 ms, positive). */
    public SELF commitRetryBackoff(Duration backoff) {
        protocol.commitRetryBackoff = backoff;
        return self();
    }

    /**
     * How long a transaction a writer prepared may stay prepared, its commit not known, before the
     * writer warns in its log, once per transaction, naming it and what to check (checkpoints that fail,
     * a committer that cannot commit). Default: three checkpoint intervals of the job, at least a
     * minute; 10 minutes when the sink cannot see the interval. The writer checks at every checkpoint
     * barrier and when an epoch begins.
     */
    public SELF preparedAgeWarning(Duration threshold) {
        if (threshold == null || threshold.isNegative() || threshold.isZero()) {
            throw new IllegalArgumentException("preparedAgeWarning must be a positive duration, was " + threshold);
        }
        protocol.preparedAgeWarning = threshold;
        return self();
    }

    /** How long a starting writer waits for the ownership guard held by a task going away (default 30 s). */
    public SELF claimWait(Duration wait) {
        protocol.claimWait = wait;
        return self();
    }

    // ---------------------------------------------------------------------------------------------
    // build()
    // ---------------------------------------------------------------------------------------------

    /**
     * The sink, once the settings are checked together. Throws {@link IllegalStateException}, naming the sink, the
     * setting and the remedy, without a sink id, with a null password, without exactly one of a JDBC URL and a data
     * source, with credentials or properties beside a data source, without a complete table (table, columns and rows)
     * or {@code sql(...)}, or with a write mode the sink does not support; {@link IllegalArgumentException} for a
     * duration or count out of its range.
     */
    public final ExactlyOnceSink<IN> build() {
        if (sinkId == null) {
            throw new IllegalStateException(
                    "sinkId is required: a stable name that every transaction id carries, e.g. sinkId(\"orders\")");
        }
        if (nullPassword) {
            throw misconfigured("password(null): the password given is null, most likely a secret or an environment "
                    + "variable that is not set. Remedy: pass the password; for a server that asks for none (trust or "
                    + "peer authentication, a client certificate), leave password(...) out");
        }
        if ((jdbcUrl == null) == !hasDataSource()) {
            throw misconfigured(
                    "give exactly one of jdbcUrl(...) (or connection(...)) and " + dataSourceSetter + "(...)");
        }
        if (hasDataSource() && !properties.isEmpty()) {
            throw misconfigured(
                    "username/password/property apply to jdbcUrl; configure the " + dataSourceType + " itself instead");
        }
        statement.choiceProblem().ifPresent(problem -> {
            throw misconfigured(problem);
        });
        statement.modeProblem(writeMode, upsertClause()).ifPresent(problem -> {
            throw misconfigured(problem);
        });
        JdbcSinkOptions.Builder<IN> shared = JdbcSinkOptions.builder(statement.toMode(writeMode))
                .batchSize(batchSize)
                .markerTable(markerTable)
                .createTables(createMarkerTable)
                .maxPreparedPerSubtask(protocol.maxPreparedPerSubtask);
        if (jdbcUrl != null) {
            shared.jdbcUrl(jdbcUrl, properties);
        }
        JdbcSinkOptions<IN> options = shared.build();
        checkOwnOptions(options);
        SinkSettings settings = protocol.toSinkSettings(sinkId);
        return new ExactlyOnceSink<>(database(options), settings, distribution(options));
    }

    /** Whether the concrete builder was given its data source (instead of {@link #jdbcUrl(String)}). */
    protected abstract boolean hasDataSource();

    /** The clause of the database's upsert statement, for messages: "ON CONFLICT". */
    protected abstract String upsertClause();

    /**
     * The rules of {@link #build()} on the concrete builder's own options, after the common ones, which
     * {@code options} passed: the sink id, one source of connections, a complete table mode or {@code
     * sql(...)}, and a write mode the sink supports.
     */
    protected void checkOwnOptions(JdbcSinkOptions<IN> options) {}

    /** The database of the sink, once {@link #build()} has checked the settings. */
    protected abstract TransactionalDatabase<IN> database(JdbcSinkOptions<IN> options);

    /**
     * How the writers' input is distributed, once {@link #build()} has checked the settings: with
     * {@link #upsert}, by the upsert key's values ({@link UpsertKeys}); otherwise as the job distributes it.
     */
    protected InputDistribution<IN> distribution(JdbcSinkOptions<IN> options) {
        if (options.writeMode() instanceof WriteMode.Upserts<IN> upserts) {
            return InputDistribution.byKey(UpsertKeys.of(upserts.table(), upserts.key()));
        }
        if (options.writeMode() instanceof WriteMode.Routed<IN> routed
                && routed.tables().group().isPresent()) {
            return InputDistribution.byKey(routed.tables().group().get());
        }
        return InputDistribution.asGiven();
    }

    /** A misconfiguration found by {@link #build()}, in a message that names the sink. */
    protected final IllegalStateException misconfigured(String problem) {
        return new IllegalStateException("sink '" + sinkId + "': " + problem);
    }
}
