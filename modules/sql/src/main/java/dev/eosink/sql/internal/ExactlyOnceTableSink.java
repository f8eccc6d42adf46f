/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.InputDistribution;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * A table written by an exactly-once sink, as the planner sees it. Without a primary key it takes
 * inserts only (the planner refuses an updating query into it); with one it asks for INSERT,
 * UPDATE_AFTER and DELETE. The planner still sends UPDATE_BEFORE after a filter on an updating result
 * ({@code HAVING}, a {@code WHERE} over an aggregate), and when the filter drops a key's new row, the
 * UPDATE_BEFORE comes alone: the sink deletes the key for it, which a later row of the key replaces.
 * It partitions its input by the primary key itself before the writers ({@link InputDistribution}),
 * so that one writer subtask owns each key whatever the planner's distribution: the upserts of a key
 * then reach the database in the order the query produced them.
 *
 * <p>The sink is built, and its options checked, when the table's factory creates this; the password
 * is inside it, which never shows it. {@link #asSummaryString()} and {@link #toString()} name the
 * connector, the database table, the sink id and the key.
 */
@Internal
public final class ExactlyOnceTableSink implements DynamicTableSink {

    private static final ChangelogMode UPSERT = ChangelogMode.newBuilder()
            .addContainedKind(RowKind.INSERT)
            .addContainedKind(RowKind.UPDATE_AFTER)
            .addContainedKind(RowKind.DELETE)
            .build();

    private final ExactlyOnceSink<RowData> sink;
    private final TableColumns columns;
    private final OptionalInt parallelism;
    private final String summary;
    /** The sink's operator names' prefix: short, for Flink's metric names. */
    private final String name;

    /**
     * @param sink the sink, built from the table's options and columns (with upserts by the primary
     *     key when {@code columns} has one)
     * @param columns the table's physical columns and primary key
     * @param parallelism {@code sink.parallelism}, or empty for the parallelism of the sink's input
     * @param summary what the planner shows of this sink: never a credential
     * @param name the prefix of the sink's operators' names (its Writer, Committer, ...): never a credential
     */
    public ExactlyOnceTableSink(
            ExactlyOnceSink<RowData> sink, TableColumns columns, OptionalInt parallelism, String summary, String name) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.columns = Objects.requireNonNull(columns, "columns");
        this.parallelism = Objects.requireNonNull(parallelism, "parallelism");
        this.summary = Objects.requireNonNull(summary, "summary");
        this.name = Objects.requireNonNull(name, "name");
    }

    /** The sink the table's rows go to, as its options built it. */
    public ExactlyOnceSink<RowData> sink() {
        return sink;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        return columns.hasPrimaryKey() ? UPSERT : ChangelogMode.insertOnly();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        if (!columns.hasPrimaryKey()) {
            return new Topology(sink);
        }
        PrimaryKeySelector key = new PrimaryKeySelector(columns.rowType(), columns.keyIndexes());
        return new Topology(new ExactlyOnceSink<>(sink.database(), sink.settings(), InputDistribution.byKey(key)));
    }

    @Override
    public DynamicTableSink copy() {
        return new ExactlyOnceTableSink(sink, columns, parallelism, summary, name);
    }

    @Override
    public String asSummaryString() {
        return summary;
    }

    @Override
    public String toString() {
        return summary;
    }

    /** The input into the sink, at {@code sink.parallelism} if set; the sink distributes it as it needs. */
    private final class Topology implements DataStreamSinkProvider {

        /** The sink, partitioning its input by the primary key when the table has one. */
        private final ExactlyOnceSink<RowData> target;

        Topology(ExactlyOnceSink<RowData> target) {
            this.target = target;
        }

        @Override
        public DataStreamSink<?> consumeDataStream(ProviderContext provider, DataStream<RowData> input) {
            DataStreamSink<RowData> written = input.sinkTo(target).name(name);
            parallelism.ifPresent(written::setParallelism);
            provider.generateUid("eosink-writer").ifPresent(written::uid);
            return written;
        }
    }
}
