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
 * A pass-through map, chained between the source and the sink, that makes one checkpoint fail on
 * one subtask after the sink's writer of that subtask already prepared it (hard case 2), and
 * records what the database showed at that moment. For a sink it is not chained with (one that
 * partitions its input by key), {@link How#ASYNC_DECLINE_ONCE_SINK_PREPARED}.
 *
 * <p>Order inside a chained task at a barrier (Flink 2.2, {@code RegularOperatorChain}): every
 * operator's {@code prepareSnapshotPreBarrier} head to tail (the sink writer prepares its transaction
 * there), then the barrier goes out, then {@code snapshotState} tail to head (committer, writer,
 * this map, source). So whatever this map does in {@code snapshotState}, the writer of its subtask
 * has prepared and snapshotted the checkpoint already.
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
 * <p>It also records, per subtask, which of the sink's transactions were prepared at each barrier
 * (from {@link ProtocolTrace}: the ones this subtask's writer prepared since the previous snapshot),
 * and, on {@code notifyCheckpointAborted} and on the first {@code notifyCheckpointComplete} after
 * it, what the database shows of them, through the {@link DatabaseView} a test registered with {@link
 * #watch} (none: nothing is observed).
 */
public final class CheckpointDecliner extends RichMapFunction<Long, Long>
        implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;

    public enum How {
        ASYNC_DECLINE,
        ASYNC_DECLINE_ONCE_SINK_PREPARED,
        SYNC_THROW,
        BLOCK_UNTIL_ABORTED,
        SLOW_ASYNC
    }

    /** How long {@link How#BLOCK_UNTIL_ABORTED} waits for the abort before it gives up (and fails). */
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
        public final String when;
        public final long notifiedCheckpointId;
        public final long checkpointId;
        public final int subtask;
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

        Observation(String when, long notifiedCheckpointId, long checkpointId, int subtask, List<String> gids,
                List<String> stillPrepared, long markersVisible, long rowsVisible, long rowsPrepared, long committedRows) {
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
    /** key -> subtask -> checkpoint -> gids this subtask's writer prepared at that barrier. */
    private static final Map<String, Map<Integer, Map<Long, List<String>>>> PREPARED_AT = new ConcurrentHashMap<>();
    private static final Map<String, List<Observation>> OBSERVATIONS = new ConcurrentHashMap<>();
    private static final Map<String, DatabaseView> VIEWS = new ConcurrentHashMap<>();

    private final String key;
    private final int failingSubtask;
    private final int failingSnapshot;
    private final How how;

    private transient ListState<Long> state;
    private transient int snapshots;
    private transient long traceSeen;
    private transient long abortedCheckpoint;

    /**
     * @param key the sink id: the {@link ProtocolTrace} to read, and the key of this class's records
     * @param failingSubtask which subtask fails a checkpoint (only in attempt 0)
     * @param failingSnapshot at its how-many-th snapshot (1-based); if the sink is traced by {@link
     *     ProtocolTrace} and this subtask's writer prepared nothing at that barrier (no record reached
     *     it in that epoch, as under load), at the first later one at which it prepared a transaction,
     *     because the tests look at what became of that transaction
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

    public static void reset(String key) {
        VIEWS.remove(key);
        FAILED_CHECKPOINT.remove(key);
        ABORT_SEEN.remove(key);
        PREPARED_AT.remove(key);
        OBSERVATIONS.remove(key);
    }

    /** The checkpoint this map made fail, or -1 if it did not (yet). */
    public static long failedCheckpoint(String key) {
        return FAILED_CHECKPOINT.getOrDefault(key, -1L);
    }

    /** The gids each subtask's writer prepared at the barrier of {@code checkpointId} (first attempt that saw it). */
    public static Map<Integer, List<String>> preparedAt(String key, long checkpointId) {
        Map<Integer, List<String>> result = new java.util.TreeMap<>();
        PREPARED_AT.getOrDefault(key, Map.of()).forEach((subtask, byCheckpoint) -> {
            List<String> gids = byCheckpoint.get(checkpointId);
            if (gids != null) {
                result.put(subtask, gids);
            }
        });
        return result;
    }

    public static List<Observation> observations(String key) {
        List<Observation> list = OBSERVATIONS.getOrDefault(key, List.of());
        synchronized (list) {
            return new ArrayList<>(list);
        }
    }

    @Override
    public Long map(Long value) {
        return value;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("snapshots", new PoisonableLongSerializer()));
        traceSeen = ProtocolTrace.events(key).stream().mapToLong(e -> e.seq).max().orElse(0);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        int attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
        long checkpointId = context.getCheckpointId();
        // The writer of this subtask prepared at this barrier before this call (see the class comment).
        List<ProtocolTrace.Event> fresh = ProtocolTrace.events(key, ProtocolTrace.Kind.PREPARED).stream()
                .filter(e -> e.seq > traceSeen && e.subtask == subtask && e.attempt == attempt)
                .collect(Collectors.toList());
        traceSeen = Math.max(traceSeen, ProtocolTrace.events(key).stream().mapToLong(e -> e.seq).max().orElse(0));
        PREPARED_AT.computeIfAbsent(key, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(subtask, k -> new ConcurrentHashMap<>())
                .putIfAbsent(checkpointId, fresh.stream().map(e -> e.gid).collect(Collectors.toList()));

        snapshots++;
        boolean waitsForTheSink = how == How.ASYNC_DECLINE_ONCE_SINK_PREPARED;
        boolean fail = subtask == failingSubtask && attempt == 0 && snapshots >= failingSnapshot
                && (waitsForTheSink || !fresh.isEmpty() || !ProtocolTrace.traces(key))
                && !FAILED_CHECKPOINT.containsKey(key);
        if (fail) {
            if (waitsForTheSink) {
                awaitSinkPrepared(checkpointId);
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
                        + " ms, only the writers of subtasks " + prepared + " of " + writers + " prepared for it: is the "
                        + "sink traced (ProtocolTrace.wrap), and did every writer get records before the barrier?");
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
    public void notifyCheckpointComplete(long checkpointId) {
        // The committer of this chain was notified first (notifications go tail to head), so whatever
        // it commits for this checkpoint is committed by now.
        if (abortedCheckpoint > 0 && checkpointId > abortedCheckpoint) {
            observe("completed", checkpointId, abortedCheckpoint);
            abortedCheckpoint = 0;
        }
    }

    private void observe(String when, long notified, long checkpointId) {
        DatabaseView db = VIEWS.get(key);
        if (db == null) {
            return;
        }
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        List<String> gids = PREPARED_AT.getOrDefault(key, Map.of()).getOrDefault(subtask, Map.of())
                .getOrDefault(checkpointId, List.of());
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
        OBSERVATIONS.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>()))
                .add(new Observation(when, notified, checkpointId, subtask, gids, stillPrepared, markers, rowsVisible, rowsPrepared, committed));
    }
}
