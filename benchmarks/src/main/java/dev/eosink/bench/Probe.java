/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * What one measured run records, in its own JVM (the MiniCluster runs in the same JVM, so the
 * operators and the sink's lifecycle hook write here directly). All times are wall-clock microseconds
 * (comparable with PostgreSQL's commit timestamps on the same machine) or durations in microseconds.
 */
final class Probe {

    private Probe() {}

    /** The first record to reach any sink subtask (same pass-through operator before every sink). */
    static final AtomicLong firstRowMicros = new AtomicLong(Long.MAX_VALUE);
    /** The last end of input seen by a sink subtask (its last record has passed). */
    static final AtomicLong endOfInputMicros = new AtomicLong(0);
    /** Records that reached the sink, published every {@link ProbeOperator#PUBLISH} records per subtask. */
    static final AtomicLong recordsSeen = new AtomicLong(0);
    /** Commits seen by the hook (eosink writers only). */
    static final AtomicLong commits = new AtomicLong(0);
    /** The end of the last commit seen by the hook (eosink writers only). */
    static final AtomicLong lastCommitMicros = new AtomicLong(0);

    /** Per subtask: nanoTime when the checkpoint barrier reached the operator right before the sink. */
    private static final Map<Integer, Long> barrierNanos = new ConcurrentHashMap<>();
    /** Per subtask: nanoTime at BEFORE_PREPARE. */
    private static final Map<Integer, Long> prepareNanos = new ConcurrentHashMap<>();
    /** Per transaction: nanoTime at BEFORE_COMMIT. */
    private static final Map<String, Long> commitNanos = new ConcurrentHashMap<>();

    /** Barrier at the sink (before the writer's flush) to AFTER_PREPARE. */
    static final List<Long> barrierToPrepared = new ArrayList<>();
    /** BEFORE_PREPARE to AFTER_PREPARE: the prepare call alone. */
    static final List<Long> prepareOnly = new ArrayList<>();
    /** BEFORE_COMMIT to AFTER_COMMIT: notify (the committer's commit call) to committed. */
    static final List<Long> notifyToCommitted = new ArrayList<>();

    static final AtomicLong peakHeapAfterGc = new AtomicLong(0);
    static final AtomicLong gcCount = new AtomicLong(0);

    /**
     * Forgets everything recorded so far: called between the warm-up and the measured job of a run,
     * right after a full GC, so that the measured job starts from the same zero as a cold one. The
     * peak heap starts at the heap in use now (what survived that GC), so a run too short for a GC
     * of its own still reports a heap.
     */
    static synchronized void reset() {
        firstRowMicros.set(Long.MAX_VALUE);
        endOfInputMicros.set(0);
        recordsSeen.set(0);
        commits.set(0);
        lastCommitMicros.set(0);
        barrierNanos.clear();
        prepareNanos.clear();
        commitNanos.clear();
        barrierToPrepared.clear();
        prepareOnly.clear();
        notifyToCommitted.clear();
        peakHeapAfterGc.set(
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        gcCount.set(0);
    }

    static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    static void firstRow() {
        firstRowMicros.accumulateAndGet(wallMicros(), Math::min);
    }

    static void endOfInput(int subtask) {
        endOfInputMicros.accumulateAndGet(wallMicros(), Math::max);
        barrierNanos.remove(subtask); // the final prepare is not at a barrier: not counted
    }

    static void barrier(int subtask) {
        barrierNanos.put(subtask, System.nanoTime());
    }

    static void beforePrepare(int subtask) {
        prepareNanos.put(subtask, System.nanoTime());
    }

    static void afterPrepare(int subtask) {
        long now = System.nanoTime();
        Long barrier = barrierNanos.remove(subtask);
        Long prepare = prepareNanos.remove(subtask);
        synchronized (Probe.class) {
            if (barrier != null) {
                barrierToPrepared.add((now - barrier) / 1_000);
            }
            if (prepare != null) {
                prepareOnly.add((now - prepare) / 1_000);
            }
        }
    }

    static void beforeCommit(String transaction) {
        commitNanos.put(transaction, System.nanoTime());
    }

    static void afterCommit(String transaction) {
        long now = System.nanoTime();
        lastCommitMicros.accumulateAndGet(wallMicros(), Math::max);
        commits.incrementAndGet();
        Long start = commitNanos.remove(transaction);
        if (start != null) {
            synchronized (Probe.class) {
                notifyToCommitted.add((now - start) / 1_000);
            }
        }
    }

    static synchronized List<Long> copy(List<Long> list) {
        return new ArrayList<>(list);
    }

    /**
     * Follows every garbage collection: heap in use right after it (all heap pools), keeping the peak.
     * The MiniCluster's task manager runs in this JVM, so this is the task manager's heap (plus the
     * job manager's, which is the same in every run).
     */
    static void watchHeap() {
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getName)
                .collect(Collectors.toSet());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc)
                    .addNotificationListener(
                            (notification, handback) -> {
                                if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                                        notification.getType())) {
                                    return;
                                }
                                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                                        (CompositeData) notification.getUserData());
                                long used = 0;
                                for (Map.Entry<String, MemoryUsage> e :
                                        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                                    if (heapPools.contains(e.getKey())) {
                                        used += e.getValue().getUsed();
                                    }
                                }
                                gcCount.incrementAndGet();
                                peakHeapAfterGc.accumulateAndGet(used, Math::max);
                            },
                            null,
                            null);
        }
    }
}
