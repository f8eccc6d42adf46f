/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import dev.eosink.jdbc.JdbcSinkBuilderBase;
import dev.eosink.sql.JdbcTableOptions;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Sets what both connectors share on their builder: the options of {@link JdbcTableOptions}; for a
 * sink that binds its rows through JDBC, the table's physical columns with the conversion of its rows;
 * and, for a table with a primary key, upserts and deletes by that key.
 */
@Internal
public final class CommonOptions {

    private CommonOptions() {}

    /** The options every connector requires. */
    public static Set<ConfigOption<?>> required() {
        return new LinkedHashSet<>(
                List.of(JdbcTableOptions.URL, JdbcTableOptions.TABLE_NAME, JdbcTableOptions.SINK_ID));
    }

    /** The options every connector takes ({@link #apply} sets them), then {@code specific} ones, in that order. */
    public static Set<ConfigOption<?>> optional(ConfigOption<?>... specific) {
        Set<ConfigOption<?>> options = new LinkedHashSet<>(List.of(
                JdbcTableOptions.USERNAME,
                JdbcTableOptions.PASSWORD,
                JdbcTableOptions.DRIVER,
                JdbcTableOptions.BATCH_SIZE,
                JdbcTableOptions.LEFTOVER_POLICY,
                JdbcTableOptions.DEAD_LETTER_TABLE,
                JdbcTableOptions.MARKER_TABLE,
                JdbcTableOptions.CREATE_MARKER_TABLE,
                JdbcTableOptions.MAX_PREPARED_PER_SUBTASK,
                JdbcTableOptions.PREPARED_AGE_WARNING,
                JdbcTableOptions.REWIND_POLICY,
                JdbcTableOptions.CLAIM_WAIT,
                JdbcTableOptions.MARKER_RETENTION,
                JdbcTableOptions.MARKER_PRUNE_INTERVAL,
                JdbcTableOptions.COMMIT_RETRIES,
                JdbcTableOptions.COMMIT_RETRY_BACKOFF));
        options.addAll(List.of(specific));
        options.add(FactoryUtil.SINK_PARALLELISM);
        return options;
    }

    /** Sets the options both connectors share; the rows are the caller's ({@link #rowsAsObjects}, or its own). */
    public static <B extends JdbcSinkBuilderBase<RowData, B>> void apply(TableOptions options, B builder) {
        options.set(JdbcTableOptions.URL, builder::jdbcUrl);
        options.set(JdbcTableOptions.USERNAME, builder::username);
        options.setSecret(JdbcTableOptions.PASSWORD, builder::password);
        options.setQualifiedName(JdbcTableOptions.TABLE_NAME, builder::table);
        options.set(JdbcTableOptions.SINK_ID, builder::sinkId);
        options.set(JdbcTableOptions.BATCH_SIZE, builder::batchSize);
        options.set(JdbcTableOptions.LEFTOVER_POLICY, builder::leftoverPolicy);
        options.setQualifiedName(JdbcTableOptions.DEAD_LETTER_TABLE, builder::deadLetterTable);
        options.setQualifiedName(JdbcTableOptions.MARKER_TABLE, builder::markerTable);
        options.set(JdbcTableOptions.CREATE_MARKER_TABLE, builder::createMarkerTable);
        options.set(JdbcTableOptions.MAX_PREPARED_PER_SUBTASK, builder::maxPreparedPerSubtask);
        options.set(JdbcTableOptions.PREPARED_AGE_WARNING, builder::preparedAgeWarning);
        options.set(JdbcTableOptions.REWIND_POLICY, builder::rewindPolicy);
        // The builder checks these at build(), in a message that names its setter: checked here too, so
        // that the refusal names the option.
        options.set(JdbcTableOptions.CLAIM_WAIT, wait -> builder.claimWait(notNegative(wait)));
        options.set(JdbcTableOptions.MARKER_RETENTION, retention -> builder.markerRetention(positive(retention)));
        options.set(
                JdbcTableOptions.MARKER_PRUNE_INTERVAL, interval -> builder.markerPruneInterval(positive(interval)));
        options.set(JdbcTableOptions.COMMIT_RETRIES, retries -> {
            if (retries < 0) {
                throw new IllegalArgumentException("Expected 0 or more.");
            }
            builder.commitRetries(retries);
        });
        options.set(JdbcTableOptions.COMMIT_RETRY_BACKOFF, backoff -> builder.commitRetryBackoff(positive(backoff)));
    }

    private static Duration positive(Duration duration) {
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("Expected a positive duration.");
        }
        return duration;
    }

    private static Duration notNegative(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("Expected zero or a positive duration.");
        }
        return duration;
    }

    /**
     * Writes the table's physical columns, each row converted into the Java values a JDBC driver binds
     * ({@link RowDataToObjects}): for sinks that bind parameters through JDBC alone.
     */
    public static <B extends JdbcSinkBuilderBase<RowData, B>> void rowsAsObjects(
            TableOptions options, B builder, TableColumns columns) {
        RowDataToObjects rows;
        try {
            rows = RowDataToObjects.of(columns.rowType());
        } catch (IllegalArgumentException e) {
            throw options.refused(e.getMessage());
        }
        builder.columns(columns.names().toArray(String[]::new)).rows(rows);
    }

    /**
     * With a primary key, makes the sink upsert by it and take the table's changelog: INSERT and
     * UPDATE_AFTER rows upsert their key, DELETE and UPDATE_BEFORE rows delete it (the planner sends
     * UPDATE_BEFORE after a filter on an updating result, {@link ExactlyOnceTableSink}). Without one,
     * the sink inserts, as built. A dead-letter table given together with a primary key is refused,
     * naming the table, the option and the key.
     */
    public static <B extends JdbcSinkBuilderBase<RowData, B>> void upsertByPrimaryKey(
            TableOptions options, B builder, TableColumns columns) {
        if (!columns.hasPrimaryKey()) {
            return;
        }
        if (options.get(JdbcTableOptions.DEAD_LETTER_TABLE).isPresent()) {
            throw options.refused("'" + JdbcTableOptions.DEAD_LETTER_TABLE.key() + "' works with inserts only, and the "
                    + "PRIMARY KEY " + columns.keyNames()
                    + " makes the sink upsert (an upsert batch is written at once, "
                    + "so one refused row cannot be told from the others). Remove one of the two.");
        }
        builder.upsert(columns.keyNames().toArray(String[]::new)).changelog(RowData::getRowKind);
    }

    /**
     * What the planner shows of the sink ({@code EXPLAIN}, the job's operator names): the connector,
     * the database table, the sink id and the upsert key. Never a credential, nor the URL, which may
     * hold one.
     */
    public static String summary(String connector, TableOptions options, TableColumns columns) {
        return connector + "(table=" + options.get(JdbcTableOptions.TABLE_NAME).orElseThrow()
                + ", sink.id=" + options.get(JdbcTableOptions.SINK_ID).orElseThrow()
                + (columns.hasPrimaryKey() ? ", upsert on " + columns.keyNames() : "") + ")";
    }

    /**
     * The prefix of the sink's operators' names, as the job's graph, Web UI and metrics show them: the
     * connector and the sink id (a metric's operator name is cut at 80 characters).
     */
    public static String operatorName(String connector, TableOptions options) {
        return connector + " " + options.get(JdbcTableOptions.SINK_ID).orElseThrow();
    }
}
