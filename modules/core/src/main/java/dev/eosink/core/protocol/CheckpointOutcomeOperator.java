package dev.eosink.core.protocol;

import dev.eosink.core.spi.TransactionalDatabase;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Hears the job's checkpoint outcomes for the sink's writers and reports them to {@link
 * CheckpointOutcomes}: completions, aborts, and which snapshots are plain savepoints (Flink never
 * notifies those: their transactions are committed by the next checkpoint). Flink's sink writer operator forwards neither completions nor aborts to a
 * writer, and a writer that waits for the commit of its previous transaction must know when that
 * commit will not come (an aborted checkpoint's committables wait for the next completed checkpoint,
 * which the waiting writer itself holds up). It sits after the committer, chained to it and so in the
 * writer's task, and receives the committer's output (a few messages per checkpoint, never the
 * records), which it drops.
 *
 * <p>It also registers the database's {@link TransactionalDatabase#registerReleaseHooks release hooks}
 * when it opens: Flink opens a chain from its tail, so this runs before the committer opens its
 * connections (and loads a JDBC driver), even when the committer then fails before the writer opens.
 */
@Internal
public final class CheckpointOutcomeOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<CommittableMessage<PreparedTransaction>, Void> {

    private static final long serialVersionUID = 1L;

    /** Its name in the job graph. */
    public static final String NAME = "eosink checkpoint outcomes";

    private final TransactionalDatabase<?> database;
    /** The sink it serves: a job may hold several, each with its own committers. */
    private final String sinkId;

    public CheckpointOutcomeOperator(TransactionalDatabase<?> database, String sinkId) {
        this.database = database;
        this.sinkId = sinkId;
    }

    @Override
    public void open() throws Exception {
        super.open();
        database.registerReleaseHooks(getContainingTask().getEnvironment().getUserCodeClassLoader());
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
            CheckpointOutcomes.plainSavepoint(jobId(), checkpointId);
        }
        return super.snapshotState(checkpointId, timestamp, options, factory);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        // Chained after the committer of this sink, in its task: the committer of the writer of this subtask index.
        CheckpointOutcomes.completed(jobId(),
                CheckpointOutcomes.committer(sinkId, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask()), checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        CheckpointOutcomes.aborted(jobId(), checkpointId);
    }

    private String jobId() {
        return getRuntimeContext().getJobInfo().getJobId().toString();
    }
}
