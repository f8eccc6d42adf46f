/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkSettings;
import dev.eosink.jdbc.JdbcSinkBuilderBase;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * The options that {@code eosink-postgres} and {@code eosink-xa} share, in a table's {@code WITH (...)}
 * clause. Each mirrors the setter of {@link JdbcSinkBuilderBase} that it names, with the same default
 * and the same checks; the connectors add their own ({@link PostgresTableOptions}, {@link
 * XaTableOptions}) and {@code sink.parallelism}.
 */
@PublicEvolving
public final class JdbcTableOptions {

    private JdbcTableOptions() {}

    /**
     * {@code 'url'}, required: the JDBC URL, as {@link JdbcSinkBuilderBase#jdbcUrl} takes it; a scheme the connector's
     * builder does not know is refused.
     */
    public static final ConfigOption<String> URL = ConfigOptions.key("url")
            .stringType()
            .noDefaultValue()
            .withDescription("The database's JDBC URL (jdbcUrl). Driver properties may go in it (sslmode=...); "
                    + "messages show it with any password in it masked.");

    /** {@code 'username'}, optional: as {@link JdbcSinkBuilderBase#username}. */
    public static final ConfigOption<String> USERNAME = ConfigOptions.key("username")
            .stringType()
            .noDefaultValue()
            .withDescription("The database user the sink connects as (username).");

    /** {@code 'password'}, optional: as {@link JdbcSinkBuilderBase#password}; never shown. */
    public static final ConfigOption<String> PASSWORD = ConfigOptions.key("password")
            .stringType()
            .noDefaultValue()
            .withDescription("The user's password (password). Never shown in plans, summaries, logs or messages.");

    /** {@code driver}: flink-connector-jdbc's option, taken when it names the driver of the URL's scheme. */
    public static final ConfigOption<String> DRIVER = ConfigOptions.key("driver")
            .stringType()
            .noDefaultValue()
            .withDescription("Optional, as in flink-connector-jdbc: the class of the JDBC driver. The sink uses the "
                    + "driver that the URL's scheme names, so a value must be that driver's class "
                    + "(jdbc:postgresql: org.postgresql.Driver, jdbc:mariadb: org.mariadb.jdbc.Driver, jdbc:mysql: "
                    + "com.mysql.cj.jdbc.Driver); another is refused.");

    /**
     * {@code 'table-name'}, required: {@code name} or {@code schema.name}, as {@link JdbcSinkBuilderBase#table(String,
     * String)} takes them.
     */
    public static final ConfigOption<String> TABLE_NAME = ConfigOptions.key("table-name")
            .stringType()
            .noDefaultValue()
            .withDescription("The database table to write into (table): 'name', or 'schema.name' (MariaDB and "
                    + "MySQL: 'database.name'). Quoted as given, so case-sensitive. The Flink table's physical "
                    + "columns are written into the database table's columns of the same names.");

    /**
     * {@code 'sink.id'}, required: as {@link JdbcSinkBuilderBase#sinkId}, checked as {@link
     * dev.eosink.core.TransactionId#checkSinkId} checks it.
     */
    public static final ConfigOption<String> SINK_ID = ConfigOptions.key("sink.id")
            .stringType()
            .noDefaultValue()
            .withDescription("A stable name for this sink (sinkId), 1 to 100 of [A-Za-z0-9_.-], the first a letter or "
                    + "digit. Every transaction id carries it, and after a failure, a restart or a restore the sink "
                    + "finds its own prepared transactions by it, to commit or roll them back: keep it the same across "
                    + "restarts and upgrades of the job (a new one leaves the old one's prepared transactions behind, "
                    + "holding their locks), and give every sink writing to the same database its own.");

    /**
     * {@code 'sink.batch-size'} (or flink-connector-jdbc's {@code 'sink.buffer-flush.max-rows'}): as {@link
     * JdbcSinkBuilderBase#batchSize}; at least 1.
     */
    public static final ConfigOption<Integer> BATCH_SIZE = ConfigOptions.key("sink.batch-size")
            .intType()
            .defaultValue(JdbcSinkBuilderBase.DEFAULT_BATCH_SIZE)
            .withFallbackKeys("sink.buffer-flush.max-rows")
            .withDescription("Rows per JDBC batch or upsert statement, or at most held before they are sent (COPY) "
                    + "(batchSize). At least 1. flink-connector-jdbc's 'sink.buffer-flush.max-rows' is taken for it.");

    /** {@code 'sink.leftover-policy'}: as {@link JdbcSinkBuilderBase#leftoverPolicy}; FAIL or ROLLBACK. */
    public static final ConfigOption<LeftoverPolicy> LEFTOVER_POLICY = ConfigOptions.key("sink.leftover-policy")
            .enumType(LeftoverPolicy.class)
            .defaultValue(SinkSettings.DEFAULT_LEFTOVER_POLICY)
            .withDescription("What a job started without the sink's state does with prepared transactions of its "
                    + "sink.id that another job left (leftoverPolicy): FAIL refuses to start, naming them; ROLLBACK "
                    + "rolls them back, for sources that start over.");

    /**
     * {@code 'sink.dead-letter-table'}, optional: as {@link JdbcSinkBuilderBase#deadLetterTable}; refused with a
     * PRIMARY KEY.
     */
    public static final ConfigOption<String> DEAD_LETTER_TABLE = ConfigOptions.key("sink.dead-letter-table")
            .stringType()
            .noDefaultValue()
            .withDescription("Off unless set (deadLetterTable): 'name' or 'schema.name' of a table that rows the "
                    + "database refuses for their data go to, in the epoch's own transaction, instead of failing "
                    + "the job. Inserts only: not with a PRIMARY KEY.");

    /** {@code 'sink.marker-table'}: as {@link JdbcSinkBuilderBase#markerTable}. */
    public static final ConfigOption<String> MARKER_TABLE = ConfigOptions.key("sink.marker-table")
            .stringType()
            .defaultValue(JdbcSinkBuilderBase.DEFAULT_MARKER_TABLE)
            .withDescription("The table of the marker rows that prove which transactions committed (markerTable): "
                    + "'name' or 'schema.name'.");

    /** {@code 'sink.marker-table.create'}: as {@link JdbcSinkBuilderBase#createMarkerTable}. */
    public static final ConfigOption<Boolean> CREATE_MARKER_TABLE = ConfigOptions.key("sink.marker-table.create")
            .booleanType()
            .defaultValue(true)
            .withDescription(
                    "Whether the sink creates the marker table at start when it is missing " + "(createMarkerTable).");

    /** {@code 'sink.max-prepared-per-subtask'}: as {@link JdbcSinkBuilderBase#maxPreparedPerSubtask}; at least 2. */
    public static final ConfigOption<Integer> MAX_PREPARED_PER_SUBTASK = ConfigOptions.key(
                    "sink.max-prepared-per-subtask")
            .intType()
            .defaultValue(SinkSettings.DEFAULT_MAX_PREPARED_PER_SUBTASK)
            .withDescription("Prepared, uncommitted transactions one writer subtask may hold while checkpoints fail "
                    + "after it prepared (maxPreparedPerSubtask); past it the subtask fails over. At least 2, and 2 "
                    + "more than the job's concurrent checkpoints.");

    /** {@code 'sink.prepared-age-warning'}, optional: as {@link JdbcSinkBuilderBase#preparedAgeWarning}; positive. */
    public static final ConfigOption<Duration> PREPARED_AGE_WARNING = ConfigOptions.key("sink.prepared-age-warning")
            .durationType()
            .noDefaultValue()
            .withDescription("How long a transaction a writer prepared may stay prepared, its commit not known, "
                    + "before the writer warns in its log, once per transaction (preparedAgeWarning). Default: three "
                    + "checkpoint intervals, at least 1 min; 10 min when the sink cannot see the interval.");

    /** {@code sink.rewind-policy}: {@link JdbcSinkBuilderBase#rewindPolicy}. */
    public static final ConfigOption<RewindPolicy> REWIND_POLICY = ConfigOptions.key("sink.rewind-policy")
            .enumType(RewindPolicy.class)
            .defaultValue(SinkSettings.DEFAULT_REWIND_POLICY)
            .withDescription("What a job restored from a checkpoint older than what the sink committed since does "
                    + "(rewindPolicy): WARN logs what will be written again and goes on; FAIL refuses to start.");

    /** {@code sink.claim-wait}: {@link JdbcSinkBuilderBase#claimWait}. */
    public static final ConfigOption<Duration> CLAIM_WAIT = ConfigOptions.key("sink.claim-wait")
            .durationType()
            .defaultValue(SinkSettings.DEFAULT_CLAIM_WAIT)
            .withDescription("How long a starting writer waits for the ownership guard held by a task going away "
                    + "(claimWait). Zero or more.");

    /** {@code sink.marker-table.retention}: {@link JdbcSinkBuilderBase#markerRetention}. */
    public static final ConfigOption<Duration> MARKER_RETENTION = ConfigOptions.key("sink.marker-table.retention")
            .durationType()
            .defaultValue(SinkSettings.DEFAULT_MARKER_RETENTION)
            .withDescription("Marker rows older than this are pruned (markerRetention): keep it longer than the "
                    + "oldest savepoint you may restore. Positive.");

    /** {@code sink.marker-table.prune-interval}: {@link JdbcSinkBuilderBase#markerPruneInterval}. */
    public static final ConfigOption<Duration> MARKER_PRUNE_INTERVAL = ConfigOptions.key(
                    "sink.marker-table.prune-interval")
            .durationType()
            .defaultValue(SinkSettings.DEFAULT_MARKER_PRUNE_INTERVAL)
            .withDescription(
                    "How often subtask 0's committer prunes the marker table (markerPruneInterval). Positive.");

    /** {@code sink.commit-retries}: {@link JdbcSinkBuilderBase#commitRetries}. */
    public static final ConfigOption<Integer> COMMIT_RETRIES = ConfigOptions.key("sink.commit-retries")
            .intType()
            .defaultValue(SinkSettings.DEFAULT_COMMIT_RETRIES)
            .withDescription("How often a commit whose outcome is unknown is looked at again before the task fails "
                    + "over (commitRetries). Zero or more.");

    /** {@code sink.commit-retry-backoff}: {@link JdbcSinkBuilderBase#commitRetryBackoff}. */
    public static final ConfigOption<Duration> COMMIT_RETRY_BACKOFF = ConfigOptions.key("sink.commit-retry-backoff")
            .durationType()
            .defaultValue(SinkSettings.DEFAULT_COMMIT_RETRY_BACKOFF)
            .withDescription("The first wait between those looks, doubled each time (commitRetryBackoff). Positive.");
}
