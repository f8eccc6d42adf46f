/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import org.apache.flink.annotation.PublicEvolving;

/**
 * The entry point: an exactly-once Flink sink into any XA database.
 *
 * <pre>{@code
 * stream.sinkTo(
 *     XaSink.<Order>builder()
 *         .jdbcUrl("jdbc:mariadb://db:3306/shop")
 *         .username("flink").password(secret)
 *         .sinkId("orders")
 *         .table("orders")
 *         .columns("id", "customer", "amount")
 *         .rows(o -> new Object[] {o.id, o.customer, o.amount})
 *         .build());
 * }</pre>
 *
 * <p>Each parallel subtask writes one XA branch per checkpoint, prepares it at the barrier and commits
 * it only once the checkpoint is complete. The job brings the database's JDBC driver (see {@link
 * XaSinkBuilder#jdbcUrl}). The protocol is the PostgreSQL sink's (modules/core);
 * see docs/xa.md for what each database needs.
 */
@PublicEvolving
public final class XaSink {

    private XaSink() {}

    /**
     * A new builder of an exactly-once sink for any {@code XADataSource}: set at least {@code sinkId}, {@code jdbcUrl}
     * (or {@code xaDataSource}) and what to write, then call {@code build()}. Each call returns a builder of its own.
     */
    public static <IN> XaSinkBuilder<IN> builder() {
        return new XaSinkBuilder<>();
    }
}
