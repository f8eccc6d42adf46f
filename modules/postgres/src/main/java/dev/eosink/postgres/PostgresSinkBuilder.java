package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.postgres.internal.InsertStatement;
import dev.eosink.postgres.internal.MarkerTable;
import dev.eosink.postgres.internal.PostgresDatabase;
import dev.eosink.postgres.internal.SqlIdentifier;

import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;
import org.apache.flink.util.function.SerializableSupplier;

import javax.sql.DataSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * Builds an exactly-once PostgreSQL sink. Each setter checks its own argument; {@link #build()}
 * checks the rules that span several settings. Messages name the setting and the remedy.
 */
public final class PostgresSinkBuilder<IN> {

    public static final int DEFAULT_BATCH_SIZE = 1000;
    public static final String DEFAULT_MARKER_TABLE = "eosink_markers";

    /** Default socket send buffer of the sink's connections: bounds the rows in flight at a barrier. */
    static final int SEND_BUFFER_BYTES = 64 * 1024;

    /**
     * Default of {@link #networkTimeout}: longer than the writer's lock_timeout (60 s), so that a lock
     * wait ends with its own clear error, and shorter than Flink's task cancellation timeout (180 s).
     */
    public static final Duration DEFAULT_NETWORK_TIMEOUT = Duration.ofSeconds(120);

    private String jdbcUrl;
    private final Properties properties = new Properties();
    private SerializableSupplier<DataSource> dataSource;

    private String sinkId;
    private SqlIdentifier table;
    private List<String> columns;
    private RowMapper<IN> rowMapper;
    private String sql;
    private JdbcStatementBuilder<IN> statementBuilder;

    private int batchSize = DEFAULT_BATCH_SIZE;
    private WriteMethod writeMethod = WriteMethod.COPY;
    private List<String> upsertKey;
    private RowKindFunction<IN> rowKind;
    private SqlIdentifier markerTable = new SqlIdentifier(null, DEFAULT_MARKER_TABLE);
    private boolean createMarkerTable = true;
    private LeftoverPolicy leftoverPolicy = LeftoverPolicy.ROLLBACK;
    private int commitRetries = SinkSettings.DEFAULT_COMMIT_RETRIES;
    private Duration commitRetryBackoff = SinkSettings.DEFAULT_COMMIT_RETRY_BACKOFF;
    private Duration claimWait = SinkSettings.DEFAULT_CLAIM_WAIT;
    private Duration markerRetention = SinkSettings.DEFAULT_MARKER_RETENTION;
    private Duration markerPruneInterval = SinkSettings.DEFAULT_MARKER_PRUNE_INTERVAL;
    private Duration networkTimeout = DEFAULT_NETWORK_TIMEOUT;
    private SqlIdentifier deadLetterTable;

    PostgresSinkBuilder() {}

    /** {@code jdbc:postgresql://host:port/database}; driver options may go in the URL or {@link #property}. */
    public PostgresSinkBuilder<IN> jdbcUrl(String jdbcUrl) {
        this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        PostgresConnection.of(jdbcUrl, new Properties()); // validates the scheme
        return this;
    }

    public PostgresSinkBuilder<IN> username(String username) {
        return property("user", Objects.requireNonNull(username, "username"));
    }

    public PostgresSinkBuilder<IN> password(String password) {
        return property("password", Objects.requireNonNull(password, "password"));
    }

    /**
     * A pgjdbc connection property (ssl, sslmode, sslrootcert, socketTimeout, ...), passed to the
     * driver as given. A property set here or in the URL wins over the sink's defaults (see {@link
     * #networkTimeout}).
     */
    public PostgresSinkBuilder<IN> property(String key, String value) {
        properties.setProperty(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /** URL, user, password and properties from flink-connector-jdbc's options. */
    public PostgresSinkBuilder<IN> connection(JdbcConnectionOptions options) {
        jdbcUrl(options.getDbURL());
        properties.putAll(options.getProperties());
        options.getUsername().ifPresent(this::username);
        options.getPassword().ifPresent(this::password);
        return this;
    }

    /** Connections from a DataSource built on the task managers (instead of a URL). */
    public PostgresSinkBuilder<IN> dataSource(SerializableSupplier<DataSource> supplier) {
        this.dataSource = Objects.requireNonNull(supplier, "supplier");
        return this;
    }

    /**
     * A stable name for this sink: every transaction id carries it, and recovery only ever touches
     * transactions of its own sink id. Keep it across restarts and upgrades of the job; give every
     * sink that writes to the same database its own.
     */
    public PostgresSinkBuilder<IN> sinkId(String sinkId) {
        this.sinkId = TransactionId.checkSinkId(sinkId);
        return this;
    }

    /** The table to insert into, resolved through the search_path. Case-sensitive: quoted as given. */
    public PostgresSinkBuilder<IN> table(String table) {
        this.table = new SqlIdentifier(null, table);
        return this;
    }

    public PostgresSinkBuilder<IN> table(String schema, String table) {
        this.table = new SqlIdentifier(schema, table);
        return this;
    }

    public PostgresSinkBuilder<IN> columns(String... columns) {
        List<String> list = Arrays.asList(columns);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("columns: give at least one column");
        }
        if (new HashSet<>(list).size() != list.size()) {
            throw new IllegalArgumentException("columns: a column is listed twice: " + list);
        }
        list.forEach(c -> new SqlIdentifier(null, c)); // validates each
        this.columns = new ArrayList<>(list);
        return this;
    }

    /** From a record to the values of {@link #columns}, in that order. */
    public PostgresSinkBuilder<IN> rows(RowMapper<IN> mapper) {
        this.rowMapper = Objects.requireNonNull(mapper, "mapper");
        return this;
    }

    /** Your own statement and binder, as with flink-connector-jdbc's {@code JdbcSink}. */
    public PostgresSinkBuilder<IN> sql(String sql, JdbcStatementBuilder<IN> statementBuilder) {
        if (sql == null || sql.isBlank()) {
            throw new IllegalArgumentException("sql: give an INSERT (or other DML) statement with ? parameters");
        }
        this.sql = sql;
        this.statementBuilder = Objects.requireNonNull(statementBuilder, "statementBuilder");
        return this;
    }

    /** Records per JDBC batch sent to the open transaction (default 1000). Memory holds one batch. */
    public PostgresSinkBuilder<IN> batchSize(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be >= 1, was " + batchSize);
        }
        this.batchSize = batchSize;
        return this;
    }

    /**
     * How inserts travel into the open transaction (default {@link WriteMethod#COPY}; {@code sql(...)}
     * always uses batches).
     */
    public PostgresSinkBuilder<IN> writeMethod(WriteMethod method) {
        this.writeMethod = Objects.requireNonNull(method, "method");
        return this;
    }

    /**
     * Upsert instead of insert: {@code INSERT ... ON CONFLICT (key) DO UPDATE} every other column. The
     * key columns must be among {@link #columns} and carry a unique index. Within one batch the last
     * record of a key wins.
     */
    public PostgresSinkBuilder<IN> upsert(String... keyColumns) {
        if (keyColumns.length == 0) {
            throw new IllegalArgumentException("upsert: give the key column(s)");
        }
        List<String> keys = Arrays.asList(keyColumns);
        keys.forEach(c -> new SqlIdentifier(null, c));
        this.upsertKey = new ArrayList<>(keys);
        return this;
    }

    /** For changelog streams with {@link #upsert}: which records are deletes. */
    public PostgresSinkBuilder<IN> changelog(RowKindFunction<IN> rowKind) {
        this.rowKind = Objects.requireNonNull(rowKind, "rowKind");
        return this;
    }

    /** The marker table (default {@value #DEFAULT_MARKER_TABLE}, through the search_path). */
    public PostgresSinkBuilder<IN> markerTable(String schema, String table) {
        this.markerTable = new SqlIdentifier(schema, table);
        return this;
    }

    /**
     * Off by default: a record the database refuses (NULL in a NOT NULL column, a constraint, a value
     * too long or of the wrong type) or that the row mapper cannot map fails the job. With a
     * dead-letter table, such records go there instead, with the database's error, in the epoch's own
     * transaction: the rest of the epoch commits, and the refused records are kept exactly once too.
     * Inserts then go as JDBC batches (a refused row would abort a COPY); not with {@link #upsert}.
     * Created when missing, like the marker table; the role needs INSERT on it.
     */
    public PostgresSinkBuilder<IN> deadLetterTable(String schema, String table) {
        this.deadLetterTable = new SqlIdentifier(schema, table);
        return this;
    }

    /** Whether the sink may create the marker table when it is missing (default true). */
    public PostgresSinkBuilder<IN> createMarkerTable(boolean create) {
        this.createMarkerTable = create;
        return this;
    }

    /** Marker rows older than this are deleted (default 7 days). Keep it longer than savepoints you may restore. */
    public PostgresSinkBuilder<IN> markerRetention(Duration retention) {
        this.markerRetention = retention;
        return this;
    }

    public PostgresSinkBuilder<IN> markerPruneInterval(Duration interval) {
        this.markerPruneInterval = interval;
        return this;
    }

    /** What a fresh start (no restored state) does with leftover prepared transactions (default ROLLBACK). */
    public PostgresSinkBuilder<IN> leftoverPolicy(LeftoverPolicy policy) {
        this.leftoverPolicy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /** Retries of a commit whose outcome is unknown, before the task fails over (default 5). */
    public PostgresSinkBuilder<IN> commitRetries(int retries) {
        this.commitRetries = retries;
        return this;
    }

    public PostgresSinkBuilder<IN> commitRetryBackoff(Duration backoff) {
        this.commitRetryBackoff = backoff;
        return this;
    }

    /** How long a starting writer waits for the ownership guard held by a task going away (default 30 s). */
    public PostgresSinkBuilder<IN> claimWait(Duration wait) {
        this.claimWait = wait;
        return this;
    }

    /**
     * How long the sink waits on the database before it gives up on a connection (default 120 s):
     * the driver's {@code socketTimeout} (reads), unless set as a property or in the URL, and the
     * bound of every call of an epoch or a commit, writes included (a write into a stalled network
     * blocks for ever otherwise): the connection is aborted and the task fails over, or the commit is
     * retried. Keep it above the longest statement you expect (a PREPARE checking deferred constraints
     * of a big epoch, a commit waiting for a synchronous standby). {@link Duration#ZERO} turns both
     * off; a call of a task that Flink cancels is aborted at once either way.
     */
    public PostgresSinkBuilder<IN> networkTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || (!timeout.isZero() && timeout.compareTo(Duration.ofSeconds(1)) < 0)) {
            throw new IllegalArgumentException("networkTimeout must be at least 1 s, or zero to wait for ever; was " + timeout);
        }
        this.networkTimeout = timeout;
        return this;
    }

    /**
     * The driver properties: the user's, plus the sink's defaults for what the user left unset (in
     * the properties and in the URL): a read timeout, so that no call waits for ever on a silent
     * server, TCP keepalive, so that an idle connection to a vanished server is noticed, and a small
     * socket send buffer ({@value #SEND_BUFFER_BYTES} bytes).
     *
     * <p>Why the send buffer: COPY streams rows without waiting for answers, so when the server is
     * the slower side, the rows it has not yet stored wait in socket buffers, which Linux grows to
     * megabytes. At the barrier the writer ends the COPY and must wait until the server has stored
     * all of them before it can prepare: measured here, 75-540 ms with the kernel's buffer, 3-27 ms
     * with 64 KiB, at the same throughput (the sender blocks earlier, not longer).
     */
    private Properties driverProperties() {
        Properties effective = new Properties();
        effective.putAll(properties);
        if (!networkTimeout.isZero()) {
            long seconds = (networkTimeout.toMillis() + 999) / 1000;
            setUnlessGiven(effective, "socketTimeout", String.valueOf(seconds));
        }
        setUnlessGiven(effective, "tcpKeepAlive", "true");
        setUnlessGiven(effective, "sendBufferSize", String.valueOf(SEND_BUFFER_BYTES));
        return effective;
    }

    private void setUnlessGiven(Properties effective, String key, String value) {
        if (!effective.containsKey(key) && !PostgresConnection.urlSets(jdbcUrl, key)) {
            effective.setProperty(key, value);
        }
    }

    public ExactlyOnceSink<IN> build() {
        if (sinkId == null) {
            throw new IllegalStateException(
                    "sinkId is required: a stable name that every transaction id carries, e.g. sinkId(\"orders\")");
        }
        if ((jdbcUrl == null) == (dataSource == null)) {
            throw new IllegalStateException(
                    "sink '" + sinkId + "': give exactly one of jdbcUrl(...) (or connection(...)) and dataSource(...)");
        }
        if (dataSource != null && !properties.isEmpty()) {
            throw new IllegalStateException(
                    "sink '" + sinkId + "': username/password/property apply to jdbcUrl; configure the DataSource itself instead");
        }
        boolean tableMode = table != null || columns != null || rowMapper != null;
        if (tableMode == (sql != null)) {
            throw new IllegalStateException(
                    "sink '" + sinkId + "': give either table(...) + columns(...) + rows(...), or sql(...) with a "
                            + "JdbcStatementBuilder, not both and not neither");
        }
        if (upsertKey != null || rowKind != null) {
            if (!tableMode) {
                throw new IllegalStateException("sink '" + sinkId + "': upsert(...) and changelog(...) need table(...) + "
                        + "columns(...) + rows(...); with sql(...) write the ON CONFLICT clause yourself");
            }
            if (upsertKey == null) {
                throw new IllegalStateException("sink '" + sinkId + "': changelog(...) deletes by key: also give upsert(key columns)");
            }
            if (columns != null && !columns.containsAll(upsertKey)) {
                throw new IllegalStateException("sink '" + sinkId + "': upsert key " + upsertKey + " must be among the columns " + columns);
            }
        }
        if (deadLetterTable != null && upsertKey != null) {
            throw new IllegalStateException("sink '" + sinkId + "': deadLetterTable(...) works with inserts only: an upsert "
                    + "statement writes a whole batch at once, so one refused record cannot be told from the others");
        }
        InsertStatement<IN> statement;
        if (tableMode) {
            if (table == null || columns == null || rowMapper == null) {
                throw new IllegalStateException(
                        "sink '" + sinkId + "': table mode needs all of table(...), columns(...) and rows(...); missing "
                                + (table == null ? "table " : "")
                                + (columns == null ? "columns " : "")
                                + (rowMapper == null ? "rows" : ""));
            }
            statement = InsertStatement.forColumns(table, columns, rowMapper);
        } else {
            statement = InsertStatement.forSql(sql, statementBuilder);
        }
        PostgresConnection connection =
                dataSource != null ? PostgresConnection.of(dataSource) : PostgresConnection.of(jdbcUrl, driverProperties());
        SinkSettings settings =
                new SinkSettings(
                        sinkId,
                        leftoverPolicy,
                        commitRetries,
                        commitRetryBackoff,
                        claimWait,
                        markerRetention,
                        markerPruneInterval);
        return new ExactlyOnceSink<>(
                new PostgresDatabase<>(
                        connection,
                        statement,
                        new MarkerTable(markerTable),
                        createMarkerTable,
                        batchSize,
                        writeMethod,
                        upsertKey,
                        rowKind,
                        networkTimeout,
                        deadLetterTable),
                settings);
    }
}
