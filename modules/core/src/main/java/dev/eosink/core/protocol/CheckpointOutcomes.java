package dev.eosink.core.protocol;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this JVM heard of a job's checkpoints: the latest that completed, the latest few that were
 * aborted, and the latest few plain savepoints. Fed by {@link CheckpointOutcomeOperator} (Flink tells sink writers nothing of checkpoint
 * outcomes; that operator, after the committer, hears both), read by writers that wait for the
 * outcome of the checkpoint their last prepared transaction belongs to.
 *
 * <p>A completed or aborted checkpoint is a fact about the whole job, so any task of the job in this
 * JVM may report it. Flink delivers these notifications at most once and on a best-effort basis: a
 * reader treats "nothing heard" as "not yet known" and bounds its wait by the checkpoint timeout.
 * Bounded: the latest {@value #MAX_JOBS} jobs, {@value #MAX_ABORTED} aborted checkpoints and savepoints each; no
 * user class is referenced, so a finished job's class loader is never held.
 */
final class CheckpointOutcomes {

    /** What is known of one checkpoint. */
    enum Outcome {
        /** It, or a later checkpoint, completed: its committables are committed (or being committed). */
        COMPLETED,
        /** It was aborted (declined, expired, or a task failed): its committables wait for a later checkpoint. */
        ABORTED,
        /**
         * It is a plain savepoint (not stop-with-savepoint), whose completion Flink never notifies: its
         * committables wait for a later checkpoint, like an aborted one's.
         */
        PLAIN_SAVEPOINT,
        /** Neither was heard (yet). */
        UNKNOWN
    }

    static final int MAX_JOBS = 64;
    static final int MAX_ABORTED = 32;

    private static final Map<String, Job> JOBS = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Job> eldest) {
            return size() > MAX_JOBS;
        }
    };

    private CheckpointOutcomes() {}

    private static final class Job {
        long latestCompleted = -1;
        final Deque<Long> aborted = new ArrayDeque<>();
        final Deque<Long> plainSavepoints = new ArrayDeque<>();
    }

    static synchronized void completed(String jobId, long checkpointId) {
        Job job = JOBS.computeIfAbsent(jobId, k -> new Job());
        job.latestCompleted = Math.max(job.latestCompleted, checkpointId);
    }

    static synchronized void aborted(String jobId, long checkpointId) {
        Job job = JOBS.computeIfAbsent(jobId, k -> new Job());
        job.aborted.addLast(checkpointId);
        if (job.aborted.size() > MAX_ABORTED) {
            job.aborted.removeFirst();
        }
    }

    static synchronized void plainSavepoint(String jobId, long checkpointId) {
        Job job = JOBS.computeIfAbsent(jobId, k -> new Job());
        job.plainSavepoints.addLast(checkpointId);
        if (job.plainSavepoints.size() > MAX_ABORTED) {
            job.plainSavepoints.removeFirst();
        }
    }

    static synchronized Outcome of(String jobId, long checkpointId) {
        Job job = JOBS.get(jobId);
        if (job == null) {
            return Outcome.UNKNOWN;
        }
        // A later completed checkpoint commits every earlier committable, aborted or not.
        if (job.latestCompleted >= checkpointId) {
            return Outcome.COMPLETED;
        }
        if (job.aborted.contains(checkpointId)) {
            return Outcome.ABORTED;
        }
        return job.plainSavepoints.contains(checkpointId) ? Outcome.PLAIN_SAVEPOINT : Outcome.UNKNOWN;
    }
}
