/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import dev.eosink.xa.XaSink;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.postgresql.xa.PGXADataSource;

/** docs/xa.md's sample: an XADataSource of the job's own, and flink-connector-jdbc's statement and binder. */
final class XaOtherDatabases {

    private XaOtherDatabases() {}

    static void ordersThroughAnXaDataSource(DataStream<Order> orders, String secret) {
        // [START xa-data-source]
        orders.sinkTo(XaSink.<Order>builder()
                .xaDataSource(
                        () -> { // your driver's XADataSource, built on the task manager
                            PGXADataSource ds = new PGXADataSource();
                            ds.setUrl("jdbc:postgresql://db:5432/shop");
                            ds.setUser("flink_sink");
                            ds.setPassword(secret);
                            return ds;
                        })
                .sinkId("orders")
                .sql("INSERT INTO orders (id, amount) VALUES (?, ?)", (ps, o) -> { // flink-connector-jdbc's binder
                    ps.setLong(1, o.id);
                    ps.setBigDecimal(2, o.amount);
                })
                .build());
        // [END xa-data-source]
    }
}
