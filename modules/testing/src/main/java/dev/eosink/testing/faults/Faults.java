/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.faults;

import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Failure injection shared between a test and the job it runs on a MiniCluster in the same JVM.
 * A test arms a point of a sink's lifecycle: "at the n-th arrival of this sink at this point, run
 * this action" (by default: throw {@link InjectedFault}). Actions may also act on the real database
 * (terminate a backend, roll a transaction back) to stage what another party would do.
 */
public final class Faults {

    /** Points of the sink's lifecycle where a fault can be injected. */
    public enum Point {
        /** Inside write(), mid-epoch, before the record reaches the database. */
        WRITE,
        /** At the barrier, before the sink prepares (PREPARE TRANSACTION, XA PREPARE). */
        BEFORE_PREPARE,
        /** At the barrier, right after the sink prepared, before the committable reaches Flink. */
        AFTER_PREPARE,
        /** In the committer, before the commit (checkpoint complete, commit not yet sent). */
        BEFORE_COMMIT,
        /** In the committer, after the commit succeeded, before Flink hears of it. */
        AFTER_COMMIT
    }

    /** What happens at an armed point. May throw; may touch the database. */
    @FunctionalInterface
    public interface Action {
        /** Acts at {@code arrival}; an exception thrown here is what the sink sees at that point. */
        void run(Arrival arrival) throws IOException;
    }

    /** Where the action fires: which sink, subtask and, for commit points, which transaction. */
    public static final class Arrival {
        /** The sink that arrived. */
        public final String sinkId;
        /** Where it arrived. */
        public final Point point;
        /** The arriving subtask. */
        public final int subtask;
        /** The attempt of the arriving subtask's task. */
        public final int attempt;
        /** The transaction at the point; null at {@link Point#WRITE}. */
        public final String transactionId; // null at WRITE
        /** Which arrival at the point this is, since it was armed, from 1. */
        public final int n;

        Arrival(String sinkId, Point point, int subtask, int attempt, String transactionId, int n) {
            this.sinkId = sinkId;
            this.point = point;
            this.subtask = subtask;
            this.attempt = attempt;
            this.transactionId = transactionId;
            this.n = n;
        }
    }

    private static final class Armed {
        final int nth;
        final Predicate<Arrival> when; // null: fire at the nth arrival
        final Action action;
        final AtomicBoolean done = new AtomicBoolean();

        Armed(int nth, Predicate<Arrival> when, Action action) {
            this.nth = nth;
            this.when = when;
            this.action = action;
        }

        boolean fires(Arrival arrival) {
            if (when == null) {
                return arrival.n == nth;
            }
            // Arrivals of several subtasks may test at once: only one of them fires.
            return when.test(arrival) && done.compareAndSet(false, true);
        }
    }

    private static final Map<String, AtomicInteger> HITS = new ConcurrentHashMap<>();
    /** sinkId/point -> how long every arrival there waits first. */
    private static final Map<String, java.time.Duration> LAGS = new ConcurrentHashMap<>();

    private static final Map<String, Armed> ARMED = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> FIRED = new ConcurrentHashMap<>();

    /** sinkId/subtask -> attempt numbers of writers opened, to tell a regional from a global failover. */
    private static final Map<String, java.util.Set<Integer>> WRITER_ATTEMPTS = new ConcurrentHashMap<>();

    /**
     * sinkId/subtask -> attempt numbers of writers that began to open, in the order they began, a start-up
     * check that refused included: how often a job tried to start a writer.
     */
    private static final Map<String, java.util.List<Integer>> WRITER_STARTS = new ConcurrentHashMap<>();

    /**
     * sinkId/role/subtask -> the checkpoint Flink told each writer or committer of that subtask it restored
     * ({@code InitContext.getRestoredCheckpointId()}), in the order they began to open: what a subtask that
     * got no state of the sink after a rescale is told.
     */
    private static final Map<String, java.util.List<java.util.OptionalLong>> RESTORED_CHECKPOINTS =
            new ConcurrentHashMap<>();

    private Faults() {}

    static void writerOpened(String sinkId, int subtask, int attempt) {
        WRITER_ATTEMPTS
                .computeIfAbsent(sinkId + "/" + subtask, k -> ConcurrentHashMap.newKeySet())
                .add(attempt);
    }

    static void writerStarting(SubtaskContext context) {
        WRITER_STARTS
                .computeIfAbsent(
                        context.sinkId() + "/" + context.subtask(),
                        k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(context.attempt());
        restored(context, "writer");
    }

    static void committerOpening(SubtaskContext context) {
        restored(context, "committer");
    }

    private static void restored(SubtaskContext context, String role) {
        RESTORED_CHECKPOINTS
                .computeIfAbsent(
                        context.sinkId() + "/" + role + "/" + context.subtask(),
                        k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(context.restoredCheckpointId());
    }

    /**
     * The checkpoint Flink told each writer of subtask {@code subtask} of {@code sinkId} it restored, one per
     * writer that began to open, in order (empty: a fresh start, as far as that writer was told).
     */
    public static java.util.List<java.util.OptionalLong> writerRestoredCheckpoints(String sinkId, int subtask) {
        return java.util.List.copyOf(
                RESTORED_CHECKPOINTS.getOrDefault(sinkId + "/writer/" + subtask, java.util.List.of()));
    }

    /** As {@link #writerRestoredCheckpoints}, for the committers of subtask {@code subtask}. */
    public static java.util.List<java.util.OptionalLong> committerRestoredCheckpoints(String sinkId, int subtask) {
        return java.util.List.copyOf(
                RESTORED_CHECKPOINTS.getOrDefault(sinkId + "/committer/" + subtask, java.util.List.of()));
    }

    /** The attempt numbers with which writer {@code subtask} of {@code sinkId} was opened. */
    public static java.util.Set<Integer> writerAttempts(String sinkId, int subtask) {
        return WRITER_ATTEMPTS.getOrDefault(sinkId + "/" + subtask, java.util.Set.of());
    }

    /**
     * The attempt numbers with which writer {@code subtask} of {@code sinkId} began to open, once per start
     * and in order, whether it opened or a start-up check refused it (unlike {@link #writerAttempts}, which
     * sees only the writers that opened): {@code [0]} for a writer that started once and never again.
     */
    public static java.util.List<Integer> writerStarts(String sinkId, int subtask) {
        return java.util.List.copyOf(WRITER_STARTS.getOrDefault(sinkId + "/" + subtask, java.util.List.of()));
    }

    /** Throw {@link InjectedFault} at the {@code nth} (1-based) arrival of {@code sinkId} at {@code point}, once. */
    public static void arm(String sinkId, Point point, int nth) {
        arm(sinkId, point, nth, a -> {
            throw new InjectedFault(a.sinkId + ": injected fault at " + a.point + " (arrival " + a.n + ", subtask "
                    + a.subtask + ", attempt " + a.attempt + ")");
        });
    }

    /** Run {@code action} at the {@code nth} (1-based) arrival of {@code sinkId} at {@code point}, once. */
    public static void arm(String sinkId, Point point, int nth, Action action) {
        String key = key(sinkId, point);
        HITS.put(key, new AtomicInteger());
        FIRED.put(key, new AtomicInteger());
        ARMED.put(key, new Armed(nth, null, action));
    }

    /**
     * Run {@code action} at the first arrival of {@code sinkId} at {@code point} that {@code when}
     * accepts, once: for faults that must hit one particular transaction (say, the last one of a
     * job) rather than whatever arrives n-th.
     */
    public static void armWhen(String sinkId, Point point, Predicate<Arrival> when, Action action) {
        String key = key(sinkId, point);
        HITS.put(key, new AtomicInteger());
        FIRED.put(key, new AtomicInteger());
        ARMED.put(key, new Armed(0, java.util.Objects.requireNonNull(when, "when"), action));
    }

    /**
     * From now on every arrival of {@code sinkId} at {@code point}, of every subtask and attempt, waits {@code
     * lag} before it goes on (at {@link Point#BEFORE_COMMIT}: a commit that comes a while after its checkpoint
     * completed, as behind a busy committer or a synchronous standby). Until {@link #reset}; armed faults
     * fire after the wait.
     */
    public static void lag(String sinkId, Point point, java.time.Duration lag) {
        LAGS.put(key(sinkId, point), lag);
    }

    /** How many times the action armed at {@code point} of {@code sinkId} ran since it was armed. */
    public static int fired(String sinkId, Point point) {
        AtomicInteger f = FIRED.get(key(sinkId, point));
        return f == null ? 0 : f.get();
    }

    /** How many times {@code sinkId}'s subtasks arrived at {@code point} since it was last armed or reset. */
    public static int hits(String sinkId, Point point) {
        AtomicInteger h = HITS.get(key(sinkId, point));
        return h == null ? 0 : h.get();
    }

    /** Disarms and forgets everything of {@code sinkId}: armed points, counts, lags. Call it after each test. */
    public static void reset(String sinkId) {
        String prefix = sinkId + "/";
        HITS.keySet().removeIf(k -> k.startsWith(prefix));
        ARMED.keySet().removeIf(k -> k.startsWith(prefix));
        FIRED.keySet().removeIf(k -> k.startsWith(prefix));
        LAGS.keySet().removeIf(k -> k.startsWith(prefix));
        WRITER_ATTEMPTS.keySet().removeIf(k -> k.startsWith(prefix));
        WRITER_STARTS.keySet().removeIf(k -> k.startsWith(prefix));
        RESTORED_CHECKPOINTS.keySet().removeIf(k -> k.startsWith(prefix));
        PREPARE_FAILURES.remove(sinkId);
        RESTORED_COMMIT_DELAYS.remove(sinkId);
    }

    private static String key(String sinkId, Point point) {
        return sinkId + "/" + point;
    }

    /** Called by {@link FaultInjectingDatabase} at every point. */
    static void reach(String sinkId, Point point, int subtask, int attempt, String transactionId) throws IOException {
        String key = key(sinkId, point);
        java.time.Duration lag = LAGS.get(key);
        if (lag != null) {
            try {
                Thread.sleep(lag.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException(sinkId + ": interrupted while lagging at " + point);
            }
        }
        int n = HITS.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        Armed armed = ARMED.get(key);
        if (armed == null) {
            return;
        }
        Arrival arrival = new Arrival(sinkId, point, subtask, attempt, transactionId, n);
        if (armed.fires(arrival)) {
            FIRED.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            armed.action.run(arrival);
        }
    }

    private static final Map<String, AtomicInteger> PREPARE_FAILURES = new ConcurrentHashMap<>();

    /**
     * A lifecycle hook (for {@code sink.withLifecycleHook(...)}) with which writer {@code subtask} of
     * {@code sinkId} fails right after each of its next {@code times} prepares, whatever its attempt: a
     * subtask whose checkpoints keep failing. Cleared by {@link #reset}.
     */
    public static LifecycleHook failAfterEachPrepare(String sinkId, int subtask, int times) {
        PREPARE_FAILURES.put(sinkId, new AtomicInteger(times));
        return (point, context, id) -> {
            AtomicInteger left = PREPARE_FAILURES.get(sinkId);
            if (point == LifecycleHook.Point.AFTER_PREPARE
                    && context.subtask() == subtask
                    && left != null
                    && left.getAndDecrement() > 0) {
                throw new InjectedFault(sinkId + ": subtask " + subtask + " fails its checkpoint after " + id);
            }
        };
    }

    private static final Map<String, AtomicBoolean> RESTORED_COMMIT_DELAYS = new ConcurrentHashMap<>();

    /**
     * A lifecycle hook (for {@code sink.withLifecycleHook(...)}) with which the first commit of a restored
     * committer of {@code sinkId} (after a restart: attempt 1 or later; a transaction named at or before the
     * restored checkpoint) takes {@code delay} more: a COMMIT PREPARED waiting for a synchronous standby. Once
     * per sink id; cleared by {@link #reset}.
     */
    public static LifecycleHook delayFirstRestoredCommit(String sinkId, java.time.Duration delay) {
        RESTORED_COMMIT_DELAYS.put(sinkId, new AtomicBoolean());
        return (point, context, id) -> {
            AtomicBoolean done = RESTORED_COMMIT_DELAYS.get(sinkId);
            if (point == LifecycleHook.Point.BEFORE_COMMIT
                    && context.attempt() > 0
                    && done != null
                    && id.checkpointId() <= context.restoredCheckpointId().orElse(-1L)
                    && done.compareAndSet(false, true)) {
                try {
                    Thread.sleep(delay.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InjectedFault(sinkId + ": interrupted while delaying the commit of " + id);
                }
            }
        };
    }

    /** The exception a fault throws: recognizable in logs and assertions. */
    public static final class InjectedFault extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** A fault described by {@code message}, which names the sink, the point and the arrival. */
        public InjectedFault(String message) {
            super(message);
        }
    }
}
