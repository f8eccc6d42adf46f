/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.postgres.PostgresSinkBuilder;
import dev.eosink.postgres.WriteMethod;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;

/**
 * The options of {@code eosink-postgres} beyond {@link JdbcTableOptions}: each mirrors the setter of
 * {@link PostgresSinkBuilder} that it names, with the same default and the same checks.
 */
@PublicEvolving
public final class PostgresTableOptions {

    private PostgresTableOptions() {}

    /** {@code 'sink.write-method'}: as {@link PostgresSinkBuilder#writeMethod}; COPY or BATCH. */
    public static final ConfigOption<WriteMethod> WRITE_METHOD = ConfigOptions.key("sink.write-method")
            .enumType(WriteMethod.class)
            .defaultValue(WriteMethod.COPY)
            .withDescription("How rows travel into the open transaction (writeMethod): COPY streams inserts, and "
                    + "upserts of keys the subtask never wrote, as binary COPY, and falls back to batches by itself "
                    + "(saying so at start) for a column type it cannot encode; BATCH sends JDBC batches and "
                    + "statements only.");

    /**
     * {@code 'sink.copy.max-backlog'}: as {@link PostgresSinkBuilder#maxCopyBacklog}; at least 64 kb, or 0 for no
     * bound.
     */
    public static final ConfigOption<MemorySize> COPY_MAX_BACKLOG = ConfigOptions.key("sink.copy.max-backlog")
            .memoryType()
            .defaultValue(new MemorySize(PostgresSinkBuilder.DEFAULT_MAX_COPY_BACKLOG))
            .withDescription("COPY flow control (maxCopyBacklog): how much COPY data the server may have received "
                    + "and not yet read, which bounds the COPY's share of the time from barrier to prepared. At "
                    + "least 64 kb, or 0 to turn it off.");

    /**
     * {@code 'sink.network-timeout'}: as {@link PostgresSinkBuilder#networkTimeout}; at least 1 s, or 0 for no bound.
     */
    public static final ConfigOption<Duration> NETWORK_TIMEOUT = ConfigOptions.key("sink.network-timeout")
            .durationType()
            .defaultValue(PostgresSinkBuilder.DEFAULT_NETWORK_TIMEOUT)
            .withDescription("How long any call of the sink into the driver may take before its connection is "
                    + "aborted and the task fails over, or the commit is retried (networkTimeout). At least 1 s, "
                    + "or 0 for no bound.");
}
