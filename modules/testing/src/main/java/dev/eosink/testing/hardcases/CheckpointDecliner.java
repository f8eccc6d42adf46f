/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.testing.faults.PoisonableLongSerializer;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A pass-through map between the source and the sink that makes one checkpoint fail on one subtask
 * after the sink's writer of that subtask already prepared it (hard case 2), and records what the
 * database showed at that moment. For a sink that partitions its input by key, {@link
 * How#ASYNC_DECLINE_ONCE_SINK_PREPARED}.
 *
 * <p>Order inside a chained task at a barrier (Flink 2.2, {@code RegularOperatorChain}): every
 * operator's {@code prepareSnapshotPreBarrier} head to tail (the sink writer prepares its transaction
 * there), then the barrier goes out, then {@code snapshotState} tail to head (committer, writer,
 * this map, source). So whatever this map does in {@code snapshotState}, the writer of its subtask
 * has prepared and snapshotted the checkpoint already. With chaining disabled (by the job or by the
 * sink) the writer is a task of its own, on a forward edge after this map: it gets this map's barrier
 * after the records this map passed on before it, and prepares the transaction that holds them some
 * time after this map's {@code snapshotState} began, or before. So this map never infers the writer's
 * transactions from the time of its own snapshot: it knows the first and the last record it passed on
 * before each barrier, and the transaction of a barrier is the one the sink's trace ({@link
 * ProtocolTrace}) shows holding them. Before it fails a checkpoint it waits until that transaction is
 * prepared; with a chain it already is.
 *
 * <p>Ways to fail (or not), because Flink treats them differently:
 *
 * <ul>
 *   <li>{@link How#ASYNC_DECLINE}: the state handed over in the synchronous part fails to serialize
 *       in the asynchronous part. The task declines the checkpoint (CHECKPOINT_ASYNC_EXCEPTION),
 *       which {@code execution.checkpointing.tolerable-failed-checkpoints} counts: above zero the
 *       job just goes on, at zero the job fails over.
 *   <li>{@link How#ASYNC_DECLINE_ONCE_SINK_PREPARED}: as {@code ASYNC_DECLINE}, but {@code
 *       snapshotState} first waits until every writer of the sink has prepared a transaction for the
 *       checkpoint ({@link ProtocolTrace}: the sink must be traced). For a sink in another task than
 *       this map: declined at once, the abort could reach a writer before its barrier, and Flink
 *       would skip the checkpoint there, preparing nothing. This map's barrier has gone out before its
 *       {@code snapshotState}, so the writers do reach theirs meanwhile; every writer must have records
 *       in the epoch (one that has none prepares nothing, and the wait fails).
 *   <li>{@link How#SYNC_THROW}: {@code snapshotState} throws. Flink fails the task in this case
 *       whatever the tolerable number (a synchronous snapshot failure always forces a failover).
 *   <li>{@link How#BLOCK_UNTIL_ABORTED}: {@code snapshotState} does not return until another subtask
 *       has been told that the checkpoint was aborted; with a short checkpoint timeout, that is a
 *       checkpoint that expires after the sink prepared it. The late acknowledgement is ignored.
 *   <li>{@link How#SLOW_ASYNC}: the asynchronous part takes {@link PoisonableLongSerializer#SLOW_MILLIS}: a checkpoint that
 *       completes, late, while the task goes on processing records (large state elsewhere, a slow
 *       checkpoint storage). Not a failure at all.
 * </ul>
 *
 * <p>It also records, per subtask, the records it passed on before each barrier ({@link #preparedAt}:
 * the transactions that hold them), and, on {@code notifyCheckpointAborted} and on the first {@code
 * notifyCheckpointComplete} after it, what the database shows of the failed checkpoint's transactions,
 * through the {@link DatabaseView} a test registered with {@link #watch} (none: nothing is observed).
 * At a completion it first waits until the committer committed them ({@link ProtocolTrace} shows a
 * commit of each): in a chain the committer, notified first, has; a committer in a task of its own is
 * notified on its own thread, and the observation shows what that commit left, not how fast it came.
 */
public final class CheckpointDecliner extends RichMapFunction<Long, Long>
        implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;

    /** How the map makes a checkpoint fail, or not (the class comment says what Flink does with each). */
    public enum How {
        /** The asynchronous part of the snapshot fails: the task declines the checkpoint. */
        ASYNC_DECLINE,
        /** As {@link #ASYNC_DECLINE}, once every writer of the sink prepared its transaction for the checkpoint. */
        ASYNC_DECLINE_ONCE_SINK_PREPARED,
        /** {@code snapshotState} throws: the task fails over. */
        SYNC_THROW,
        /** {@code snapshotState} waits until the checkpoint was aborted (it expires). */
        BLOCK_UNTIL_ABORTED,
        /** The asynchronous part is slow: the checkpoint completes, late. */
        SLOW_ASYNC
    }

    /**
     * How long this map waits for anything (the abort {@link How#BLOCK_UNTIL_ABORTED} waits for, the
     * sink's prepare or commit) before it gives up: it fails, or observes what there is.
     */
    private static final long BLOCK_LIMIT_MILLIS = 30_000;

    /**
     * What the decliner asks the database about the sink and its table, from the task that was
     * notified. Each call runs on a connection of its own.
     */
    public interface DatabaseView {
        /** The names of the sink's prepared transactions. */
        List<String> prepared();

        /** Marker rows of transaction {@code gid} visible: 1 once it committed. */
        long markers(String gid);

        /** Rows of the table with an id in {@code minId..maxId}. */
        long rowsBetween(long minId, long maxId);

        /** All rows of the table. */
        long rows();
    }

    /** What the database showed of checkpoint {@code checkpointId}'s transactions of one subtask. */
    public static final class Observation {
        /**
         * When it was observed: {@code aborted} (at the abort notification) or {@code completed} (at the first
         * completion after it).
         */
        public final String when;
        /** The checkpoint whose notification made the observation. */
        public final long notifiedCheckpointId;
        /** The checkpoint that failed, whose transactions were observed. */
        public final long checkpointId;
        /** The subtask of this map that observed. */
        public final int subtask;
        /**
         * The sink's transactions that hold the records this subtask passed on before the failed checkpoint's barrier.
         */
        public final List<String> gids;
        /** Of {@code gids}, the ones still prepared. */
        public final List<String> stillPrepared;
        /** Marker rows of {@code gids} visible, i.e. committed. */
        public final long markersVisible;
        /** Rows of the table with an id in the id ranges of {@code gids}' epochs. */
        public final long rowsVisible;
        /** Rows in those epochs, per the trace. */
        public final long rowsPrepared;
        /** All rows of the table at that moment. */
        public final long committedRows;

        Observation(
                String when,
                long notifiedCheckpointId,
                long checkpointId,
                int subtask,
                List<String> gids,
                List<String> stillPrepared,
                long markersVisible,
                long rowsVisible,
                long rowsPrepared,
                long committedRows) {
            this.when = when;
            this.notifiedCheckpointId = notifiedCheckpointId;
            this.checkpointId = checkpointId;
            this.subtask = subtask;
            this.gids = gids;
            this.stillPrepared = stillPrepared;
            this.markersVisible = markersVisible;
            this.rowsVisible = rowsVisible;
            this.rowsPrepared = rowsPrepared;
            this.committedRows = committedRows;
        }

        @Override
        public String toString() {
            return when + "(" + notifiedCheckpointId + ") on subtask " + subtask + ": checkpoint " + checkpointId
                    + " gids=" + gids + " stillPrepared=" + stillPrepared + " markersVisible=" + markersVisible
                    + " rowsVisible=" + rowsVisible + "/" + rowsPrepared + " committedRows=" + committedRows;
        }
    }

    private static final Map<String, Long> FAILED_CHECKPOINT = new ConcurrentHashMap<>();
    private static final Map<String, Long> ABORT_SEEN = new ConcurrentHashMap<>();
    /** key -> subtask -> checkpoint -> the records this subtask passed on before that barrier (first attempt). */
    private static final Map<String, Map<Integer, Map<Long, Epoch>>> PASSED_ON = new ConcurrentHashMap<>();

    private static final Map<String, List<Observation>> OBSERVATIONS = new ConcurrentHashMap<>();
    private static final Map<String, DatabaseView> VIEWS = new ConcurrentHashMap<>();

    private final String key;
    private final int failingSubtask;
    private final int failingSnapshot;
    private final How how;

    private transient ListState<Long> state;
    private transient int snapshots;
    private transient long abortedCheckpoint;
    /** Records passed on since the last snapshot: how many, the first and the last. */
    private transient long passedOn;

    private transient long firstPassedOn;
    private transient long lastPassedOn;

    /**
     * @param key the sink id: the {@link ProtocolTrace} to read, and the key of this class's records
     * @param failingSubtask which subtask fails a checkpoint (only in attempt 0)
     * @param failingSnapshot at its how-many-th snapshot (1-based); if the sink is traced by {@link
     *     ProtocolTrace} and this map passed on no record before that barrier (as under load), at the
     *     first later one before which it did, because the tests look at what became of the
     *     transaction that holds them
     */
    public CheckpointDecliner(String key, int failingSubtask, int failingSnapshot, How how) {
        this.key = key;
        this.failingSubtask = failingSubtask;
        this.failingSnapshot = failingSnapshot;
        this.how = how;
    }

    /** Observes the database through {@code view} for decliners of {@code key}, until {@link #reset}. */
    public static void watch(String key, DatabaseView view) {
        VIEWS.put(key, view);
    }

    /** Forgets everything recorded and registered for decliners of {@code key}: call it after each test. */
    public static void reset(String key) {
        VIEWS.remove(key);
        FAILED_CHECKPOINT.remove(key);
        ABORT_SEEN.remove(key);
        PASSED_ON.remove(key);
        OBSERVATIONS.remove(key);
    }

    /** The checkpoint this map made fail, or -1 if it did not (yet). */
    public static long failedCheckpoint(String key) {
        return FAILED_CHECKPOINT.getOrDefault(key, -1L);
    }

    /**
     * Per subtask of this map (first attempt that saw the barrier of {@code checkpointId}), the sink's
     * transactions prepared so far that hold a record it passed on before that barrier: in a run whose
     * writer follows this map on a forward edge, chained or not, the transaction its writer prepared at
     * that barrier (or, if the checkpoint was aborted before the barrier reached the writer, at the next
     * one). One, or none yet; two would be an epoch split over two transactions. A subtask that passed on
     * nothing before that barrier is absent.
     */
    public static Map<Integer, List<String>> preparedAt(String key, long checkpointId) {
        Map<Integer, List<String>> result = new java.util.TreeMap<>();
        PASSED_ON.getOrDefault(key, Map.of()).forEach((subtask, byCheckpoint) -> {
            Epoch epoch = byCheckpoint.get(checkpointId);
            if (epoch != null) {
                result.put(subtask, epoch.preparedIn(key));
            }
        });
        return result;
    }

    /** What the database showed, for decliners of {@code key}, in the order observed; a copy. */
    public static List<Observation> observations(String key) {
        List<Observation> list = OBSERVATIONS.getOrDefault(key, List.of());
        synchronized (list) {
            return new ArrayList<>(list);
        }
    }

    @Override
    public Long map(Long value) {
        if (passedOn++ == 0) {
            firstPassedOn = value;
        }
        lastPassedOn = value;
        return value;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("snapshots", new PoisonableLongSerializer()));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        int attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
        long checkpointId = context.getCheckpointId();
        Epoch epoch = passedOn == 0 ? null : new Epoch(attempt, firstPassedOn, lastPassedOn);
        passedOn = 0;
        if (epoch != null) {
            PASSED_ON
                    .computeIfAbsent(key, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(subtask, k -> new ConcurrentHashMap<>())
                    .putIfAbsent(checkpointId, epoch);
        }

        snapshots++;
        boolean waitsForTheSink = how == How.ASYNC_DECLINE_ONCE_SINK_PREPARED;
        boolean traced = ProtocolTrace.traces(key);
        boolean fail = subtask == failingSubtask
                && attempt == 0
                && snapshots >= failingSnapshot
                && (waitsForTheSink || epoch != null || !traced)
                && !FAILED_CHECKPOINT.containsKey(key);
        if (fail) {
            if (waitsForTheSink) {
                awaitSinkPrepared(checkpointId);
            } else if (traced) {
                awaitPrepared(epoch, checkpointId, subtask);
            }
            FAILED_CHECKPOINT.put(key, checkpointId);
            if (how == How.SYNC_THROW) {
                throw new IllegalStateException(
                        "injected: snapshotState of checkpoint " + checkpointId + " fails on subtask " + subtask);
            }
            if (how == How.BLOCK_UNTIL_ABORTED) {
                awaitAbort(checkpointId);
                state.update(Collections.singletonList((long) snapshots));
                return;
            }
            state.update(Collections.singletonList(
                    how == How.SLOW_ASYNC ? PoisonableLongSerializer.SLOW : PoisonableLongSerializer.POISON));
        } else {
            state.update(Collections.singletonList((long) snapshots));
        }
    }

    /** Holds this task until every writer of the sink prepared a transaction for {@code checkpointId}. */
    private void awaitSinkPrepared(long checkpointId) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(BLOCK_LIMIT_MILLIS);
        while (true) {
            int writers = ProtocolTrace.writers(key);
            java.util.Set<Integer> prepared = ProtocolTrace.preparedFor(key, checkpointId);
            if (writers > 0 && prepared.size() >= writers) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("checkpoint " + checkpointId + ": within " + BLOCK_LIMIT_MILLIS
                        + " ms, only the writers of subtasks " + prepared + " of " + writers
                        + " prepared for it: is the "
                        + "sink traced (ProtocolTrace.wrap), and did every writer get records before the barrier?");
            }
            Thread.sleep(5);
        }
    }

    /**
     * Holds this task until the sink's transaction that holds the last record this map passed on
     * before the barrier of {@code checkpointId} is prepared: at once in a chain, the time the writer
     * takes to reach the barrier when it is a task of its own.
     */
    private void awaitPrepared(Epoch epoch, long checkpointId, int subtask) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(BLOCK_LIMIT_MILLIS);
        while (epoch.preparedHoldingLast(key).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("checkpoint " + checkpointId + " on subtask " + subtask + ": within "
                        + BLOCK_LIMIT_MILLIS + " ms, no transaction of the sink holding record " + epoch.last
                        + " (the last one this map passed on before the barrier) was prepared: does the writer "
                        + "follow this map on a forward edge, and was the checkpoint aborted before its barrier "
                        + "reached the writer?");
            }
            Thread.sleep(5);
        }
    }

    /** Holds this task until some subtask hears that {@code checkpointId} was aborted (it expired). */
    private void awaitAbort(long checkpointId) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(BLOCK_LIMIT_MILLIS);
        while (ABORT_SEEN.getOrDefault(key, -1L) != checkpointId) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("checkpoint " + checkpointId + " was not aborted within "
                        + BLOCK_LIMIT_MILLIS + " ms: is the checkpoint timeout short enough?");
            }
            Thread.sleep(10);
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        if (checkpointId == failedCheckpoint(key)) {
            ABORT_SEEN.put(key, checkpointId);
            abortedCheckpoint = checkpointId;
            observe("aborted", checkpointId, checkpointId);
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws InterruptedException {
        if (abortedCheckpoint > 0 && checkpointId > abortedCheckpoint) {
            // The aborted checkpoint's transactions are committed with this one: in a chain by now (its
            // committer was notified first, notifications go tail to head); a committer in a task of its
            // own commits on its own thread, so the observation waits for that commit, and shows what it left.
            awaitCommitOf(gidsOf(abortedCheckpoint));
            observe("completed", checkpointId, abortedCheckpoint);
            abortedCheckpoint = 0;
        }
    }

    /** The sink's transactions this subtask's records of the barrier of {@code checkpointId} went into so far. */
    private List<String> gidsOf(long checkpointId) {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        Epoch epoch = PASSED_ON
                .getOrDefault(key, Map.of())
                .getOrDefault(subtask, Map.of())
                .get(checkpointId);
        return epoch == null ? List.of() : epoch.preparedIn(key);
    }

    /** Waits until the committer tried to commit each of {@code gids}: the trace shows a commit of it. */
    private void awaitCommitOf(List<String> gids) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(BLOCK_LIMIT_MILLIS);
        while (!ProtocolTrace.events(key, ProtocolTrace.Kind.COMMIT).stream()
                        .map(e -> e.gid)
                        .collect(Collectors.toSet())
                        .containsAll(gids)
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private void observe(String when, long notified, long checkpointId) {
        DatabaseView db = VIEWS.get(key);
        if (db == null) {
            return;
        }
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        List<String> gids = gidsOf(checkpointId);
        List<String> prepared = db.prepared();
        List<String> stillPrepared = gids.stream().filter(prepared::contains).collect(Collectors.toList());
        long markers = 0;
        long rowsVisible = 0;
        long rowsPrepared = 0;
        for (String gid : gids) {
            markers += db.markers(gid);
            ProtocolTrace.Event epoch = ProtocolTrace.prepared(key, gid);
            rowsVisible += db.rowsBetween(epoch.minId(), epoch.maxId());
            rowsPrepared += epoch.rows();
        }
        long committed = db.rows();
        OBSERVATIONS
                .computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>()))
                .add(new Observation(
                        when,
                        notified,
                        checkpointId,
                        subtask,
                        gids,
                        stillPrepared,
                        markers,
                        rowsVisible,
                        rowsPrepared,
                        committed));
    }

    /**
     * The records one subtask of this map passed on between two barriers, in one attempt: the first and
     * the last, by which the sink's trace shows the transactions that hold them.
     */
    private static final class Epoch {
        final int attempt;
        final long first;
        final long last;

        Epoch(int attempt, long first, long last) {
            this.attempt = attempt;
            this.first = first;
            this.last = last;
        }

        /** The transactions of this attempt prepared so far that hold the first or the last record. */
        List<String> preparedIn(String key) {
            return ProtocolTrace.events(key, ProtocolTrace.Kind.PREPARED).stream()
                    .filter(e -> e.attempt == attempt && (e.holds(first) || e.holds(last)))
                    .map(e -> e.gid)
                    .distinct()
                    .collect(Collectors.toList());
        }

        /** The transactions of this attempt prepared so far that hold the last record. */
        List<String> preparedHoldingLast(String key) {
            return ProtocolTrace.events(key, ProtocolTrace.Kind.PREPARED).stream()
                    .filter(e -> e.attempt == attempt && e.holds(last))
                    .map(e -> e.gid)
                    .collect(Collectors.toList());
        }
    }
}
