package dev.eosink.core.protocol;

import org.apache.flink.annotation.Internal;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a writer subtask keeps in checkpoint state: which writer took part in the checkpoint. The open
 * transaction is never part of state (it is prepared before the barrier, and whatever comes after it
 * is replayed), and ownership of leftover transactions follows from the subtask index in their names.
 *
 * <ul>
 *   <li>The sink id detects a job restored with a different sink id, which would strand the old id's
 *       prepared transactions.
 *   <li>The {@link Lineage} (run token, parallelism, time of the snapshot) lets a restored writer
 *       prove, at start, which of its sink's prepared transactions the restored committers hold:
 *       every committable in checkpoint N's committer state was prepared by the writer instance that
 *       snapshotted N on the same subtask index, so a transaction named at or before N with another
 *       run token, or of a subtask index that did not exist at N, belongs to another line of history
 *       of the job (see {@link RecoveryPlan}).
 * </ul>
 *
 * <p>State written by the first release has no lineage: a writer restored from it decides as that
 * release did. A value; checkpoints hold it in the form {@link WriterStateSerializer} writes.
 *
 * @param sinkId the id of the sink whose writer took the snapshot
 * @param subtask that writer's subtask index
 * @param checkpointId the checkpoint the snapshot belongs to
 * @param lineage who took the snapshot; empty in state of the first layout (version 1)
 */
@Internal
public record WriterState(String sinkId, int subtask, long checkpointId, Optional<Lineage> lineage) {

    /**
     * The writer instance that took a snapshot.
     *
     * @param run its run token
     * @param parallelism the sink's parallelism when the snapshot was taken
     * @param snapshotAtMillis the task manager's wall clock when the snapshot was taken
     */
    public record Lineage(String run, int parallelism, long snapshotAtMillis) {

        public Lineage {
            Objects.requireNonNull(run, "run");
            if (parallelism <= 0) {
                throw new IllegalArgumentException("parallelism must be positive, was " + parallelism);
            }
        }
    }

    public WriterState {
        Objects.requireNonNull(sinkId, "sinkId");
        Objects.requireNonNull(lineage, "lineage");
    }

    /** The state a writer snapshots: its subtask, the checkpoint, and its lineage. */
    public WriterState(
            String sinkId, int subtask, long checkpointId, String run, int parallelism, long snapshotAtMillis) {
        this(sinkId, subtask, checkpointId, Optional.of(new Lineage(run, parallelism, snapshotAtMillis)));
    }

    /** State of the first layout, read from old checkpoints: no lineage. */
    public static WriterState withoutLineage(String sinkId, int subtask, long checkpointId) {
        return new WriterState(sinkId, subtask, checkpointId, Optional.empty());
    }

    /** The run token of the writer instance that took the snapshot; empty in state of the first layout. */
    public Optional<String> run() {
        return lineage.map(Lineage::run);
    }

    /** The sink's parallelism when the snapshot was taken; empty in state of the first layout. */
    public OptionalInt parallelism() {
        return lineage.map(l -> OptionalInt.of(l.parallelism())).orElse(OptionalInt.empty());
    }

    /** The task manager's wall clock when the snapshot was taken; empty in state of the first layout. */
    public OptionalLong snapshotAtMillis() {
        return lineage.map(l -> OptionalLong.of(l.snapshotAtMillis())).orElse(OptionalLong.empty());
    }

    @Override
    public String toString() {
        return "WriterState{sink=" + sinkId + ", subtask=" + subtask + ", checkpoint=" + checkpointId
                + lineage.map(l -> ", run=" + l.run() + ", parallelism=" + l.parallelism() + ", at=" + l.snapshotAtMillis())
                        .orElse("")
                + "}";
    }
}
