/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import dev.eosink.postgres.PostgresSink;

import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.streaming.api.datastream.DataStream;

/** docs/options.md's sample for users of flink-connector-jdbc: their connection options, statement and binder. */
final class OwnStatement {

    private OwnStatement() {}

    static void orders(DataStream<Order> orders, JdbcConnectionOptions connectionOptions) {
        // [START own-statement]
        orders.sinkTo(PostgresSink.<Order>builder()
                .connection(connectionOptions) // flink-connector-jdbc's JdbcConnectionOptions
                .sinkId("orders")
                .sql("INSERT INTO orders (id, amount) VALUES (?, ?)", (ps, o) -> {
                    ps.setLong(1, o.id);
                    ps.setBigDecimal(2, o.amount);
                })
                .build());
        // [END own-statement]
    }
}
