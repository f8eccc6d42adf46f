/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

// The README's PostgreSQL sample, whole: the class a newcomer copies to run a first job.
// [START postgres-job]
import dev.eosink.postgres.PostgresSink;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

public class OrdersJob {

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(10_000); // the sink commits when a checkpoint completes

        DataStream<Order> orders = env.fromSequence(1, 100_000).map(i -> new Order(i)); // your source here
        orders.sinkTo(PostgresSink.<Order>builder()
                .jdbcUrl("jdbc:postgresql://localhost:5432/shop")
                .username("flink_sink")
                .password(System.getenv("SINK_PASSWORD"))
                .sinkId("orders") // stable name; every transaction id carries it
                .table("public", "orders")
                .columns("id", "customer", "amount", "ts")
                .rows(o -> new Object[] {o.id, o.customer, o.amount, o.ts})
                .build());
        env.execute("orders into PostgreSQL");
    }
}
// [END postgres-job]
