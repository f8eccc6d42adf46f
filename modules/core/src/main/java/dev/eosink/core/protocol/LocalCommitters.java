/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.spi.SubtaskContext;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Which sinks have a committer in this JVM inside a commit call right now, per sink id and execution.
 *
 * <p>Who asks: a restored writer whose promised transactions are still prepared when its claim wait runs
 * out ({@link StartupRecovery}). A restored committer commits what it holds while its task initializes.
 * Chained to the writer, that is done before the writer's task starts; with chaining disabled the
 * committer is a task of its own, initializing at the same time as the writer, and a commit that takes
 * longer than the claim wait (a synchronous standby, a database that takes connections again only slowly
 * after a failover) is no dropped committer state. With Flink's default slot sharing, writer and
 * committer of a subtask share a slot, so that committer runs in this JVM, and the writer sees it busy.
 */
final class LocalCommitters {

    /**
     * How long after a commit call ended a committer still counts as committing: a restored committer
     * commits the committables of each restored checkpoint in a call of its own, one right after the other,
     * and a writer that looks between two calls must not take the next call's transactions for abandoned.
     */
    static final long GRACE_NANOS = 1_000_000_000L;

    /**
     * Commit calls in progress, and when the last one ended (System.nanoTime), per sink id and execution.
     * A class, not a record: see the architecture test on records' object methods.
     */
    private static final class Activity {
        private final int calls;
        private final long lastLeftNanos;

        Activity(int calls, long lastLeftNanos) {
            this.calls = calls;
            this.lastLeftNanos = lastLeftNanos;
        }

        int calls() {
            return calls;
        }

        long lastLeftNanos() {
            return lastLeftNanos;
        }
    }

    private static final ConcurrentHashMap<String, Activity> ACTIVITY = new ConcurrentHashMap<>();

    private LocalCommitters() {}

    /** A committer of {@code committer}'s sink and execution entered a commit call; {@link #left} follows. */
    static void entered(SubtaskContext committer) {
        ACTIVITY.compute(
                key(committer),
                (k, a) -> a == null ? new Activity(1, 0) : new Activity(a.calls() + 1, a.lastLeftNanos()));
    }

    /** The commit call {@link #entered} ended, however it ended. */
    static void left(SubtaskContext committer) {
        long now = System.nanoTime();
        ACTIVITY.computeIfPresent(key(committer), (k, a) -> new Activity(Math.max(0, a.calls() - 1), now));
        // Entries of sinks whose committers are long done are dropped, so the map does not grow with jobs.
        ACTIVITY.values().removeIf(a -> a.calls() == 0 && now - a.lastLeftNanos() > 60 * GRACE_NANOS);
    }

    /**
     * Whether a committer of {@code writer}'s sink and execution in this JVM is inside a commit call, or
     * left one within {@link #GRACE_NANOS}.
     */
    static boolean committing(SubtaskContext writer) {
        Activity a = ACTIVITY.get(key(writer));
        return a != null && (a.calls() > 0 || System.nanoTime() - a.lastLeftNanos() < GRACE_NANOS);
    }

    private static String key(SubtaskContext context) {
        return context.sinkId() + "/" + context.execution();
    }
}
