/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import dev.eosink.xa.XaSink;

import org.apache.flink.streaming.api.datastream.DataStream;

/** The README's XA sample: the same orders into MariaDB through XA. */
final class XaJob {

    private XaJob() {}

    static void ordersIntoMariaDb(DataStream<Order> orders, String secret) {
        // [START xa-job]
        orders.sinkTo(XaSink.<Order>builder()
                .jdbcUrl("jdbc:mariadb://localhost:3306/shop") // or jdbc:mysql:, jdbc:postgresql:
                .username("flink_sink")
                .password(secret)
                .sinkId("orders")
                .table("orders")
                .columns("id", "customer", "amount")
                .rows(o -> new Object[] {o.id, o.customer, o.amount})
                .build());
        // [END xa-job]
    }
}
