package dev.eosink.core.protocol;

import java.util.Objects;

/**
 * What a writer subtask keeps in checkpoint state: only the sink id and the checkpoint it belongs to.
 * The writer needs no more to recover: ownership of leftover transactions follows from the subtask
 * index in their names, and the open transaction is never part of state (it is prepared before the
 * barrier, and whatever comes after it is replayed).
 *
 * <p>The sink id is kept to detect a job restored with a different sink id, which would strand the
 * old id's prepared transactions.
 */
public final class WriterState {

    private final String sinkId;
    private final int subtask;
    private final long checkpointId;

    public WriterState(String sinkId, int subtask, long checkpointId) {
        this.sinkId = Objects.requireNonNull(sinkId, "sinkId");
        this.subtask = subtask;
        this.checkpointId = checkpointId;
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

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof WriterState)) {
            return false;
        }
        WriterState that = (WriterState) o;
        return subtask == that.subtask && checkpointId == that.checkpointId && sinkId.equals(that.sinkId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sinkId, subtask, checkpointId);
    }

    @Override
    public String toString() {
        return "WriterState{sink=" + sinkId + ", subtask=" + subtask + ", checkpoint=" + checkpointId + "}";
    }
}
