package dev.eosink.core.protocol;

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
 *   <li>The run token, the parallelism and the time of the snapshot (the <em>lineage</em>) let a
 *       restored writer prove, at start, which of its sink's prepared transactions the restored
 *       committers hold: every committable in checkpoint N's committer state was prepared by the
 *       writer instance that snapshotted N on the same subtask index, so a transaction named at or
 *       before N with another run token, or of a subtask index that did not exist at N, belongs to
 *       another line of history of the job (see {@link RecoveryPlan}).
 * </ul>
 *
 * <p>State written by the first release has no lineage ({@link #run()} is empty): a writer restored
 * from it decides as that release did.
 */
public final class WriterState {

    private final String sinkId;
    private final int subtask;
    private final long checkpointId;
    /** Null only in state of the first layout (version 1), which had no lineage. */
    private final String run;
    private final int parallelism;
    private final long snapshotAtMillis;

    /** The state a writer snapshots: its subtask, the checkpoint, and its lineage. */
    public WriterState(
            String sinkId, int subtask, long checkpointId, String run, int parallelism, long snapshotAtMillis) {
        this.sinkId = Objects.requireNonNull(sinkId, "sinkId");
        this.subtask = subtask;
        this.checkpointId = checkpointId;
        this.run = Objects.requireNonNull(run, "run");
        if (parallelism <= 0) {
            throw new IllegalArgumentException("parallelism must be positive, was " + parallelism);
        }
        this.parallelism = parallelism;
        this.snapshotAtMillis = snapshotAtMillis;
    }

    private WriterState(String sinkId, int subtask, long checkpointId) {
        this.sinkId = Objects.requireNonNull(sinkId, "sinkId");
        this.subtask = subtask;
        this.checkpointId = checkpointId;
        this.run = null;
        this.parallelism = 0;
        this.snapshotAtMillis = 0;
    }

    /** State of the first layout, read from old checkpoints: no lineage. */
    public static WriterState withoutLineage(String sinkId, int subtask, long checkpointId) {
        return new WriterState(sinkId, subtask, checkpointId);
    }

    public String sinkId() {
        return sinkId;
    }

    public int subtask() {
        return subtask;
    }

    public long checkpointId() {
        return checkpointId;
    }

    /** The run token of the writer instance that took the snapshot; empty in state of the first layout. */
    public Optional<String> run() {
        return Optional.ofNullable(run);
    }

    /** The sink's parallelism when the snapshot was taken; empty in state of the first layout. */
    public OptionalInt parallelism() {
        return run == null ? OptionalInt.empty() : OptionalInt.of(parallelism);
    }

    /** The task manager's wall clock when the snapshot was taken; empty in state of the first layout. */
    public OptionalLong snapshotAtMillis() {
        return run == null ? OptionalLong.empty() : OptionalLong.of(snapshotAtMillis);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof WriterState)) {
            return false;
        }
        WriterState that = (WriterState) o;
        return subtask == that.subtask
                && checkpointId == that.checkpointId
                && parallelism == that.parallelism
                && snapshotAtMillis == that.snapshotAtMillis
                && sinkId.equals(that.sinkId)
                && Objects.equals(run, that.run);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sinkId, subtask, checkpointId, run, parallelism, snapshotAtMillis);
    }

    @Override
    public String toString() {
        return "WriterState{sink=" + sinkId + ", subtask=" + subtask + ", checkpoint=" + checkpointId
                + (run == null ? "" : ", run=" + run + ", parallelism=" + parallelism + ", at=" + snapshotAtMillis)
                + "}";
    }
}
