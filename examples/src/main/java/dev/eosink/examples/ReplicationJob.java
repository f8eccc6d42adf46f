/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.flink.TransactionAssembler;
import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.replication.ChangeEventRouter;
import dev.eosink.replication.ReplicaTables;
import dev.eosink.replication.SourceChangesRoute;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The replication's job, as {@code CdcDemo.replicate} builds it without its throttle and chaos: Debezium's change
 * events, keyed by one source (one consistency group, one writer), assembled into whole source transactions ({@link
 * TransactionAssembler}) and written through the routed PostgreSQL sink into a replica's tables, one source
 * transaction whole per commit. {@code CdcDemo.replicate} could build its sink ({@link #sink}) and its assembler and
 * sink ({@link #replicate}) here.
 */
final class ReplicationJob {

    private ReplicationJob() {}

    /** The routed sink into {@code tables} (read from the replica: {@link ReplicaTables#read}). */
    static ExactlyOnceSink<SourceChanges> sink(
            String jdbcUrl, String user, String password, String sinkId, ReplicaTables tables) {
        return PostgresSink.<SourceChanges>builder()
                .jdbcUrl(jdbcUrl)
                .username(user)
                .password(password)
                .sinkId(sinkId)
                .tables(tables.routed(
                        new SourceChangesRoute(new ChangeEventRouter(tables, SchemalessValues.microseconds()))))
                .build();
    }

    /** {@code events}, assembled into whole source transactions, into {@code sink}. */
    static void replicate(DataStream<CdcEvent> events, Sink<SourceChanges> sink) {
        events.keyBy(e -> "source", Types.STRING)
                .process(new TransactionAssembler<String>())
                .name("whole source transactions")
                .sinkTo(sink)
                .name("replica");
    }
}
