/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Failures at random moments, for the demo on a local MiniCluster (job and scheduler share one JVM).
 * A scheduler thread arms one kind of fault every few seconds; the next record, barrier or commit that
 * reaches the matching point throws. Kinds rotate, so every run exercises the pipeline, the sink's
 * whole lifecycle and a checkpoint declined after the sink prepared.
 */
public final class Chaos {

    /** Where a fault strikes. */
    public enum Kind {
        /** An exception in the pipeline, upstream of the windows. */
        PIPELINE_EXCEPTION,
        /** The sink prepared its transaction, then the task fails before the checkpoint completes. */
        SINK_AFTER_PREPARE,
        /** An operator in the sink's task declines the checkpoint after the sink prepared. */
        CHECKPOINT_DECLINED,
        /** The checkpoint completed; the task fails before COMMIT PREPARED. */
        SINK_BEFORE_COMMIT,
        /** COMMIT PREPARED succeeded; the task fails before Flink hears of it. */
        SINK_AFTER_COMMIT,
        /** The task fails mid-epoch, while writing. */
        SINK_WRITE
    }

    private static final AtomicReference<Kind> ARMED = new AtomicReference<>();
    /** Until this time (millis), the source's snapshots wait for it (see {@link #slowCheckpointsUntil}). */
    private static volatile long slowUntilMillis;

    private static final Map<Kind, AtomicLong> FIRED = new EnumMap<>(Kind.class);
    private static final AtomicLong EVENTS = new AtomicLong();
    private static final AtomicLong CHECKPOINTS = new AtomicLong();
    private static volatile Thread scheduler;

    static {
        for (Kind k : Kind.values()) {
            FIRED.put(k, new AtomicLong());
        }
    }

    private Chaos() {}

    /** Starts arming faults every {@code minMillis..maxMillis}, up to {@code maxFaults} of them. */
    public static synchronized void start(long seed, long minMillis, long maxMillis, int maxFaults) {
        if (scheduler != null) {
            return;
        }
        Random random = new Random(seed);
        Thread t = new Thread(
                () -> {
                    int next = 0;
                    try {
                        for (int armed = 0; armed < maxFaults; ) {
                            Thread.sleep(minMillis + (long) (random.nextDouble() * (maxMillis - minMillis)));
                            if (ARMED.compareAndSet(null, Kind.values()[next % Kind.values().length])) {
                                next++;
                                armed++;
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "chaos-scheduler");
        t.setDaemon(true);
        t.start();
        scheduler = t;
    }

    /** Zeroes the counters: one demo run, one set of figures. */
    public static void resetCounters() {
        FIRED.values().forEach(v -> v.set(0));
        EVENTS.set(0);
        CHECKPOINTS.set(0);
    }

    public static synchronized void stop() {
        if (scheduler != null) {
            scheduler.interrupt();
            scheduler = null;
        }
        ARMED.set(null);
        slowUntilMillis = 0;
    }

    /**
     * A slow checkpoint: until {@code epochMillis}, each snapshot of the counting map behind the source
     * waits for that time. The source has sent its barrier on by then, so the sink prepares at once, and
     * its transactions stay prepared (and age) until the slow checkpoint completes; the source's task
     * emits nothing meanwhile. For pictures of a run.
     */
    public static void slowCheckpointsUntil(long epochMillis) {
        slowUntilMillis = epochMillis;
    }

    /** Throws if {@code kind} is armed, disarming it: each armed fault strikes once. */
    static void strike(Kind kind, String where) {
        if (ARMED.get() == kind && ARMED.compareAndSet(kind, null)) {
            FIRED.get(kind).incrementAndGet();
            throw new ChaosException("chaos: " + kind + " at " + where);
        }
    }

    public static long fired() {
        return FIRED.values().stream().mapToLong(AtomicLong::get).sum();
    }

    public static Map<Kind, Long> firedByKind() {
        Map<Kind, Long> copy = new EnumMap<>(Kind.class);
        FIRED.forEach((k, v) -> copy.put(k, v.get()));
        return copy;
    }

    /** Records the source emitted, replays included. */
    public static long events() {
        return EVENTS.get();
    }

    /** The latest checkpoint completed (checkpoint ids count all checkpoints triggered). */
    public static long checkpoints() {
        return CHECKPOINTS.get();
    }

    /** The sink's lifecycle faults, as a hook for {@code ExactlyOnceSink.withLifecycleHook}. */
    public static LifecycleHook sinkHook() {
        return Chaos::atSinkPoint;
    }

    private static void atSinkPoint(LifecycleHook.Point point, SubtaskContext context, TransactionId id) {
        String where = context + (id != null ? " " + id : "");
        switch (point) {
            case WRITE:
                strike(Kind.SINK_WRITE, where);
                break;
            case AFTER_PREPARE:
                strike(Kind.SINK_AFTER_PREPARE, where);
                break;
            case BEFORE_COMMIT:
                strike(Kind.SINK_BEFORE_COMMIT, where);
                break;
            case AFTER_COMMIT:
                strike(Kind.SINK_AFTER_COMMIT, where);
                break;
            default:
                break;
        }
    }

    /**
     * A pass-through map that counts, throws {@link Kind#PIPELINE_EXCEPTION} when placed upstream and
     * declines checkpoints ({@link Kind#CHECKPOINT_DECLINED}) when chained in front of the sink: its
     * snapshot runs after the sink prepared at the same barrier.
     */
    public static final class ChaosMap<T> implements MapFunction<T, T>, CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final boolean countEvents;

        public ChaosMap(boolean countEvents) {
            this.countEvents = countEvents;
        }

        @Override
        public T map(T value) {
            if (countEvents) {
                EVENTS.incrementAndGet();
                strike(Kind.PIPELINE_EXCEPTION, "the pipeline");
            }
            return value;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws InterruptedException {
            long slow = slowUntilMillis - System.currentTimeMillis();
            if (countEvents && slow > 0) {
                Thread.sleep(slow);
            }
            if (!countEvents) {
                strike(Kind.CHECKPOINT_DECLINED, "checkpoint " + context.getCheckpointId());
            }
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (!countEvents) {
                CHECKPOINTS.accumulateAndGet(checkpointId, Math::max);
            }
        }
    }

    /** What a chaos fault throws: the demo counts them as failures survived. */
    public static final class ChaosException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ChaosException(String message) {
            super(message);
        }
    }
}
