package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.TcpProxy;
import dev.eosink.testing.faults.CheckpointCounter;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.MaxSampler;
import dev.eosink.xa.internal.XaIds;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.nio.file.Path;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The hard cases of the core protocol (numbered as in the README's test table) against a real XA
 * database; {@link XaMariaDbITCase} and {@link XaPostgresITCase} run every test against theirs. Every
 * exactly-once test ends with exact counts asked of the database: rows = expected, zero duplicates,
 * zero missing, zero prepared XA branches of the sink left ({@code XA RECOVER}, {@code pg_prepared_xacts}).
 */
abstract class XaHardCases {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    protected final XaBackend db = backend();

    protected String table;
    protected String sinkId;

    abstract XaBackend backend();

    @BeforeEach
    void createTable(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("t").toLowerCase(Locale.ROOT);
        String base = (method.length() > 20 ? method.substring(0, 20) : method).replaceAll("[^a-z0-9_]", "_");
        table = "xa_" + base + "_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        sinkId = table.replace('_', '-');
        db.createTable(table);
        Faults.reset(sinkId);
    }

    @AfterEach
    void cleanUp() {
        db.rollbackPrepared(sinkId); // never leave branches behind for the next test, even when this one failed
        Faults.reset(sinkId);
    }

    XaSinkBuilder<Long> sinkBuilder() {
        return sinkBuilder(db.jdbcUrl());
    }

    /** The test's sink, connecting to {@code url}: the database's, or a proxy's to it. */
    XaSinkBuilder<Long> sinkBuilder(String url) {
        return db.connect(XaSink.<Long>builder(), url)
                .sinkId(sinkId)
                .table(table)
                .columns("id", "payload")
                .rows(id -> new Object[] {id, "row-" + id})
                .batchSize(100)
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50));
    }

    ExactlyOnceSink<Long> faultySink() {
        return FaultInjectingDatabase.wrap(sinkBuilder().build());
    }

    static StreamExecutionEnvironment env(int parallelism, long checkpointMillis, Configuration extra) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 50);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        conf.addAll(extra);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointMillis);
        return env;
    }

    static StreamExecutionEnvironment env(int parallelism, long checkpointMillis) {
        return env(parallelism, checkpointMillis, new Configuration());
    }

    static Configuration noRestarts() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return conf;
    }

    /** Ids 0..n-1, replayable from checkpoints, at about {@code perSecond}; the uid keeps its state across runs. */
    static DataStream<Long> ids(StreamExecutionEnvironment env, long n, double perSecond) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index, n, RateLimiterStrategy.perSecond(perSecond), Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids").uid("ids");
    }

    long rows() {
        return db.count("SELECT count(*) FROM " + table);
    }

    List<String> preparedLeft() {
        return db.preparedGtrids(sinkId);
    }

    /** Exactly ids 0..n-1, each once, and no prepared branch of the sink left in the database. */
    void assertExactlyOnce(long n) {
        assertExactlyOnce(db, n);
    }

    void assertExactlyOnce(XaBackend db, long n) {
        long rows = db.count("SELECT count(*) FROM " + table);
        long distinct = db.count("SELECT count(DISTINCT id) FROM " + table);
        long inRange = db.count("SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ?", n);
        assertThat(preparedLeft()).as("prepared XA branches of sink %s left on %s", sinkId, db).isEmpty();
        assertThat(rows - distinct).as("duplicate rows in %s on %s", table, db).isZero();
        assertThat(n - inRange).as("missing ids in %s on %s", table, db).isZero();
        assertThat(rows).as("rows in %s on %s", table, db).isEqualTo(n);
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        await(condition, what, Duration.ofSeconds(60));
    }

    static void await(BooleanSupplier condition, String what, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** The straight path; hard case 11: a bounded job's last records are committed by its final checkpoint. */
    @Test
    void boundedJobCommitsEverythingExactlyOnce() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 5_000, 5_000).sinkTo(sinkBuilder().build());
        env.execute("bounded");
        assertExactlyOnce(5_000);
    }

    /** Hard case 1: a failure between prepare and checkpoint completion; the restarted writer rolls it back. */
    @Test
    void failureAfterPrepareIsRolledBackByTheRestartedWriter() throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 3_000).sinkTo(faultySink());
        env.execute("failure after prepare");
        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertExactlyOnce(4_000);
    }

    /** Hard case 3: a crash after the checkpoint completed, before the commit: the restored committer commits. */
    @Test
    void crashBeforeCommitIsCommittedByTheRestoredCommitter() throws Exception {
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 2);
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 3_000).sinkTo(faultySink());
        env.execute("crash before commit");
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 4: the commit went through, the task died before Flink heard of it; the restored
     * committer's commit answers XAER_NOTA, the branch is not in the recover list, and its marker row
     * proves it committed. Nothing is written twice.
     */
    @Test
    void commitDoneBeforeTheCrashIsProvedByItsMarker() throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_COMMIT, 2);
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 3_000).sinkTo(faultySink());
        env.execute("crash after commit");
        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_COMMIT)).isEqualTo(1);
        assertExactlyOnce(4_000);
    }

    /** Hard case 2: a checkpoint declined after the writers prepared it is committed by the next completed one. */
    @Test
    void declinedCheckpointIsCommittedByTheNextCompletedOne() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        ids(env, 4_000, 3_000).map(new XaDecliner(sinkId, 3)).sinkTo(faultySink());
        env.execute("declined checkpoint, tolerated");
        assertThat(XaDecliner.failedCheckpoint(sinkId)).as("checkpoint declined").isPositive();
        assertThat(XaDecliner.abortedCheckpoint(sinkId)).isEqualTo(XaDecliner.failedCheckpoint(sinkId));
        assertThat(Faults.writerAttempts(sinkId, 0)).as("no failover").containsExactly(0);
        assertExactlyOnce(4_000);
    }

    /** Hard case 13: an epoch without records starts no branch, prepares nothing and writes no marker. */
    @Test
    void emptyCheckpointsPrepareNothing() throws Exception {
        StreamExecutionEnvironment env = env(1, 50);
        CheckpointCounter.reset(sinkId);
        ids(env, 20, 8).map(new CheckpointCounter<>(sinkId)).sinkTo(faultySink());
        env.execute("mostly empty epochs");
        long prepares = Faults.hits(sinkId, Faults.Point.BEFORE_PREPARE);
        long markers = db.count("SELECT count(*) FROM " + XaBackend.MARKERS + " WHERE sink_id = ?", sinkId);
        assertThat(prepares).isEqualTo(markers).isBetween(1L, 20L);
        assertThat(CheckpointCounter.completed(sinkId)).as("completed checkpoints").isGreaterThan(2L * prepares);
        assertExactlyOnce(20);
    }

    /** Hard case 12: the epoch's connection dies mid-epoch (every session of the sink is cut): replayed once. */
    @Test
    void lostConnectionMidEpochFailsTheTaskAndReplays() throws Exception {
        Faults.arm(sinkId, Faults.Point.WRITE, 1_500, a -> assertThat(db.killSinkSessions(sinkId)).isPositive());
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 3_000).sinkTo(faultySink());
        env.execute("connections cut mid-epoch");
        assertThat(Faults.fired(sinkId, Faults.Point.WRITE)).isEqualTo(1);
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 1 where the guard and the branch live on different sessions: the task manager dies
     * while its XA PREPARE is still on its way to being executed. The proxy holds that request back
     * and resets the client at once (the writer's task fails, its guard session ends, the restarted
     * writer claims the guard), keeps the epoch session open on the server, and delivers the PREPARE
     * a second after the restarted writer opened, when it would long have listed the prepared
     * branches: the branch is prepared after that listing. The restarted writer must wait for that
     * session (the branch lock) and roll the branch back; without that, it stays prepared, holding
     * its locks, and this test finds it left.
     */
    @Test
    void aPrepareStillRunningWhenTheWriterRestartsIsWaitedForAndRolledBack() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(db.jdbcUrl())) {
            // The third prepare of the job: after checkpoints completed, so the restart restores one.
            Faults.arm(sinkId, Faults.Point.BEFORE_PREPARE, 3, a -> proxy.holdWhenClientSends(db.prepareRequest()));
            StreamExecutionEnvironment env = env(1, 200);
            ids(env, 3_000, 3_000).sinkTo(FaultInjectingDatabase.wrap(sinkBuilder(proxy.jdbcUrl(db.jdbcUrl())).build()));
            JobClient job = env.executeAsync("prepare still running at the restart");
            try {
                await(() -> proxy.holds() == 1 && Faults.writerAttempts(sinkId, 0).size() > 1, "the restarted writer");
                Thread.sleep(1_000); // a writer that does not wait lists the prepared branches within milliseconds
                assertThat(preparedLeft()).as("the held branch is not prepared yet").isEmpty();
                proxy.releaseHeld();
                job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            } finally {
                proxy.releaseHeld();
                cancelUnlessDone(job);
            }
        }
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_PREPARE)).isEqualTo(1);
        assertExactlyOnce(3_000);
    }

    /**
     * The network stalls (nothing moves, every socket stays open) in the middle of an epoch, or while
     * a commit is on its way. The stalled call ends within the network timeout (the watchdog aborts
     * its connection; the driver's read timeout is off here): the writer's task fails over, or the
     * committer retries on a new connection; either opens a new connection, which resumes the
     * network. Then the job ends exact.
     */
    @ParameterizedTest(name = "stalled at {0}")
    @ValueSource(strings = {"WRITE", "BEFORE_COMMIT"})
    void aStalledNetworkEndsWithinTheNetworkTimeoutAndTheJobEndsExact(String at) throws Exception {
        Faults.Point point = Faults.Point.valueOf(at);
        Duration timeout = Duration.ofSeconds(2);
        AtomicLong stalledAt = new AtomicLong();
        AtomicInteger acceptedBefore = new AtomicInteger();
        try (TcpProxy proxy = TcpProxy.to(db.jdbcUrl())) {
            Faults.arm(sinkId, point, point == Faults.Point.WRITE ? 1_500 : 2, a -> {
                acceptedBefore.set(proxy.connectionsAccepted());
                proxy.stall();
                stalledAt.set(System.nanoTime());
            });
            StreamExecutionEnvironment env = env(1, 200);
            ids(env, 3_000, 3_000).sinkTo(FaultInjectingDatabase.wrap(sinkBuilder(proxy.jdbcUrl(db.jdbcUrl()))
                    .networkTimeout(timeout)
                    .lockTimeout(Duration.ofSeconds(1))
                    // No driver read timeout: only the sink's watchdog can end the stalled call, as for a
                    // stalled write or an xaDataSource configured without one.
                    .property("socketTimeout", "0")
                    .build()));
            JobClient job = env.executeAsync("network stalled at " + point);
            Duration ended;
            try {
                await(() -> stalledAt.get() != 0, "the stall", Duration.ofSeconds(60));
                // A stalled call that is never ended opens no new connection: this wait would run out.
                await(() -> proxy.connectionsAccepted() > acceptedBefore.get(), "a new connection after the stalled "
                        + "call was ended", Duration.ofSeconds(20));
                ended = Duration.ofNanos(System.nanoTime() - stalledAt.get());
                proxy.resume();
                job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            } finally {
                proxy.resume();
                cancelUnlessDone(job);
            }
            assertThat(ended).as("from the stall to the new connection").isBetween(timeout.minusMillis(100), timeout.plusSeconds(10));
        }
        assertThat(Faults.fired(sinkId, point)).isEqualTo(1);
        assertExactlyOnce(3_000);
    }

    /**
     * A write of the writer's branch waits for a row lock that another transaction holds (an
     * uncommitted row with the same key): it fails within the lock timeout, naming the timeout, the
     * sink, the subtask, the table, the branch and the remedy; nothing becomes visible or stays prepared.
     */
    @Test
    void aWriteWaitingOnALockFailsWithinTheLockTimeoutNamingIt() throws Exception {
        db.execute("ALTER TABLE " + table + " ADD PRIMARY KEY (id)");
        Throwable failure = null;
        Duration took;
        try (java.sql.Connection holder = db.admin()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " (id, payload) VALUES (42, 'held by another transaction')");
            }
            StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
            ids(env, 1_000, 5_000).sinkTo(sinkBuilder().lockTimeout(Duration.ofSeconds(2)).build());
            long t0 = System.nanoTime();
            JobClient job = env.executeAsync("write waits on a lock");
            try {
                job.getJobExecutionResult().get(40, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                failure = e;
            } finally {
                took = Duration.ofNanos(System.nanoTime() - t0);
                cancelUnlessDone(job);
                holder.rollback();
            }
        }
        assertThat(failure).as("the job fails").isNotNull();
        assertThat(took).as("lock timeout 2 s, plus the job's start").isLessThan(Duration.ofSeconds(30));
        assertThat(messages(failure))
                .contains("lock timeout (2000 ms")
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("XA branch e1/")
                .contains("Remedy: find the holder");
        assertThat(rows()).as("nothing of the epoch is visible").isZero();
        assertThat(preparedLeft()).isEmpty();
    }

    static void cancelUnlessDone(JobClient job) {
        try {
            if (!job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            // the job ended meanwhile, or the cluster is shutting down: nothing left to cancel
        }
    }

    /**
     * Hard case 4, the other way: a branch a completed checkpoint promised is rolled back by someone else
     * before the commit. The commit answers XAER_NOTA, the branch is not prepared any more, its marker is
     * absent: the job fails loudly naming the transaction, never assuming success.
     */
    @Test
    void branchRolledBackBySomeoneElseFailsTheJobLoudly() throws Exception {
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 2,
                a -> {
                    try {
                        db.rollbackOne(TransactionId.parse(a.transactionId).orElseThrow());
                    } catch (Exception e) {
                        throw new java.io.IOException(e);
                    }
                });
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        ids(env, 3_000, 3_000).sinkTo(faultySink());
        Throwable failure = null;
        try {
            env.execute("lost branch");
        } catch (Exception e) {
            failure = e;
        }
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertThat(failure).as("the job fails").isNotNull();
        assertThat(messages(failure))
                .contains("LOST")
                .contains("eos1/" + sinkId + "/0/")
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("marker row is absent");
        assertThat(rows()).as("rows of the lost branch are missing, never assumed committed").isLessThan(3_000);
    }

    /** Hard case 5: every connection cut right before a commit: the committer reconnects and retries. */
    @Test
    void commitOnALostConnectionIsRetriedOnANewOne() throws Exception {
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 3, a -> db.killSinkSessions(sinkId));
        StreamExecutionEnvironment env = env(1, 200);
        ids(env, 3_000, 3_000).sinkTo(faultySink());
        env.execute("connections cut before a commit");
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertExactlyOnce(3_000);
    }

    /**
     * Hard case 6 under leftoverPolicy(ROLLBACK): a fresh start rolls back its own sink's leftovers of
     * other jobs (any old subtask), and nothing else.
     */
    @Test
    void freshStartRollsBackOwnLeftoversOnly() throws Exception {
        TransactionId own0 = new TransactionId(sinkId, 0, 7, "aaaaaaaa");
        TransactionId own3 = new TransactionId(sinkId, 3, 2, "bbbbbbbb"); // an earlier run at parallelism 4
        String otherSink = sinkId + "-other";
        db.stagePrepared(table, own0, 1_000_000, 1_000_100);
        db.stagePrepared(table, own3, 2_000_000, 2_000_050);
        db.stagePrepared(table, new TransactionId(otherSink, 0, 7, "cccccccc"), 3_000_000, 3_000_010);
        try {
            assertThat(preparedLeft()).hasSize(2);
            StreamExecutionEnvironment env = env(2, 200);
            ids(env, 2_000, 4_000).sinkTo(sinkBuilder().leftoverPolicy(LeftoverPolicy.ROLLBACK).build());
            env.execute("fresh start with leftovers");
            assertThat(db.preparedGtrids(otherSink)).as("another sink's branch is never touched").hasSize(1);
            assertExactlyOnce(2_000); // the leftovers' ids (>= 1,000,000) never became visible
        } finally {
            db.rollbackPrepared(otherSink);
        }
        assertThat(rows()).isEqualTo(2_000);
    }

    /**
     * Hard case 6 with the default leftoverPolicy(FAIL): another job's leftover may be a completed
     * savepoint's; a fresh start refuses, names it and the remedies, touches nothing, and fails without
     * restarts.
     */
    @Test
    void freshStartWithLeftoversOfAnotherJobRefusesToStart() throws Exception {
        TransactionId own = new TransactionId(sinkId, 0, 7, "aaaaaaaa");
        db.stagePrepared(table, own, 1_000_000, 1_000_100);
        StreamExecutionEnvironment env = env(1, 200); // restarts on: the refusal suppresses them
        ids(env, 100, 1_000).sinkTo(faultySink());
        assertThatThrownBy(() -> env.execute("refuses"))
                .rootCause()
                .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                .hasMessageContaining(own.toString())
                .hasMessageContaining("left by other job(s)")
                .hasMessageContaining("leftoverPolicy(ROLLBACK)");
        assertThat(Faults.writerAttempts(sinkId, 0)).as("no restart").containsExactly(0);
        assertThat(preparedLeft()).hasSize(1);
        assertThat(rows()).isZero();
    }

    /**
     * A failover before the job's first completed checkpoint finds its own earlier attempt's prepared
     * branch: rolled back (no checkpoint promised it), even under leftoverPolicy(FAIL).
     */
    @Test
    void aFailoverBeforeTheFirstCompletedCheckpointRollsBackItsOwnAttempt() throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 1);
        StreamExecutionEnvironment env = env(1, 200);
        ids(env, 2_000, 4_000).sinkTo(FaultInjectingDatabase.wrap(sinkBuilder().leftoverPolicy(LeftoverPolicy.FAIL).build()));
        env.execute("failover before the first checkpoint");
        assertThat(Faults.writerAttempts(sinkId, 0)).containsExactly(0, 1);
        assertExactlyOnce(2_000);
    }

    /**
     * Hard case 6, the orphan: a branch of another job (another line of history of the sink id) named at
     * or before the restored savepoint, holding keys the replay writes (a unique index). The writer
     * state restored from the savepoint names the runs whose branches its committers hold, so the orphan
     * is rolled back at start, before the replay waits on its locks.
     */
    @Test
    void anOrphanHoldingKeysTheReplayWritesIsRolledBackAtStart(@TempDir Path dir) throws Exception {
        long n = 3_000;
        db.execute("CREATE UNIQUE INDEX " + table + "_id ON " + table + " (id)");
        String savepoint = savepointThenCancel(1, n, dir, "sink");
        TransactionId orphan = new TransactionId(sinkId, 0, 1, "zzzz0000"); // named at or before any savepoint
        db.stagePrepared(table, orphan, n - 50, n); // holds the last ids, which the replay writes

        Configuration restore = noRestarts();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment second = env(1, 200, restore);
        ids(second, n, 5_000).sinkTo(sinkBuilder().build()).uid("sink");
        long t0 = System.nanoTime();
        second.execute("restored, orphan in the way");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("no lock wait").isLessThan(Duration.ofSeconds(30));
        assertExactlyOnce(n);
    }

    /**
     * A savepoint's branches stay prepared (a savepoint does not notify). Restored with a changed sink
     * uid and --allowNonRestoredState, the sources resume after the savepoint and the sink has no state:
     * those branches are the only copy of their records. The sink refuses, touches nothing; restored
     * with the sink's state, it commits them, exact.
     */
    @Test
    void aSinkRestoredWithoutItsStateNeverRollsBackTheSavepointsBranches(@TempDir Path dir) throws Exception {
        long n = 3_000;
        String savepoint = savepointThenCancel(1, n, dir, "sink");
        List<String> ofSavepoint = preparedLeft();
        assertThat(ofSavepoint).hasSize(1);

        Configuration unmatched = new Configuration();
        unmatched.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        unmatched.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        StreamExecutionEnvironment renamed = env(1, 200, unmatched);
        ids(renamed, n, 5_000).sinkTo(faultySink()).uid("sink-renamed");
        assertThatThrownBy(() -> renamed.execute("restored without the sink's state"))
                .rootCause()
                .hasMessageContaining(ofSavepoint.get(0).split("/")[4]) // the run token, in the gtrid and the name
                .hasMessageContaining("left by other job(s)")
                .hasMessageContaining("without this sink's writer state")
                .hasMessageContaining("only copy of their records");
        // The source, chained to the sink, restores its state: the sink's task is restored without writer
        // state, so the refusal comes at its first checkpoint, after that epoch's branch was prepared.
        assertThat(preparedLeft()).as("untouched").containsAll(ofSavepoint);
        assertThat(rows()).isZero();
        assertThat(Faults.writerAttempts(sinkId, 0)).as("no restart after the refusal").containsExactly(0);

        Configuration restore = noRestarts();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment remedy = env(1, 200, restore);
        ids(remedy, n, 5_000).sinkTo(sinkBuilder().build()).uid("sink");
        remedy.execute("restored with the sink's state");
        assertExactlyOnce(n);
    }

    /**
     * One subtask fails right after each of its first prepares, regional failover restarts it alone,
     * and no checkpoint completes: the other keeps preparing branches, up to maxPreparedPerSubtask, then
     * fails over too (which rolls them back) rather than exhaust the database. Then the job ends exact.
     */
    @Test
    void checkpointsThatKeepFailingCannotPileUpPreparedBranches() throws Exception {
        int bound = 3;
        MaxSampler prepared1;
        try (MaxSampler sampler = new MaxSampler(sinkId,
                () -> (int) preparedLeft().stream().filter(g -> g.split("/")[2].equals("1")).count())) {
            prepared1 = sampler;
            StreamExecutionEnvironment env = env(2, 100);
            ids(env, 4_000, 1_000).sinkTo(FaultInjectingDatabase.wrap(sinkBuilder().maxPreparedPerSubtask(bound).build())
                    .withLifecycleHook(Faults.failAfterEachPrepare(sinkId, 0, 8))); // no checkpoint completes meanwhile
            env.execute("checkpoints keep failing on one subtask");
        }
        assertThat(prepared1.max()).as("most prepared branches of subtask 1 at once").isBetween(1, bound);
        assertThat(Faults.writerAttempts(sinkId, 1)).as("the healthy subtask failed over at the bound").hasSizeGreaterThan(1);
        assertExactlyOnce(4_000);
    }

    /**
     * Runs a job of {@code n} ids at {@code parallelism}, takes a plain savepoint once every writer has
     * rows in its open branch, and cancels: a plain savepoint prepares and commits nothing, and cancel
     * rolls back only the open branches, so the savepoint's branches, one per writer, stay prepared.
     */
    private String savepointThenCancel(int parallelism, long n, Path dir, String sinkUid) throws Exception {
        StreamExecutionEnvironment first = env(parallelism, Duration.ofHours(1).toMillis());
        ids(first, n, 400).sinkTo(faultySink()).uid(sinkUid);
        JobClient job = first.executeAsync("savepoint at parallelism " + parallelism + ", then cancel");
        await(() -> Faults.hits(sinkId, Faults.Point.WRITE) > 200 * parallelism, "rows in every writer's open branch");
        String savepoint = job.triggerSavepoint(dir.toUri().toString(), SavepointFormatType.CANONICAL).get();
        assertThat(preparedLeft()).as("a plain savepoint prepares and does not commit").hasSize(parallelism);
        job.cancel().get();
        await(() -> {
            try {
                return job.getJobStatus().get() == JobStatus.CANCELED;
            } catch (Exception e) {
                return false;
            }
        }, "cancel");
        assertThat(preparedLeft()).as("cancel rolls back only the open branches").hasSize(parallelism);
        assertThat(rows()).isZero();
        return savepoint;
    }

    /**
     * Hard cases 6, 7 and 10: a job takes a plain savepoint (every writer prepares, nothing is committed)
     * and is cancelled; a branch of a later checkpoint that never completed is left too (of the old
     * subtask {@code from - 1}). The job restored from the savepoint at another parallelism commits the
     * savepoint's branches of every old subtask (2 -> 1: subtask 0 adopts old subtask 1), rolls back the
     * later branch, and the replay writes the rest once.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"2, 1", "1, 2"})
    void restoreFromSavepointAtAnotherParallelismCommitsItsBranchesAndRollsBackTheRest(
            int from, int to, @TempDir Path dir) throws Exception {
        long n = 4_000;
        String savepoint = savepointThenCancel(from, n, dir, "sink");
        db.stagePrepared(table, new TransactionId(sinkId, from - 1, 1_000, "zzzzzzzz"), 1_000_000, 1_000_050);

        Configuration restore = noRestarts();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment second = env(to, 200, restore);
        ids(second, n, 5_000).sinkTo(sinkBuilder().build()).uid("sink");
        second.execute("restored at parallelism " + to);
        assertExactlyOnce(n);
    }

    /** Hard case 9: a second live job with the same sink id is refused and cannot harm the first. */
    @Test
    void secondLiveJobWithTheSameSinkIdIsRefused() throws Exception {
        StreamExecutionEnvironment first = env(1, 200);
        ids(first, 3_000, 1_000).sinkTo(sinkBuilder().build());
        JobClient running = first.executeAsync("first");
        await(() -> rows() > 100, "the first job's first commits");

        StreamExecutionEnvironment second = env(1, 200, noRestarts());
        ids(second, 100, 1_000).sinkTo(sinkBuilder().claimWait(Duration.ofSeconds(1)).build());
        assertThatThrownBy(() -> second.execute("second"))
                .rootCause()
                .hasMessageContaining("another live session holds the ownership guard of sink id '" + sinkId + "'")
                .hasMessageContaining("give this sink a different sink id");
        running.getJobExecutionResult().get();
        assertExactlyOnce(3_000);
    }

    /**
     * Hard case 14: a record the database refuses (NULL into NOT NULL) fails the job with a message that
     * names sink, table, subtask, checkpoint and record; nothing of its epoch becomes visible, nothing is
     * left prepared, and the password never shows.
     */
    @ParameterizedTest(name = "batch size {0}")
    @ValueSource(ints = {1, 100})
    void badRecordFailsNamingSinkTableSubtaskAndCheckpoint(int batchSize) throws Exception {
        StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
        ids(env, 1_000, 5_000).sinkTo(db.connect(XaSink.<Long>builder())
                .sinkId(sinkId)
                .table(table)
                .columns("id", "payload")
                .rows(id -> new Object[] {id, id == 42 ? null : "row-" + id})
                .batchSize(batchSize)
                .build());
        Throwable failure = null;
        try {
            env.execute("bad record");
        } catch (Exception e) {
            failure = e;
        }
        assertThat(failure).as("the job fails").isNotNull();
        String messages = messages(failure);
        assertThat(messages)
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("epoch of checkpoint 1");
        // A batch of one names the record; a batch of 100 names its range (the drivers do not say which entry).
        assertThat(messages).contains(batchSize == 1
                ? "record #42 of the epoch (counting from 0) [42]"
                : "in the batch of records #0 to #99 of the epoch");
        if (!db.sinkPassword().isEmpty()) {
            assertThat(messages).doesNotContain(db.sinkPassword());
        }
        assertThat(rows()).as("nothing of the epoch is visible").isZero();
        assertThat(preparedLeft()).isEmpty();
    }

    /** Hard case 15: a missing table is found at job start, with the remedy, never the password. */
    @Test
    void missingTableIsFoundAtStartWithoutThePassword() {
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        ids(env, 10, 1_000).sinkTo(db.connect(XaSink.<Long>builder())
                .sinkId(sinkId)
                .table(table + "_missing")
                .columns("id", "payload")
                .rows(id -> new Object[] {id, "x"})
                .build());
        Throwable failure = null;
        try {
            env.execute("missing table");
        } catch (Exception e) {
            failure = e;
        }
        assertThat(failure).isNotNull();
        String messages = messages(failure);
        assertThat(messages).contains("sink '" + sinkId + "' subtask 0/1").contains(table + "_missing").contains("Remedy");
        if (!db.sinkPassword().isEmpty()) {
            assertThat(messages).doesNotContain(db.sinkPassword());
        }
    }

    /**
     * What the dialects assume of the database and its driver, measured: where a prepared branch lives,
     * who may commit it, that it survives its session's end, and that an unknown Xid answers XAER_NOTA.
     * Runs as the sink's own (least-privileged) user, so it also shows that this user may list branches.
     */
    @Test
    void preparedBranchesBehaveAsTheDialectAssumes() throws Exception {
        XADataSource ds = db.xaDataSource();
        Xid xid = XaIds.toXid(new TransactionId(sinkId, 0, 1, "aaaaaaaa"));
        Xid next = XaIds.toXid(new TransactionId(sinkId, 0, 2, "aaaaaaaa"));
        XAConnection preparer = ds.getXAConnection();
        XAConnection other = ds.getXAConnection();
        try {
            XAResource mine = preparer.getXAResource();
            mine.start(xid, XAResource.TMNOFLAGS);
            try (Statement s = preparer.getConnection().createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " (id, payload) VALUES (1, 'one')");
            }
            mine.end(xid, XAResource.TMSUCCESS);
            assertThat(mine.prepare(xid)).isEqualTo(XAResource.XA_OK);
            XAResource theirs = other.getXAResource();
            assertThat(List.of(theirs.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)))
                    .as("recover lists the branch to the sink's user").contains(xid);
            if (db.keepsPreparedBranchAttached()) {
                assertThat(xaError(() -> mine.start(next, XAResource.TMNOFLAGS))).as("next start on the preparer")
                        .isEqualTo(XAException.XAER_RMFAIL);
                assertThat(xaError(() -> theirs.commit(xid, false))).as("commit elsewhere while the preparer lives")
                        .isEqualTo(XAException.XAER_NOTA);
                preparer.close(); // detaches the branch; it survives
                assertThat(List.of(theirs.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN))).contains(xid);
                theirs.commit(xid, false);
            } else {
                theirs.commit(xid, false); // while the preparer is open
                mine.start(next, XAResource.TMNOFLAGS); // the preparer is idle again
                mine.end(next, XAResource.TMFAIL);
                mine.rollback(next);
            }
            assertThat(rows()).isEqualTo(1);
            assertThat(xaError(() -> theirs.commit(xid, false))).as("commit again").isEqualTo(XAException.XAER_NOTA);
            assertThat(xaError(() -> theirs.rollback(xid))).as("rollback of a finished branch").isEqualTo(XAException.XAER_NOTA);
        } finally {
            preparer.close();
            other.close();
        }
        assertThat(preparedLeft()).isEmpty();
    }

    interface XaCall {
        void run() throws Exception;
    }

    static int xaError(XaCall call) {
        try {
            call.run();
        } catch (XAException e) {
            return e.errorCode;
        } catch (Exception e) {
            throw new AssertionError("expected an XAException, got " + e, e);
        }
        throw new AssertionError("expected an XAException, the call succeeded");
    }

    static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c).append('\n');
            for (Throwable s : c.getSuppressed()) {
                all.append(s).append('\n');
            }
        }
        return all.toString();
    }
}
