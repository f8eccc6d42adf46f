/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this JVM heard of the checkpoints of a job's execution: per subtask of each sink, the latest
 * completion the outcome operator of that subtask was notified of; the latest few checkpoints that were
 * aborted, the latest few plain savepoints, and which outcome operators run in this JVM. Fed by {@link
 * CheckpointOutcomeOperator} (Flink tells sink writers nothing of checkpoint outcomes; that operator,
 * after the committer, hears both), read by writers that wait for the commit of their last prepared
 * transaction.
 *
 * <p>Kept per execution ({@link dev.eosink.core.spi.SubtaskContext#execution()}), not per job id:
 * checkpoint ids start again after a new submission restores an older snapshot, and an application with
 * high availability submits every deployment under the same job id, so what an earlier execution heard
 * of "checkpoint 7" says nothing of this one's.
 *
 * <p>An aborted checkpoint or a plain savepoint is a fact about the whole execution, so any task of it
 * in this JVM may report it: a waiting writer stops waiting at once, since the commit comes only with
 * a later checkpoint, whose barrier it holds up. A completion is only a cue, never proof of a commit:
 * the outcome operator may run in a task of its own (chaining disabled), notified before the committer
 * of the same subtask has committed, or in another JVM than the writer. A writer takes its transaction
 * as committed only when the committer says so ({@link CommitSignals}) or the database no longer lists
 * it as prepared. Flink delivers these notifications at most once and on a best-effort basis: a reader
 * treats "nothing heard" as "not yet known", and a writer whose outcome operator is not in this JVM
 * ({@link #hears}) hears nothing at all.
 *
 * <p>Bounded: the latest {@value #MAX_EXECUTIONS} executions, {@value #MAX_ABORTED} aborted checkpoints
 * and savepoints each; no user class is referenced, so a finished job's class loader is never held.
 */
final class CheckpointOutcomes {

    /** What is known of one checkpoint. */
    enum Outcome {
        /**
         * It, or a later checkpoint, completed, and the outcome operator of the asking subtask was
         * notified: its committables of that subtask are committed, or will be, by a committer that may
         * run in another task. A cue to look, not a commit.
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

    static final int MAX_EXECUTIONS = 64;
    static final int MAX_ABORTED = 32;

    private static final Map<String, Execution> EXECUTIONS = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Execution> eldest) {
            return size() > MAX_EXECUTIONS;
        }
    };

    private CheckpointOutcomes() {}

    private static final class Execution {
        /** The latest completed checkpoint, by the {@link #committer} whose outcome operator was notified of it. */
        final Map<String, Long> latestCompleted = new HashMap<>();

        final Deque<Long> aborted = new ArrayDeque<>();
        final Deque<Long> plainSavepoints = new ArrayDeque<>();
        /**
         * The {@link #committer}s whose outcome operator is open in this JVM, with how many instances are (an
         * attempt that closes late and the next one that opened already, on one TaskManager).
         */
        final Map<String, Integer> heard = new HashMap<>();
    }

    /** The name the outcomes of one sink subtask are kept under: "sinkId/subtask". */
    static String committer(String sinkId, int subtask) {
        return sinkId + "/" + subtask;
    }

    /** The outcome operator of {@code committer} opened in this JVM: its outcomes will be heard here. */
    static synchronized void listening(String execution, String committer) {
        EXECUTIONS.computeIfAbsent(execution, k -> new Execution()).heard.merge(committer, 1, Integer::sum);
    }

    /**
     * An outcome operator of {@code committer} closed in this JVM. After a failover that moved it to another
     * TaskManager while its writer stayed, the writer must know that no outcome of its checkpoints is heard here
     * any more (it would otherwise wait the checkpoint timeout for each).
     */
    static synchronized void stoppedListening(String execution, String committer) {
        Execution job = EXECUTIONS.get(execution);
        if (job != null) {
            job.heard.computeIfPresent(committer, (k, n) -> n > 1 ? n - 1 : null);
        }
    }

    /** Whether outcomes of {@code committer} are heard in this JVM: its outcome operator is open here. */
    static synchronized boolean hears(String execution, String committer) {
        Execution job = EXECUTIONS.get(execution);
        return job != null && job.heard.containsKey(committer);
    }

    static synchronized void completed(String execution, String committer, long checkpointId) {
        Execution job = EXECUTIONS.computeIfAbsent(execution, k -> new Execution());
        job.latestCompleted.merge(committer, checkpointId, Math::max);
    }

    static synchronized void aborted(String execution, long checkpointId) {
        Execution job = EXECUTIONS.computeIfAbsent(execution, k -> new Execution());
        job.aborted.addLast(checkpointId);
        if (job.aborted.size() > MAX_ABORTED) {
            job.aborted.removeFirst();
        }
    }

    static synchronized void plainSavepoint(String execution, long checkpointId) {
        Execution job = EXECUTIONS.computeIfAbsent(execution, k -> new Execution());
        job.plainSavepoints.addLast(checkpointId);
        if (job.plainSavepoints.size() > MAX_ABORTED) {
            job.plainSavepoints.removeFirst();
        }
    }

    /** What was heard of checkpoint {@code checkpointId} of the writer whose committer is {@code committer}. */
    static synchronized Outcome of(String execution, String committer, long checkpointId) {
        Execution job = EXECUTIONS.get(execution);
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
