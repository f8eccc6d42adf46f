/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.InputDistribution;
import dev.eosink.jdbc.JdbcSinkBuilderBase;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.RowMapper;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.postgres.internal.PostgresConnection;
import dev.eosink.postgres.internal.PostgresDatabase;
import dev.eosink.postgres.internal.PostgresSinkOptions;
import dev.eosink.postgres.internal.PostgresTarget;
import dev.eosink.postgres.internal.RowAction;
import dev.eosink.postgres.row.RowFormat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.function.SerializableSupplier;

import javax.sql.DataSource;

import java.time.Duration;
import java.util.Objects;
import java.util.Properties;

/**
 * Builds an exactly-once PostgreSQL sink. Each setter checks its own argument; {@link #build()}
 * checks the rules that span several settings. Messages name the setting and the remedy. The options
 * it shares with {@code XaSink.builder()} are those of {@link JdbcSinkBuilderBase}.
 *
 * <p><b>Upserts.</b> {@link #upsert} writes {@code INSERT ... ON CONFLICT (key) DO UPDATE}; the key
 * columns must carry a unique index. The last record of a key wins, with keys compared as that index
 * compares them: char(n) keys ignore trailing spaces; citext keys and keys with a nondeterministic
 * collation go as statements only (no COPY), merged by the database's own equality; citext with a
 * nondeterministic collation is refused at start. Records written by a {@link #rowFormat} are
 * distributed by their caller instead of by the sink (the SQL connector partitions them by the
 * primary key). {@link #changelog} deletes by key. {@link #deadLetterTable} sends inserts as JDBC
 * batches (a refused row would abort a COPY).
 */
@PublicEvolving
public final class PostgresSinkBuilder<IN> extends JdbcSinkBuilderBase<IN, PostgresSinkBuilder<IN>> {

    /** Default socket send buffer of the sink's connections: bounds the rows in flight at a barrier. */
    static final int SEND_BUFFER_BYTES = 64 * 1024;

    /**
     * Default of {@link #networkTimeout}: longer than the writer's lock_timeout (60 s), so that a lock
     * wait ends with its own clear error, and shorter than Flink's task cancellation timeout (180 s).
     */
    public static final Duration DEFAULT_NETWORK_TIMEOUT = Duration.ofSeconds(120);

    /** Default of {@link #maxCopyBacklog}: 512 KiB, eight times what one send carries. */
    public static final long DEFAULT_MAX_COPY_BACKLOG = 512 * 1024;

    private SerializableSupplier<DataSource> dataSource;

    private WriteMethod writeMethod = WriteMethod.COPY;
    private Duration networkTimeout = DEFAULT_NETWORK_TIMEOUT;
    private long maxCopyBacklog = DEFAULT_MAX_COPY_BACKLOG;
    /** Records written field by field instead of through the row mapper; null: the row mapper's rows. */
    private RowFormat<IN, ?> rowFormat;

    PostgresSinkBuilder() {
        super("dataSource", "DataSource");
    }

    /** {@code jdbc:postgresql://host:port/database}; driver options may go in the URL or {@link #property}. */
    @Override
    public PostgresSinkBuilder<IN> jdbcUrl(String jdbcUrl) {
        PostgresConnection.of(Objects.requireNonNull(jdbcUrl, "jdbcUrl"), new Properties()); // validates the scheme
        return setJdbcUrl(jdbcUrl);
    }

    /**
     * Connections from a DataSource built on the task managers (instead of a URL). The supplier is
     * called for every connection the sink opens: return one shared instance, not a new pool per call.
     * A pooling DataSource works: a writer's session holds the ownership guard, so a closing writer
     * releases its guards and ends its physical session rather than hand it back to the pool.
     */
    public PostgresSinkBuilder<IN> dataSource(SerializableSupplier<DataSource> supplier) {
        this.dataSource = Objects.requireNonNull(supplier, "supplier");
        return this;
    }

    /** From a record to the values of {@link #columns}, in that order; replaces a {@link #rowFormat}. */
    @Override
    public PostgresSinkBuilder<IN> rows(RowMapper<IN> mapper) {
        this.rowFormat = null;
        return super.rows(mapper);
    }

    /**
     * Records written into {@link #columns} field by field, by {@code format}, instead of through a
     * {@link #rows row mapper}'s {@code Object[]}: for this project's entries that know their records'
     * types ({@code dev.eosink.postgres.table.PostgresRowDataSink}). Replaces a row mapper.
     */
    @Internal
    public PostgresSinkBuilder<IN> rowFormat(RowFormat<IN, ?> format) {
        this.rowFormat = Objects.requireNonNull(format, "format");
        // Table mode asks for a row mapper; with a format it is never called.
        return super.rows(record -> {
            throw new IllegalStateException("records are written by their row format");
        });
    }

    /**
     * Many tables instead of one: {@code tables}' route turns each record into upserts and deletes of the
     * tables it declares, and every table an epoch touched commits in the subtask's one transaction, so a reader
     * never sees part of a record (docs/tables.md). Each table's key must carry a unique index; foreign keys
     * between the tables are kept: DEFERRABLE ones are deferred to the commit, NOT DEFERRABLE ones by applying
     * parents' upserts first and children's deletes first (a cycle of those is refused at start). Records are
     * written by the subtask that receives them: send the records that must commit together (a consistency
     * group) to one subtask, or name the group ({@code RoutedTables.Builder.groupedBy}) and the sink distributes
     * its input by it. Replaces {@link #table}, {@link #columns}, {@link #rows}, {@link #sql} and
     * {@link #upsert}, which it refuses beside it.
     */
    public PostgresSinkBuilder<IN> tables(RoutedTables<IN> tables) {
        return setRoutes(tables);
    }

    /**
     * How rows travel into the open transaction (default {@link WriteMethod#COPY}; {@code sql(...)}
     * always uses batches). With {@link #upsert}, COPY carries keys the subtask never wrote and
     * statements the rest; {@link WriteMethod#BATCH} sends every upsert as a statement. COPY is also
     * off, by itself, for a view or a table whose row-level security applies to the sink's role.
     */
    public PostgresSinkBuilder<IN> writeMethod(WriteMethod method) {
        this.writeMethod = Objects.requireNonNull(method, "method");
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
            throw new IllegalArgumentException(
                    "networkTimeout must be at least 1 s, or zero to wait for ever; was " + timeout);
        }
        this.networkTimeout = timeout;
        return this;
    }

    /**
     * COPY flow control (default {@value #DEFAULT_MAX_COPY_BACKLOG} bytes; 0 turns it off): how much
     * COPY data the server may have received and not yet read. Ending the COPY at a checkpoint barrier
     * waits for the server to store all of it before PREPARE, so this bounds that wait to the time the
     * server needs to store this many bytes (without it, the server's kernel queues megabytes when the
     * server is the slower side, which the client cannot bound otherwise).
     *
     * <p>The writer reads the server's own progress ({@code pg_stat_progress_copy}, PostgreSQL 14+)
     * over one more connection per writing subtask, opened when first needed, and waits while the
     * backlog is above this bound, until it is below half of it. It costs a small query every few
     * sends while the server is behind, and a little throughput (docs/benchmarks.md and the
     * trade-offs of docs/design-and-recovery.md give the measured figures). On PostgreSQL before 14, or when the monitor connection
     * fails, flow control turns off with one warning and rows are written as before. Raise it for a
     * server far away (a bound smaller than the bandwidth-delay product leaves the network idle); turn
     * it off if one more connection per subtask is too many.
     */
    public PostgresSinkBuilder<IN> maxCopyBacklog(long bytes) {
        if (bytes != 0 && bytes < 64 * 1024) {
            throw new IllegalArgumentException("maxCopyBacklog must be at least 65536 bytes (64 KiB, what one send "
                    + "carries), or 0 to turn COPY flow control off; was " + bytes);
        }
        this.maxCopyBacklog = bytes;
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
    private Properties driverProperties(JdbcSinkOptions<IN> options) {
        Properties effective = options.properties();
        String url = options.jdbcUrl().orElseThrow();
        if (!networkTimeout.isZero()) {
            long seconds = (networkTimeout.toMillis() + 999) / 1000;
            setUnlessGiven(effective, url, "socketTimeout", String.valueOf(seconds));
        }
        setUnlessGiven(effective, url, "tcpKeepAlive", "true");
        setUnlessGiven(effective, url, "sendBufferSize", String.valueOf(SEND_BUFFER_BYTES));
        return effective;
    }

    private static void setUnlessGiven(Properties effective, String url, String key, String value) {
        if (!effective.containsKey(key) && !JdbcUrls.sets(url, key)) {
            effective.setProperty(key, value);
        }
    }

    @Override
    protected boolean hasDataSource() {
        return dataSource != null;
    }

    @Override
    protected String upsertClause() {
        return "ON CONFLICT";
    }

    /** Records of a {@link #rowFormat} are distributed by their caller; otherwise as the base decides. */
    @Override
    protected InputDistribution<IN> distribution(JdbcSinkOptions<IN> options) {
        return rowFormat != null ? InputDistribution.asGiven() : super.distribution(options);
    }

    @Override
    protected PostgresDatabase<IN> database(JdbcSinkOptions<IN> common) {
        PostgresConnection connection = dataSource != null
                ? PostgresConnection.of(dataSource)
                : PostgresConnection.of(common.jdbcUrl().orElseThrow(), driverProperties(common));
        if (common.writeMode() instanceof WriteMode.Routed<IN> routed) {
            return new PostgresDatabase<>(PostgresSinkOptions.builder(
                            connection,
                            new PostgresTarget.Tables<>(routed.tables()),
                            new MarkerTable(common.markerTable()))
                    .createTables(common.createTables())
                    .batchSize(common.batchSize())
                    .writeMethod(WriteMethod.BATCH) // statements: rows of a route go as text, never by COPY
                    .networkTimeout(networkTimeout)
                    .maxCopyBacklog(0)
                    .maxPreparedPerSubtask(common.maxPreparedPerSubtask())
                    .build());
        }
        RowAction<IN> rowAction = RowAction.insert();
        RefusedRecords refused = RefusedRecords.failTheEpoch();
        if (common.writeMode() instanceof WriteMode.Inserts<IN> inserts) {
            refused = inserts.refused();
        } else if (common.writeMode() instanceof WriteMode.Upserts<IN> upserts) {
            RowKindFunction<IN> kinds = upserts.changelog()
                    .<RowKindFunction<IN>>map(given -> given::kindOf)
                    .orElse(
                            rowFormat != null
                                    ? rowFormat.rowKinds().orElse(null)
                                    : null); // records that carry their kind
            rowAction = kinds == null ? RowAction.upsert(upserts.key()) : RowAction.upsert(upserts.key(), kinds);
        }
        PostgresSinkOptions.Builder<IN> options =
                PostgresSinkOptions.builder(connection, common.statement(), new MarkerTable(common.markerTable()));
        if (rowFormat != null) {
            options.rowFormat(rowFormat);
        }
        return new PostgresDatabase<>(options.createTables(common.createTables())
                .batchSize(common.batchSize())
                .writeMethod(writeMethod)
                .rowAction(rowAction)
                .networkTimeout(networkTimeout)
                .refusedRecords(refused)
                .maxCopyBacklog(maxCopyBacklog)
                .maxPreparedPerSubtask(common.maxPreparedPerSubtask())
                .build());
    }
}
