package dev.eosink.xa;

import dev.eosink.testing.faults.PoisonableLongSerializer;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A pass-through map, chained before the sink, that makes one checkpoint fail asynchronously on
 * subtask 0 after the writers prepared it (hard case 2): its state cannot be serialized, so the task
 * declines the checkpoint, which tolerable-failed-checkpoints counts. The PostgreSQL module's {@code
 * CheckpointDecliner} also inspects PostgreSQL at the abort; this one only declines, with the same
 * {@link PoisonableLongSerializer}.
 */
final class XaDecliner extends RichMapFunction<Long, Long> implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Map<String, Long> FAILED = new ConcurrentHashMap<>();
    private static final Map<String, Long> ABORTED = new ConcurrentHashMap<>();

    private final String key;
    private final int failingSnapshot;
    private transient ListState<Long> state;
    private transient int snapshots;

    XaDecliner(String key, int failingSnapshot) {
        this.key = key;
        this.failingSnapshot = failingSnapshot;
    }

    static long failedCheckpoint(String key) {
        return FAILED.getOrDefault(key, -1L);
    }

    static long abortedCheckpoint(String key) {
        return ABORTED.getOrDefault(key, -1L);
    }

    @Override
    public Long map(Long value) {
        return value;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("snapshots", new PoisonableLongSerializer()));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        snapshots++;
        boolean fail = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0
                && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0
                && snapshots == failingSnapshot;
        if (fail) {
            FAILED.put(key, context.getCheckpointId());
        }
        state.update(List.of(fail ? PoisonableLongSerializer.POISON : (long) snapshots));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {}

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        if (checkpointId == failedCheckpoint(key)) {
            ABORTED.put(key, checkpointId);
        }
    }
}
