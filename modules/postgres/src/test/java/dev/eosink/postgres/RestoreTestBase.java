package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the savepoint, rescale and restart tests share on top of {@link ExactlyOnceTestBase}: jobs whose
 * checkpoints the test triggers itself (so that it knows exactly which transactions are prepared when
 * it stops, cancels or restores a job), a source of ids with an offset, a fault that holds a writer
 * right after PREPARE so that a checkpoint stays pending, and SQL helpers to see what is prepared,
 * open and marked.
 *
 * <p>The job topology is the same in every run of a test (source, rebalance, sink, with fixed uids),
 * so that any run can restore any other run's savepoint at any parallelism. The rebalance spreads
 * the records over all writer subtasks whatever the source's splits after a rescale, so every
 * writer has an open transaction with rows when the test wants one.
 */
abstract class RestoreTestBase extends ExactlyOnceTestBase {

    /**
     * The checkpoint interval of jobs whose checkpoints the test triggers: the periodic trigger never
     * fires during a test (the minimum pause pushes its first, randomized, trigger out as well).
     */
    static final long MANUAL = Duration.ofHours(1).toMillis();

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Released by the test (or after it) to let a writer held by {@link #holdAfterPrepare} go on. */
    private static volatile CountDownLatch held = new CountDownLatch(0);

    /**
     * Writer sessions are recognized by their application_name, "eosink/&lt;sinkId&gt;/&lt;subtask&gt;/writer",
     * which PostgreSQL cuts at 63 bytes: keep the sink id short enough, whatever the base class chose.
     */
    @BeforeEach
    void shortSinkId() {
        if (sinkId.length() > 40) {
            Faults.reset(sinkId);
            sinkId = sinkId.substring(0, 30) + "-" + Integer.toHexString(sinkId.hashCode());
        }
    }

    @AfterEach
    void releaseHeldWriters() {
        held.countDown();
    }

    // ---------------------------------------------------------------- jobs

    /** A streaming environment whose checkpoints happen only when the test triggers them. */
    static StreamExecutionEnvironment manualEnv(int parallelism, Configuration extra) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofMillis(MANUAL));
        conf.addAll(extra);
        return env(parallelism, MANUAL, conf);
    }

    static StreamExecutionEnvironment manualEnv(int parallelism) {
        return manualEnv(parallelism, new Configuration());
    }

    static Configuration noRestarts() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return conf;
    }

    /** Restore from a savepoint or retained checkpoint, and fail fast: a restored run must not need a restart. */
    static Configuration restoreFrom(String path) {
        Configuration conf = noRestarts();
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
        return conf;
    }

    /**
     * Ids {@code offset..offset+n-1}, replayable from checkpoints, at about {@code perSecond} records per
     * second, rebalanced over the sink's subtasks. The uid keeps the source's state addressable across
     * runs, whatever the rate or parallelism.
     */
    static DataStream<Long> ids(StreamExecutionEnvironment env, long offset, long n, double perSecond) {
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(
                        (GeneratorFunction<Long, Long>) index -> offset + index,
                        n,
                        RateLimiterStrategy.perSecond(perSecond),
                        Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids").uid("ids").rebalance();
    }

    /** The sink under test with failure injection and small batches, so an open epoch shows in the database soon. */
    ExactlyOnceSink<Long> sink() {
        // JDBC batches of 10: these tests pace themselves on writers whose open transaction already
        // holds rows on the server (an xid in pg_stat_activity). A COPY's rows stay in the server's
        // multi-insert buffer (up to 1000 rows) before they get an xid, so they would not show.
        return FaultInjectingDatabase.wrap(sinkBuilder(sinkId, table).writeMethod(WriteMethod.BATCH).batchSize(10).build());
    }

    /** Source, rebalance, sink: the one topology every run of these tests uses. */
    void pipeline(StreamExecutionEnvironment env, long offset, long n, double perSecond) {
        ids(env, offset, n, perSecond).sinkTo(sink()).uid("eosink").name("eosink");
    }

    /**
     * Source, rebalance, [a stateful map chained to the sink,] the given sink under the given uid: for
     * runs that change the sink (its uid, its options) while the sources keep theirs.
     */
    void pipeline(StreamExecutionEnvironment env, long n, double perSecond, ExactlyOnceSink<Long> sink, String sinkUid,
            boolean statefulMap) {
        DataStream<Long> in = ids(env, 0, n, perSecond);
        if (statefulMap) {
            in = in.map(new CountingMap()).uid("counting");
        }
        in.sinkTo(sink).uid(sinkUid).name("eosink");
    }

    /**
     * A pass-through map with operator state (a count), chained to the sink: when it is restored, the
     * sink's task is restored with it, whether or not the sink's own state was.
     */
    static final class CountingMap extends org.apache.flink.api.common.functions.RichMapFunction<Long, Long>
            implements org.apache.flink.streaming.api.checkpoint.CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private transient org.apache.flink.api.common.state.ListState<Long> state;
        private transient long count;

        @Override
        public Long map(Long value) {
            count++;
            return value;
        }

        @Override
        public void snapshotState(org.apache.flink.runtime.state.FunctionSnapshotContext context) throws Exception {
            state.update(List.of(count));
        }

        @Override
        public void initializeState(org.apache.flink.runtime.state.FunctionInitializationContext context) throws Exception {
            state = context.getOperatorStateStore().getListState(
                    new org.apache.flink.api.common.state.ListStateDescriptor<>("count", Types.LONG));
            for (Long c : state.get()) {
                count += c;
            }
        }
    }

    void pipeline(StreamExecutionEnvironment env, long n, double perSecond) {
        pipeline(env, 0, n, perSecond);
    }

    // ---------------------------------------------------------------- checkpoints and savepoints

    /**
     * Triggers a checkpoint and waits for it to complete; returns its id. Retries while the job is not
     * (yet, or no longer) running all its tasks, which is the only reason a trigger fails in these tests.
     */
    static long checkpoint(ClusterClient<?> client, JobID job) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                return client.triggerCheckpoint(job, CheckpointType.CONFIGURED).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw new AssertionError("could not complete a checkpoint of job " + job, last);
    }

    /**
     * Drives a job whose periodic checkpoints are off to its end: a bounded streaming job finishes only
     * after a checkpoint following the end of its input, which commits the last transactions.
     */
    static void checkpointUntilFinished(ClusterClient<?> client, JobClient job) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos() * 2;
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("job " + job.getJobID() + " did not finish");
            }
            try {
                client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // the job is restarting or just finished; look at its status again
            }
            Thread.sleep(100);
        }
        assertStatus(job, JobStatus.FINISHED);
    }

    /** The id of the checkpoint a savepoint or retained checkpoint holds, read from its metadata. */
    static long checkpointIdOf(String pointer) throws IOException {
        Path dir = Paths.get(URI.create(pointer.startsWith("file:") ? pointer : "file://" + pointer));
        Path metadata = Files.isDirectory(dir) ? dir.resolve("_metadata") : dir;
        try (InputStream in = Files.newInputStream(metadata);
                DataInputStream data = new DataInputStream(in)) {
            return Checkpoints.loadCheckpointMetadata(data, RestoreTestBase.class.getClassLoader(), pointer)
                    .getCheckpointId();
        }
    }

    /** The newest retained checkpoint ({@code chk-N} with the largest N that has metadata) under a checkpoint directory. */
    static Path newestRetainedCheckpoint(Path checkpointsDir, JobID job) throws IOException {
        Path jobDir = checkpointsDir.resolve(job.toHexString());
        try (Stream<Path> dirs = Files.list(jobDir)) {
            return dirs.filter(d -> d.getFileName().toString().matches("chk-\\d+"))
                    .filter(d -> Files.exists(d.resolve("_metadata")))
                    .max(Comparator.comparingLong(d -> Long.parseLong(d.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new AssertionError("no retained checkpoint under " + jobDir));
        }
    }

    static void awaitStatus(JobClient job, JobStatus status) throws Exception {
        await(() -> {
            try {
                return job.getJobStatus().get().isGloballyTerminalState();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "job " + job.getJobID() + " to reach " + status);
        assertStatus(job, status);
    }

    static void assertStatus(JobClient job, JobStatus status) throws Exception {
        JobStatus actual = job.getJobStatus().get();
        if (actual != status) {
            throw new AssertionError("job " + job.getJobID() + " is " + actual + ", expected " + status);
        }
    }

    // ---------------------------------------------------------------- faults

    /**
     * An action that holds the writer that reaches it, right after its PREPARE TRANSACTION, until the test
     * releases it (or cancels the job, which interrupts it). The checkpoint whose barrier it holds cannot
     * complete, while the other subtasks prepare for it and go on writing: a checkpoint pending with
     * transactions prepared, as at any moment between barrier and completion.
     */
    static Faults.Action holdAfterPrepare() {
        CountDownLatch latch = new CountDownLatch(1);
        held = latch;
        return arrival -> {
            try {
                if (!latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new Faults.InjectedFault("held writer was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("held writer interrupted (job cancelled)");
            }
            throw new Faults.InjectedFault(arrival.sinkId + ": released held writer fails its checkpoint");
        };
    }

    // ---------------------------------------------------------------- what the database shows

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /**
     * Writer sessions of this sink with an open transaction that has written rows (an xid is assigned at
     * the first insert). After a checkpoint completed, such a transaction belongs to the next epoch.
     */
    long openWriterTransactions() {
        return db.count(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ? AND backend_xid IS NOT NULL",
                "eosink/" + sinkId + "/%/writer");
    }

    long writerSessions() {
        return db.count("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ?", "eosink/" + sinkId + "/%/writer");
    }

    /** Waits until {@code writers} writer subtasks hold an open transaction with rows. */
    void awaitOpenTransactions(int writers) throws InterruptedException {
        await(() -> openWriterTransactions() >= writers, writers + " writers of " + sinkId + " with an open transaction");
    }

    List<TransactionId> prepared() {
        return preparedLeft().stream().map(g -> TransactionId.parse(g).orElseThrow()).collect(Collectors.toList());
    }

    void awaitPrepared(long checkpointId, int count) throws InterruptedException {
        await(() -> prepared().stream().filter(id -> id.checkpointId() == checkpointId).count() >= count,
                count + " prepared transactions of checkpoint " + checkpointId);
    }

    static Set<Integer> subtasks(List<TransactionId> ids) {
        return ids.stream().map(TransactionId::subtask).collect(Collectors.toSet());
    }

    static Set<Long> checkpoints(List<TransactionId> ids) {
        return ids.stream().map(TransactionId::checkpointId).collect(Collectors.toSet());
    }

    /** The gids of this sink's marker rows: the transactions that committed. */
    Set<String> markedGids() {
        return new HashSet<>(strings("SELECT gid FROM eosink_markers WHERE sink_id = ?", sinkId));
    }

    long markedRows() {
        return db.count("SELECT coalesce(sum(row_count), 0) FROM eosink_markers WHERE sink_id = ?", sinkId);
    }

    /** id -> how many rows have it. */
    Map<Long, Long> idCounts() {
        Map<Long, Long> counts = new HashMap<>();
        query("SELECT id, count(*) FROM " + table + " GROUP BY id", rs -> counts.put(rs.getLong(1), rs.getLong(2)));
        return counts;
    }

    Set<Long> longs(String sql, Object... params) {
        Set<Long> values = new HashSet<>();
        query(sql, rs -> values.add(rs.getLong(1)), params);
        return values;
    }

    List<String> strings(String sql, Object... params) {
        List<String> values = new ArrayList<>();
        query(sql, rs -> values.add(rs.getString(1)), params);
        return values;
    }

    interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    void query(String sql, RowReader reader, Object... params) {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }
}
