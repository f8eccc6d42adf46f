/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import org.apache.flink.annotation.PublicEvolving;

/**
 * The entry point: an exactly-once Flink sink into PostgreSQL.
 *
 * <pre>{@code
 * stream.sinkTo(
 *     PostgresSink.<Order>builder()
 *         .jdbcUrl("jdbc:postgresql://db:5432/shop")
 *         .username("flink").password(secret)
 *         .sinkId("orders")
 *         .table("public", "orders")
 *         .columns("id", "customer", "amount")
 *         .rows(o -> new Object[] {o.id, o.customer, o.amount})
 *         .build());
 * }</pre>
 *
 * <p>Each parallel subtask writes into one PostgreSQL transaction per checkpoint, prepares it with
 * {@code PREPARE TRANSACTION} at the barrier and commits it with {@code COMMIT PREPARED} only once
 * the checkpoint is complete. See docs/guarantees.md for the guarantees and docs/postgresql.md for what the database needs.
 */
@PublicEvolving
public final class PostgresSink {

    private PostgresSink() {}

    /**
     * A new builder of an exactly-once PostgreSQL sink: set at least {@code sinkId}, {@code jdbcUrl} (or {@code
     * dataSource}) and what to write, then call {@code build()}. Each call returns a builder of its own.
     */
    public static <IN> PostgresSinkBuilder<IN> builder() {
        return new PostgresSinkBuilder<>();
    }
}
