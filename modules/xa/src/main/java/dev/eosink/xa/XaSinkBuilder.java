package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.postgres.RowMapper;
import dev.eosink.postgres.internal.InsertStatement;
import dev.eosink.postgres.internal.SqlIdentifier;
import dev.eosink.xa.internal.XaConnector;
import dev.eosink.xa.internal.XaDatabase;

import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;
import org.apache.flink.util.function.SerializableSupplier;

import javax.sql.XADataSource;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * Builds an exactly-once sink into an XA database. Each setter checks its own argument; {@link
 * #build()} checks the rules that span several settings. The options mean what they mean for {@code
 * PostgresSink.builder()}; the protocol options go to the same {@link SinkSettings}.
 */
public final class XaSinkBuilder<IN> {

    public static final int DEFAULT_BATCH_SIZE = 1000;
    public static final String DEFAULT_MARKER_TABLE = "eosink_markers";

    private String jdbcUrl;
    private final Properties properties = new Properties();
    private SerializableSupplier<XADataSource> xaDataSource;

    private String sinkId;
    private String schema;
    private String table;
    private List<String> columns;
    private RowMapper<IN> rowMapper;
    private String sql;
    private JdbcStatementBuilder<IN> statementBuilder;

    private int batchSize = DEFAULT_BATCH_SIZE;
    private String markerSchema;
    private String markerTable = DEFAULT_MARKER_TABLE;
    private boolean createMarkerTable = true;
    private LeftoverPolicy leftoverPolicy = LeftoverPolicy.ROLLBACK;
    private int commitRetries = SinkSettings.DEFAULT_COMMIT_RETRIES;
    private Duration commitRetryBackoff = SinkSettings.DEFAULT_COMMIT_RETRY_BACKOFF;
    private Duration claimWait = SinkSettings.DEFAULT_CLAIM_WAIT;
    private Duration markerRetention = SinkSettings.DEFAULT_MARKER_RETENTION;
    private Duration markerPruneInterval = SinkSettings.DEFAULT_MARKER_PRUNE_INTERVAL;

    XaSinkBuilder() {}

    /** {@code jdbc:mariadb://...}, {@code jdbc:mysql://...} or {@code jdbc:postgresql://...}. */
    public XaSinkBuilder<IN> jdbcUrl(String jdbcUrl) {
        XaConnector.of(jdbcUrl, new Properties()); // validates the scheme
        this.jdbcUrl = jdbcUrl;
        return this;
    }

    public XaSinkBuilder<IN> username(String username) {
        return property("user", Objects.requireNonNull(username, "username"));
    }

    public XaSinkBuilder<IN> password(String password) {
        return property("password", Objects.requireNonNull(password, "password"));
    }

    /** A driver connection property (sslMode, socketTimeout, ...). */
    public XaSinkBuilder<IN> property(String key, String value) {
        properties.setProperty(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /** URL, user, password and properties from flink-connector-jdbc's options. */
    public XaSinkBuilder<IN> connection(JdbcConnectionOptions options) {
        jdbcUrl(options.getDbURL());
        properties.putAll(options.getProperties());
        options.getUsername().ifPresent(this::username);
        options.getPassword().ifPresent(this::password);
        return this;
    }

    /** Any database's {@link XADataSource}, built on the task managers (instead of a URL). */
    public XaSinkBuilder<IN> xaDataSource(SerializableSupplier<XADataSource> supplier) {
        this.xaDataSource = Objects.requireNonNull(supplier, "supplier");
        return this;
    }

    /** A stable name every transaction id carries; keep it across restarts, unique per sink and database. */
    public XaSinkBuilder<IN> sinkId(String sinkId) {
        this.sinkId = TransactionId.checkSinkId(sinkId);
        return this;
    }

    /** The table to insert into, in the connection's database or schema. Quoted as given. */
    public XaSinkBuilder<IN> table(String table) {
        return table(null, table);
    }

    /** A table in another schema (PostgreSQL) or database (MariaDB). */
    public XaSinkBuilder<IN> table(String schema, String table) {
        new SqlIdentifier(schema, table); // validates both
        this.schema = schema;
        this.table = table;
        return this;
    }

    public XaSinkBuilder<IN> columns(String... columns) {
        List<String> list = Arrays.asList(columns);
        if (list.isEmpty() || new HashSet<>(list).size() != list.size()) {
            throw new IllegalArgumentException("columns: give at least one column, each once: " + list);
        }
        list.forEach(c -> new SqlIdentifier(null, c));
        this.columns = List.copyOf(list);
        return this;
    }

    /** From a record to the values of {@link #columns}, in that order. */
    public XaSinkBuilder<IN> rows(RowMapper<IN> mapper) {
        this.rowMapper = Objects.requireNonNull(mapper, "mapper");
        return this;
    }

    /** Your own statement and binder, as with flink-connector-jdbc's {@code JdbcSink}. */
    public XaSinkBuilder<IN> sql(String sql, JdbcStatementBuilder<IN> statementBuilder) {
        if (sql == null || sql.isBlank()) {
            throw new IllegalArgumentException("sql: give an INSERT (or other DML) statement with ? parameters");
        }
        this.sql = sql;
        this.statementBuilder = Objects.requireNonNull(statementBuilder, "statementBuilder");
        return this;
    }

    /** Records per JDBC batch sent into the open branch (default 1000). */
    public XaSinkBuilder<IN> batchSize(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be >= 1, was " + batchSize);
        }
        this.batchSize = batchSize;
        return this;
    }

    /** The marker table (default {@value #DEFAULT_MARKER_TABLE} in the connection's database or schema). */
    public XaSinkBuilder<IN> markerTable(String schema, String table) {
        new SqlIdentifier(schema, table);
        this.markerSchema = schema;
        this.markerTable = table;
        return this;
    }

    public XaSinkBuilder<IN> createMarkerTable(boolean create) {
        this.createMarkerTable = create;
        return this;
    }

    public XaSinkBuilder<IN> markerRetention(Duration retention) {
        this.markerRetention = retention;
        return this;
    }

    public XaSinkBuilder<IN> markerPruneInterval(Duration interval) {
        this.markerPruneInterval = interval;
        return this;
    }

    public XaSinkBuilder<IN> leftoverPolicy(LeftoverPolicy policy) {
        this.leftoverPolicy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    public XaSinkBuilder<IN> commitRetries(int retries) {
        this.commitRetries = retries;
        return this;
    }

    public XaSinkBuilder<IN> commitRetryBackoff(Duration backoff) {
        this.commitRetryBackoff = backoff;
        return this;
    }

    public XaSinkBuilder<IN> claimWait(Duration wait) {
        this.claimWait = wait;
        return this;
    }

    public ExactlyOnceSink<IN> build() {
        if (sinkId == null) {
            throw new IllegalStateException(
                    "sinkId is required: a stable name that every transaction id carries, e.g. sinkId(\"orders\")");
        }
        if ((jdbcUrl == null) == (xaDataSource == null)) {
            throw new IllegalStateException(
                    "sink '" + sinkId + "': give exactly one of jdbcUrl(...) (or connection(...)) and xaDataSource(...)");
        }
        if (xaDataSource != null && !properties.isEmpty()) {
            throw new IllegalStateException("sink '" + sinkId
                    + "': username/password/property apply to jdbcUrl; configure the XADataSource itself instead");
        }
        boolean tableMode = table != null || columns != null || rowMapper != null;
        if (tableMode == (sql != null)) {
            throw new IllegalStateException("sink '" + sinkId + "': give either table(...) + columns(...) + rows(...), "
                    + "or sql(...) with a JdbcStatementBuilder, not both and not neither");
        }
        InsertStatement<IN> statement;
        if (tableMode) {
            if (table == null || columns == null || rowMapper == null) {
                throw new IllegalStateException("sink '" + sinkId + "': table mode needs all of table(...), columns(...) "
                        + "and rows(...)");
            }
            // Binds by position exactly like the PostgreSQL sink; the SQL text comes from the database's dialect.
            statement = InsertStatement.forColumns(new SqlIdentifier(schema, table), columns, rowMapper);
        } else {
            statement = InsertStatement.forSql(sql, statementBuilder);
        }
        XaConnector connector = xaDataSource != null ? XaConnector.of(xaDataSource) : XaConnector.of(jdbcUrl, properties);
        SinkSettings settings = new SinkSettings(sinkId, leftoverPolicy, commitRetries, commitRetryBackoff, claimWait,
                markerRetention, markerPruneInterval);
        return new ExactlyOnceSink<>(new XaDatabase<>(connector, statement, schema, tableMode ? table : null, columns,
                markerSchema, markerTable, createMarkerTable, batchSize), settings);
    }
}
