package dev.eosink.core.protocol;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this JVM heard of a job's checkpoints: per subtask of each sink, the latest completion its
 * committer's task was notified of; the latest few that were aborted, and the latest few plain savepoints. Fed by
 * {@link CheckpointOutcomeOperator} (Flink tells sink writers nothing of checkpoint outcomes; that
 * operator, after the committer, hears both), read by writers that wait for the outcome of the
 * checkpoint their last prepared transaction belongs to.
 *
 * <p>An aborted checkpoint or a plain savepoint is a fact about the whole job, so any task of the job
 * in this JVM may report it. A completion is not, for a waiting writer: it means "committed" only once
 * the committer of the writer's own sink and subtask was notified of it (Flink notifies a chain's operators in
 * one go, so by the time the writer's task runs again, that committer has committed). Another
 * subtask's notification, or another sink's of the same subtask index, may come first; a writer that took it for its commit would run a statement
 * that waits on the database for its own prepared transaction, whose commit its own task thread, now
 * blocked, was about to deliver. Flink delivers these notifications at most once and on a best-effort
 * basis: a reader treats "nothing heard" as "not yet known" and bounds its wait by the checkpoint
 * timeout.
 * Bounded: the latest {@value #MAX_JOBS} jobs, {@value #MAX_ABORTED} aborted checkpoints and savepoints each; no
 * user class is referenced, so a finished job's class loader is never held.
 */
final class CheckpointOutcomes {

    /** What is known of one checkpoint. */
    enum Outcome {
        /**
         * It, or a later checkpoint, completed, and the committer of the asking subtask was notified: its
         * committables of that subtask are committed (or, if that committer runs in another task, being
         * committed by it, on a thread of its own).
         */
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
        /** The latest completed checkpoint, by the {@link #committer} that was notified of it. */
        final Map<String, Long> latestCompleted = new HashMap<>();
        final Deque<Long> aborted = new ArrayDeque<>();
        final Deque<Long> plainSavepoints = new ArrayDeque<>();
    }

    /** The name completions of one sink subtask's committer are kept under: "sinkId/subtask". */
    static String committer(String sinkId, int subtask) {
        return sinkId + "/" + subtask;
    }

    static synchronized void completed(String jobId, String committer, long checkpointId) {
        Job job = JOBS.computeIfAbsent(jobId, k -> new Job());
        job.latestCompleted.merge(committer, checkpointId, Math::max);
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

    /**
     * What the writer whose {@link #committer} is {@code committer} may take as the outcome of its
     * transaction of {@code checkpointId}.
     */
    static synchronized Outcome of(String jobId, String committer, long checkpointId) {
        Job job = JOBS.get(jobId);
        if (job == null) {
            return Outcome.UNKNOWN;
        }
        // A later completed checkpoint commits every earlier committable, aborted or not.
        if (job.latestCompleted.getOrDefault(committer, -1L) >= checkpointId) {
            return Outcome.COMPLETED;
        }
        if (job.aborted.contains(checkpointId)) {
            return Outcome.ABORTED;
        }
        return job.plainSavepoints.contains(checkpointId) ? Outcome.PLAIN_SAVEPOINT : Outcome.UNKNOWN;
    }
}
