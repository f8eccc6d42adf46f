/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.xa.XaSinkBuilder;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * The options of {@code eosink-xa} beyond {@link JdbcTableOptions}: each mirrors the setter of {@link
 * XaSinkBuilder} that it names, with the same default and the same checks.
 */
@PublicEvolving
public final class XaTableOptions {

    private XaTableOptions() {}

    /** {@code 'sink.network-timeout'}: as {@link XaSinkBuilder#networkTimeout}; at least 1 s, or 0 for no bound. */
    public static final ConfigOption<Duration> NETWORK_TIMEOUT = ConfigOptions.key("sink.network-timeout")
            .durationType()
            .defaultValue(XaSinkBuilder.DEFAULT_NETWORK_TIMEOUT)
            .withDescription("How long any call of the sink into the driver may take before its connection is "
                    + "aborted and the task fails over, or the commit is retried (networkTimeout). At least 1 s, "
                    + "or 0 for no bound; above sink.lock-timeout.");

    /** {@code 'sink.lock-timeout'}: as {@link XaSinkBuilder#lockTimeout}; at least 1 s. */
    public static final ConfigOption<Duration> LOCK_TIMEOUT = ConfigOptions.key("sink.lock-timeout")
            .durationType()
            .defaultValue(XaSinkBuilder.DEFAULT_LOCK_TIMEOUT)
            .withDescription("How long a statement of the writer's branch waits for a lock held by another "
                    + "transaction before it fails the task (lockTimeout). At least 1 s, and below a non-zero "
                    + "sink.network-timeout.");
}
