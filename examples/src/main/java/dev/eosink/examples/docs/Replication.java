/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.flink.TransactionAssembler;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.replication.ChangeEventRouter;
import dev.eosink.replication.DebeziumDeserializationSchema;
import dev.eosink.replication.ReplicaTables;
import dev.eosink.replication.SourceChangesRoute;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

/** docs/cdc.md's samples: whole source transactions, and their replication into PostgreSQL. */
final class Replication {

    private Replication() {}

    static DataStream<SourceChanges> units(DataStream<CdcEvent> events) {
        // [START assemble]
        DataStream<SourceChanges> units = events // the data topics and <topic.prefix>.transaction of one database
                .keyBy(event -> "shop", Types.STRING) // the consistency group: one source database
                .process(new TransactionAssembler<String>()) // or (maxBufferedEvents, rememberedTransactions)
                .uid("shop-transactions");
        // [END assemble]
        return units;
    }

    static void replicate(
            StreamExecutionEnvironment env, String brokers, String targetUrl, String user, String password)
            throws SQLException {
        // [START replicate]
        ReplicaTables tables;
        try (Connection c = DriverManager.getConnection(targetUrl, user, password)) {
            tables = ReplicaTables.read(c, "replica", List.of("public.accounts", "public.transfers"));
        }
        KafkaSource<CdcEvent> source = KafkaSource.<CdcEvent>builder()
                .setBootstrapServers(brokers)
                .setTopics("shop.public.accounts", "shop.public.transfers", "shop.transaction")
                .setGroupId("replica")
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setDeserializer(new DebeziumDeserializationSchema())
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "shop")
                .keyBy(event -> "shop", Types.STRING)
                .process(new TransactionAssembler<String>())
                .uid("shop-transactions")
                .sinkTo(PostgresSink.<SourceChanges>builder()
                        .jdbcUrl(targetUrl)
                        .username(user)
                        .password(password)
                        .sinkId("shop-replica")
                        .tables(tables.routed(
                                new SourceChangesRoute(new ChangeEventRouter(tables, SchemalessValues.microseconds()))))
                        .build())
                .uid("shop-replica");
        // [END replicate]
    }
}
