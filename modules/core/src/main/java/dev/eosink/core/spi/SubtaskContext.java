package dev.eosink.core.spi;

import java.util.OptionalLong;

/**
 * Who is asking: one parallel subtask of one sink in one job attempt. Everything a database session
 * needs to name itself in errors, logs and {@code application_name}.
 */
public final class SubtaskContext {

    private final String sinkId;
    private final int subtask;
    private final int parallelism;
    private final int attempt;
    private final String jobId;
    private final OptionalLong restoredCheckpointId;

    public SubtaskContext(
            String sinkId,
            int subtask,
            int parallelism,
            int attempt,
            String jobId,
            OptionalLong restoredCheckpointId) {
        this.sinkId = sinkId;
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.attempt = attempt;
        this.jobId = jobId;
        this.restoredCheckpointId = restoredCheckpointId;
    }

    public String sinkId() {
        return sinkId;
    }

    public int subtask() {
        return subtask;
    }

    public int parallelism() {
        return parallelism;
    }

    public int attempt() {
        return attempt;
    }

    public String jobId() {
        return jobId;
    }

    public OptionalLong restoredCheckpointId() {
        return restoredCheckpointId;
    }

    /** "sink 'orders' subtask 1/2 (attempt 0)": the prefix of every message about this subtask. */
    @Override
    public String toString() {
        return "sink '" + sinkId + "' subtask " + subtask + "/" + parallelism + " (attempt " + attempt + ")";
    }
}
