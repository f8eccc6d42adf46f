package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Who is asking: one parallel subtask of one sink in one job attempt. Everything a database session
 * needs to name itself in errors, logs and {@code application_name}. A value: the sink makes one per
 * writer and committer from Flink's task information; a session may keep it for as long as it lives.
 *
 * @param sinkId the sink's id
 * @param subtask this subtask's index, from 0
 * @param parallelism the sink's parallelism in this run
 * @param attempt the attempt number of this subtask's task (0 for the first)
 * @param jobId the Flink job's id, as text
 * @param restoredCheckpointId the checkpoint or savepoint this run restored from; empty on a fresh start
 */
@PublicEvolving
public record SubtaskContext(
        String sinkId, int subtask, int parallelism, int attempt, String jobId, OptionalLong restoredCheckpointId) {

    public SubtaskContext {
        Objects.requireNonNull(sinkId, "sinkId");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(restoredCheckpointId, "restoredCheckpointId");
    }

    /** "sink 'orders' subtask 1/2 (attempt 0)": the prefix of every message about this subtask. */
    @Override
    public String toString() {
        return "sink '" + sinkId + "' subtask " + subtask + "/" + parallelism + " (attempt " + attempt + ")";
    }
}
