/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.PreparedTransactionSerializer;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.metrics.groups.InternalSinkCommitterMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.streaming.runtime.operators.sink.committables.CheckpointCommittableManager;
import org.apache.flink.streaming.runtime.operators.sink.committables.CommittableCollector;
import org.apache.flink.streaming.runtime.operators.sink.committables.CommittableCollectorSerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Reads one element of a Sink V2 committer's state ({@code streaming_committer_raw_states}): Flink's
 * {@code CommittableCollector}, written by its internal {@code CommittableCollectorSerializer} around
 * eosink's {@link PreparedTransactionSerializer}. These are Flink's internal types, which may change
 * with any minor release; Flink 1.20 and 2.x declare alike what is used here ({@code AdminITCase}
 * reads committer state on both lines). A line that differs gets its own source of this class, as
 * {@code dev.eosink.core.flink} does (docs/flink-versions.md).
 */
final class CommitterStates {

    /** The name of the committer operator's list state, in every Flink line that eosink supports. */
    static final String STATE_NAME = "streaming_committer_raw_states";

    private CommitterStates() {}

    /** The committables in one element of the state, of every checkpoint it holds. */
    static List<PreparedTransaction> committables(byte[] element, int subtask, int parallelism)
            throws IOException, InterruptedException {
        CommittableCollectorSerializer<PreparedTransaction> serializer = new CommittableCollectorSerializer<>(
                new PreparedTransactionSerializer(),
                subtask,
                parallelism,
                InternalSinkCommitterMetricGroup.wrap(
                        UnregisteredMetricGroups.createUnregisteredOperatorMetricGroup()));
        CommittableCollector<PreparedTransaction> collector =
                SimpleVersionedSerialization.readVersionAndDeSerialize(serializer, element);
        List<PreparedTransaction> all = new ArrayList<>();
        // Flink lists a checkpoint's pending committables only to a committer: this one writes them
        // down and marks them done, on the deserialized copy in memory; nothing reaches a database.
        Committer<PreparedTransaction> recorder = new Committer<>() {
            @Override
            public void commit(Collection<CommitRequest<PreparedTransaction>> requests) {
                for (CommitRequest<PreparedTransaction> request : requests) {
                    all.add(request.getCommittable());
                    request.signalAlreadyCommitted();
                }
            }

            @Override
            public void close() {}
        };
        for (CheckpointCommittableManager<PreparedTransaction> checkpoint :
                collector.getCheckpointCommittablesUpTo(Long.MAX_VALUE)) {
            checkpoint.commit(recorder, 0);
        }
        return all;
    }
}
