/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order of events an upsert sink's held statements need, forced by the test rather than timed:
 * records from an {@link IdValve}, checkpoints triggered by the test, a checkpoint declined only once
 * every writer prepared it ({@link CheckpointDecliner.How#ASYNC_DECLINE_ONCE_SINK_PREPARED}; the
 * decliner runs in the source's task, not with the writers, as the sink partitions by key: declined at
 * once, the abort could reach a writer before its barrier, and nothing would be held). The sink must be
 * wrapped in {@link ProtocolTrace}; the job runs at parallelism 2, its writers' ids as {@code sinkId}.
 */
public final class HeldPastTheBarrier {

    /** Records per epoch. */
    public static final long EPOCH = 1_000;

    private final String sinkId;

    /** The order of events for the sink {@code sinkId}, traced by {@link ProtocolTrace}. */
    public HeldPastTheBarrier(String sinkId) {
        this.sinkId = sinkId;
    }

    /** The decliner of checkpoint 2, once both writers prepared it. */
    public CheckpointDecliner decliner() {
        return new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE_ONCE_SINK_PREPARED);
    }

    /**
     * Starts the job {@code job} builds on a parallelism-2 environment with test-triggered checkpoints and
     * no restarts ({@link IdValve#ids} of {@link #sinkId}, through {@link #decliner()}, into the traced
     * sink), and drives the first three epochs of {@link #EPOCH} records each: every record of an epoch
     * reaches the writers before its barrier is triggered. Checkpoint 1 completes; checkpoint 2 is
     * declined once both writers prepared it; the third epoch's records are in the writers, whose
     * statements wait for the declined transactions' commit. Returns the running job.
     */
    public JobClient declineThenFeedAnEpoch(
            ClusterClient<?> client, String name, Consumer<StreamExecutionEnvironment> job) throws Exception {
        StreamExecutionEnvironment env = TestJobs.manualEnv(2, TestJobs.noRestarts());
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        job.accept(env);
        JobClient running = env.executeAsync(name);
        try {
            feed(EPOCH);
            assertThat(TestJobs.checkpoint(client, running.getJobID())).isEqualTo(1);
            feed(2 * EPOCH);
            assertThat(client.triggerCheckpoint(running.getJobID(), CheckpointType.CONFIGURED))
                    .as("checkpoint 2, declined")
                    .failsWithin(TestJobs.TIMEOUT);
            assertThat(CheckpointDecliner.failedCheckpoint(sinkId)).isEqualTo(2);
            assertThat(ProtocolTrace.preparedFor(sinkId, 2))
                    .as("writers that prepared the declined checkpoint")
                    .containsExactly(0, 1);
            feed(3 * EPOCH); // statements that wait for the declined transactions' commit
            return running;
        } catch (Throwable t) {
            TestJobs.cancelUnlessDone(running);
            throw t;
        }
    }

    /** Lets the source emit up to {@code records} ids in all, and waits until the writers took them. */
    public void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> ProtocolTrace.written(sinkId) == records, "the writers to take " + records + " records");
    }

    /** Waits until every transaction the writers prepared for checkpoint {@code checkpointId} or earlier is committed. */
    public void awaitCommitted(long checkpointId) throws InterruptedException {
        TestJobs.await(
                () -> {
                    Set<String> committed = ProtocolTrace.events(sinkId, ProtocolTrace.Kind.COMMIT).stream()
                            .filter(e -> CommitSession.Attempt.COMMITTED.name().equals(e.outcome))
                            .map(e -> e.gid)
                            .collect(Collectors.toSet());
                    return ProtocolTrace.events(sinkId, ProtocolTrace.Kind.PREPARED).stream()
                            .filter(e -> e.checkpointOfGid() <= checkpointId)
                            .allMatch(e -> committed.contains(e.gid));
                },
                "the commit of checkpoint " + checkpointId + " and the ones before");
    }

    /**
     * Both writers gave up waiting for the declined checkpoint's commit, because it was aborted (their
     * log lines in {@code log}), and their snapshot of {@code checkpointId} carried the statements held
     * for it.
     */
    public void assertHeldPastTheBarrierOf(long checkpointId, String log) {
        for (int subtask = 0; subtask < 2; subtask++) {
            assertThat(log)
                    .as("writer %d gave up on the declined checkpoint's commit", subtask)
                    .contains("sink '" + sinkId + "' subtask " + subtask + "/2 (attempt 0): checkpoint 2 of "
                            + TransactionId.PREFIX + "/" + sinkId + "/" + subtask + "/2/");
        }
        assertThat(log).contains("was aborted, so its commit comes only with a later checkpoint");
        List<ProtocolTrace.Event> carried = ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED).stream()
                .filter(e -> e.gid != null && e.checkpointOfGid() == checkpointId)
                .toList();
        assertThat(carried)
                .as("snapshots of checkpoint %d that carried held statements", checkpointId)
                .extracting(e -> e.subtask)
                .containsExactlyInAnyOrder(0, 1);
        assertThat(carried)
                .allSatisfy(e -> assertThat(Long.parseLong(e.outcome))
                        .as("bytes carried")
                        .isPositive());
    }
}
