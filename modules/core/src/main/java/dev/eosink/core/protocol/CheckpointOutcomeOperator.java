/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.TransactionalDatabase;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Hears the job's checkpoint outcomes for the sink's writers and reports them to {@link
 * CheckpointOutcomes}: completions, aborts, and which snapshots are plain savepoints (Flink never
 * notifies those: their transactions are committed by the next checkpoint). Flink's sink writer
 * operator forwards neither completions nor aborts to a writer, and a writer that waits for the commit
 * of its previous transaction must know when that commit will not come (an aborted checkpoint's
 * committables wait for the next completed checkpoint, which the waiting writer itself holds up). It
 * sits after the committer and receives the committer's output (a few messages per checkpoint, never
 * the records), which it drops.
 *
 * <p>Nothing relies on where it runs. Chained after the committer (the default), it runs in the
 * writer's task; with chaining disabled (by the job, or by the sink: Flink then gives every operator of
 * the sink's topology the sink's chaining strategy) it is a task of its own, possibly notified before
 * the committer has committed, possibly in another JVM than the writer. So a completion it reports is
 * only a cue for the writer, never a commit, and it tells in which JVM it runs ({@link
 * CheckpointOutcomes#listening}), so that a writer that can hear no abort waits only briefly.
 *
 * <p>It holds nothing of the database, and so loads none of its classes: the writer and the committer,
 * which open the database's sessions, register its release hooks themselves ({@link
 * TransactionalDatabase#registerReleaseHooks}), wherever they run.
 */
@Internal
public final class CheckpointOutcomeOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<CommittableMessage<PreparedTransaction>, Void> {

    private static final long serialVersionUID = 1L;

    /** Its name in the job graph. */
    public static final String NAME = "eosink checkpoint outcomes";

    /** The sink it serves: a job may hold several, each with its own committers. */
    private final String sinkId;
    /** The sink's execution nonce, drawn when Flink translated the sink: with the job id, the execution. */
    private final String executionNonce;

    /**
     * @param executionNonce the nonce of the job graph the sink was translated into ({@link
     *     TransactionId#executionTag}): outcomes are kept per execution
     */
    public CheckpointOutcomeOperator(String sinkId, String executionNonce) {
        this.sinkId = sinkId;
        this.executionNonce = executionNonce;
    }

    /** Whether this instance told {@link CheckpointOutcomes} it listens, so that closing undoes it once. */
    private transient boolean listening;

    @Override
    public void open() throws Exception {
        super.open();
        CheckpointOutcomes.listening(execution(), committer());
        listening = true;
    }

    @Override
    public void close() throws Exception {
        try {
            if (listening) {
                listening = false;
                CheckpointOutcomes.stoppedListening(execution(), committer());
            }
        } finally {
            super.close();
        }
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<PreparedTransaction>> element) {
        // Committed committables, announced by the committer: the writer learns of commits directly.
    }

    /**
     * Runs before the writer's snapshot of the same checkpoint (Flink snapshots a chain tail first), so
     * the writer knows, once it waits, that a plain savepoint's transaction will never be notified.
     */
    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId, long timestamp, CheckpointOptions options, CheckpointStreamFactory factory)
            throws Exception {
        SnapshotType type = options.getCheckpointType();
        if (type.isSavepoint() && !(type instanceof SavepointType && ((SavepointType) type).isSynchronous())) {
            CheckpointOutcomes.plainSavepoint(execution(), checkpointId);
        }
        return super.snapshotState(checkpointId, timestamp, options, factory);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        CheckpointOutcomes.completed(execution(), committer(), checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        CheckpointOutcomes.aborted(execution(), checkpointId);
    }

    /** The writer of this subtask index of this sink, whose committer precedes this operator. */
    private String committer() {
        return CheckpointOutcomes.committer(
                sinkId, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
    }

    private String execution() {
        return TransactionId.executionTag(
                getRuntimeContext().getJobInfo().getJobId().toString(), executionNonce);
    }
}
