/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.testing.faults.Faults;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
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
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The jobs of the hard-case suite and how a test drives them, whatever the database: environments
 * with fast checkpoints and restarts (or checkpoints only when the test triggers them), replayable
 * sources of ids, checkpoints and savepoints on demand, waiting for a job's status, and a fault that
 * holds a writer right after it prepared.
 */
public final class TestJobs {

    /**
     * The checkpoint interval of jobs whose checkpoints the test triggers: the periodic trigger never
     * fires during a test (the minimum pause pushes its first, randomized, trigger out as well).
     */
    public static final long MANUAL = Duration.ofHours(1).toMillis();

    /** How long a test waits for anything a job should do by itself. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Released by the test (or after it) to let a writer held by {@link #holdAfterPrepare} go on. */
    private static volatile CountDownLatch held = new CountDownLatch(0);

    private TestJobs() {}

    // ---------------------------------------------------------------- environments

    /** A streaming environment checkpointing every {@code checkpointMillis}, with fast restarts. */
    public static StreamExecutionEnvironment env(int parallelism, long checkpointMillis) {
        return env(parallelism, checkpointMillis, new Configuration());
    }

    /** The same, with {@code extra} options added or overriding (a savepoint to restore, another restart strategy). */
    public static StreamExecutionEnvironment env(int parallelism, long checkpointMillis, Configuration extra) {
        Configuration conf = fixedDelayRestarts(50, Duration.ofMillis(100));
        conf.addAll(extra);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointMillis);
        return env;
    }

    /**
     * A streaming environment checkpointing every {@code checkpointMillis} under Flink's own default restart
     * strategy, which restarts a checkpointing job without end: a job on it that the sink refuses at start
     * ends only if the refusal suppresses restarts ({@link #failureWithin}), and one whose start fails for a
     * while (a database down) restarts until the start succeeds.
     */
    public static StreamExecutionEnvironment envWithDefaultRestarts(int parallelism, long checkpointMillis) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointMillis);
        return env;
    }

    /** A streaming environment whose checkpoints happen only when the test triggers them. */
    public static StreamExecutionEnvironment manualEnv(int parallelism) {
        return manualEnv(parallelism, new Configuration());
    }

    /** {@link #manualEnv(int)} with {@code extra} configuration, which wins over this method's. */
    public static StreamExecutionEnvironment manualEnv(int parallelism, Configuration extra) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofMillis(MANUAL));
        conf.addAll(extra);
        return env(parallelism, MANUAL, conf);
    }

    /** A restart strategy of {@code attempts} restarts, {@code delay} apart, to pass to an environment. */
    public static Configuration fixedDelayRestarts(int attempts, Duration delay) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, delay);
        return conf;
    }

    /** No restarts: the first failure fails the job. */
    public static Configuration noRestarts() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return conf;
    }

    /** Restore from a savepoint or retained checkpoint, and fail fast: a restored run must not need a restart. */
    public static Configuration restoreFrom(String path) {
        Configuration conf = noRestarts();
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
        return conf;
    }

    // ---------------------------------------------------------------- sources

    /**
     * Ids 0..n-1, replayable from checkpoints, at about {@code perSecond} records per second. Each
     * source subtask reads a contiguous range in order. The uid keeps its state across runs.
     */
    public static DataStream<Long> ids(StreamExecutionEnvironment env, long n, double perSecond) {
        return source(env, 0, n, perSecond);
    }

    /**
     * Ids {@code offset..offset+n-1}, rebalanced over the sink's subtasks: every writer gets records
     * whatever the source's splits after a rescale, so every writer has an open transaction with rows
     * when a test wants one.
     */
    public static DataStream<Long> rebalancedIds(
            StreamExecutionEnvironment env, long offset, long n, double perSecond) {
        return source(env, offset, n, perSecond).rebalance();
    }

    private static DataStream<Long> source(StreamExecutionEnvironment env, long offset, long n, double perSecond) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> offset + index,
                n,
                RateLimiterStrategy.perSecond(perSecond),
                Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids").uid("ids");
    }

    /**
     * A pass-through map with operator state (a count), chained to the sink: when it is restored, the
     * sink's task is restored with it, whether or not the sink's own state was.
     */
    public static final class CountingMap extends RichMapFunction<Long, Long> implements CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private transient ListState<Long> state;
        private transient long count;

        /** A map that starts counting at 0, or at its restored count. */
        public CountingMap() {}

        @Override
        public Long map(Long value) {
            count++;
            return value;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            state.update(List.of(count));
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("count", Types.LONG));
            for (Long c : state.get()) {
                count += c;
            }
        }
    }

    // ---------------------------------------------------------------- checkpoints and savepoints

    /**
     * Triggers a checkpoint and waits for it to complete; returns its id. Retries while the job is not
     * (yet, or no longer) running all its tasks, which is the only reason a trigger fails in these tests.
     */
    public static long checkpoint(ClusterClient<?> client, JobID job) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                return client.triggerCheckpoint(job, CheckpointType.CONFIGURED)
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw new AssertionError("could not complete a checkpoint of job " + job, last);
    }

    /**
     * Takes a savepoint of {@code job} into {@code dir}; returns its path. Retries while not every task of
     * the job runs yet: a subtask that received no record may still be deploying on a busy machine
     * when its siblings already write, and the coordinator refuses the trigger then. Any other failure
     * fails the test.
     */
    public static String savepoint(JobClient job, Path dir) throws Exception {
        return onceAllTasksRun(job, () -> job.triggerSavepoint(dir.toUri().toString(), SavepointFormatType.CANONICAL));
    }

    /** Stops {@code job} with a savepoint into {@code dir} (draining its input or not), as {@link #savepoint}. */
    public static String stopWithSavepoint(JobClient job, boolean drain, Path dir) throws Exception {
        return onceAllTasksRun(
                job, () -> job.stopWithSavepoint(drain, dir.toUri().toString(), SavepointFormatType.CANONICAL));
    }

    private static String onceAllTasksRun(JobClient job, Supplier<CompletableFuture<String>> trigger) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                return answer(job, trigger.get());
            } catch (ExecutionException e) {
                boolean notYetRunning = ExceptionUtils.findThrowable(e, CheckpointException.class)
                        .map(c -> c.getCheckpointFailureReason()
                                == CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING)
                        .orElse(false);
                if (!notYetRunning || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * The savepoint's path once {@code pending} completes. A trigger that races the job's end may never be
     * answered (see {@link #checkpointUntilFinished}): so it is awaited only while the job runs, and at most
     * twice {@link #TIMEOUT}; either way out is an {@link ExecutionException}, as a refused trigger is.
     */
    private static String answer(JobClient job, CompletableFuture<String> pending) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos() * 2;
        while (true) {
            try {
                return pending.get(200, TimeUnit.MILLISECONDS);
            } catch (TimeoutException notYet) {
                boolean ended;
                try {
                    ended = job.getJobStatus()
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                            .isGloballyTerminalState();
                } catch (ExecutionException | TimeoutException gone) {
                    ended = true; // the cluster no longer knows the job
                }
                if (ended) {
                    // A stop with a savepoint ends the job as it answers: give the answer a moment first.
                    try {
                        return pending.get(10, TimeUnit.SECONDS);
                    } catch (TimeoutException never) {
                        throw new ExecutionException(new IllegalStateException("job " + job.getJobID()
                                + " ended while its savepoint was pending, and Flink may never answer such a trigger"));
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new ExecutionException(
                            new TimeoutException("the savepoint of job " + job.getJobID() + " was still pending after "
                                    + TIMEOUT.multipliedBy(2).toSeconds() + " s"));
                }
            }
        }
    }

    /**
     * Drives a job whose periodic checkpoints are off to its end: a bounded streaming job finishes only
     * after a checkpoint following the end of its input, which commits the last transactions.
     *
     * <p>A trigger that races the job's end (its tasks finish, or it fails over) may never be answered:
     * the coordinator of a job that has finished does not always complete the pending trigger. So each
     * trigger is awaited only while the job still runs; a checkpoint that stays pending for a whole
     * timeout while the job runs fails the test with the task threads' stacks.
     */
    public static void checkpointUntilFinished(ClusterClient<?> client, JobClient job) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos() * 2;
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("job " + job.getJobID() + " did not finish");
            }
            CompletableFuture<Long> trigger = client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED);
            long pendingSince = System.nanoTime();
            while (!trigger.isDone() && !job.getJobStatus().get().isGloballyTerminalState()) {
                if (System.nanoTime() - pendingSince > TIMEOUT.toNanos()) {
                    throw new AssertionError("a checkpoint of job " + job.getJobID() + " did not complete within "
                            + TIMEOUT + " while the job ran; its tasks:\n" + taskThreads());
                }
                Thread.sleep(20);
            }
            // a trigger that failed means the job is restarting or just finished; look at its status again
            Thread.sleep(100);
        }
        assertStatus(job, JobStatus.FINISHED);
    }

    /** The stacks of the MiniCluster's task threads: where a checkpoint that does not complete is stuck. */
    static String taskThreads() {
        StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().contains("(") && thread.getName().contains("/")) { // "Source: ids -> ... (1/2)#0"
                dump.append('"')
                        .append(thread.getName())
                        .append("\" ")
                        .append(thread.getState())
                        .append('\n');
                for (StackTraceElement frame : stack) {
                    dump.append("    at ").append(frame).append('\n');
                }
            }
        });
        return dump.toString();
    }

    /** The id of the checkpoint a savepoint or retained checkpoint holds, read from its metadata. */
    public static long checkpointIdOf(String pointer) throws IOException {
        Path dir = Paths.get(URI.create(pointer.startsWith("file:") ? pointer : "file://" + pointer));
        Path metadata = Files.isDirectory(dir) ? dir.resolve("_metadata") : dir;
        try (InputStream in = Files.newInputStream(metadata);
                DataInputStream data = new DataInputStream(in)) {
            return Checkpoints.loadCheckpointMetadata(data, TestJobs.class.getClassLoader(), pointer)
                    .getCheckpointId();
        }
    }

    /** The newest retained checkpoint ({@code chk-N} with the largest N that has metadata) under a checkpoint directory. */
    public static Path newestRetainedCheckpoint(Path checkpointsDir, JobID job) throws IOException {
        Path jobDir = checkpointsDir.resolve(job.toHexString());
        try (Stream<Path> dirs = Files.list(jobDir)) {
            return dirs.filter(d -> d.getFileName().toString().matches("chk-\\d+"))
                    .filter(d -> Files.exists(d.resolve("_metadata")))
                    .max(Comparator.comparingLong(
                            d -> Long.parseLong(d.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new AssertionError("no retained checkpoint under " + jobDir));
        }
    }

    // ---------------------------------------------------------------- job status

    /** Waits until the job reached a terminal status, and checks that it is {@code status}. */
    public static void awaitStatus(JobClient job, JobStatus status) throws Exception {
        await(
                () -> {
                    try {
                        return job.getJobStatus().get().isGloballyTerminalState();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                "job " + job.getJobID() + " to reach " + status);
        assertStatus(job, status);
    }

    /** Fails the test ({@link AssertionError}) unless the job is in {@code status} now. */
    public static void assertStatus(JobClient job, JobStatus status) throws Exception {
        JobStatus actual = job.getJobStatus().get();
        if (actual != status) {
            throw new AssertionError("job " + job.getJobID() + " is " + actual + ", expected " + status);
        }
    }

    /**
     * How the job failed, once it failed within {@code bound}: for a job that must fail at its start without
     * restarts, where restarts would take far longer than {@code bound} (for ever, with {@link
     * #envWithDefaultRestarts}). A job that finished, or still runs after {@code bound} (it restarts), fails
     * the test; a running one is cancelled first.
     */
    public static Throwable failureWithin(JobClient job, Duration bound) throws InterruptedException {
        long start = System.nanoTime();
        try {
            job.getJobExecutionResult().get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return e;
        } catch (TimeoutException e) {
            cancelUnlessDone(job);
            throw new AssertionError(
                    "job " + job.getJobID() + " did not end within " + bound
                            + ": it kept restarting instead of failing for good",
                    e);
        }
        throw new AssertionError("job " + job.getJobID() + " finished after "
                + Duration.ofNanos(System.nanoTime() - start) + "; it should have failed at its start");
    }

    /**
     * How many attempts the job's tasks ran, the most of any task, by Flink's own account (its execution
     * graph): 1 for a job that never restarted. For jobs whose sink a test cannot wrap to count writer
     * starts ({@link Faults#writerStarts}), such as a SQL connector's.
     */
    public static int attempts(MiniCluster cluster, JobID job) throws Exception {
        int most = 0;
        for (AccessExecutionVertex task : cluster.getArchivedExecutionGraph(job)
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .getAllExecutionVertices()) {
            most = Math.max(most, task.getCurrentExecutionAttempt().getAttemptNumber() + 1);
        }
        return most;
    }

    /** Cancels the job unless it ended: after a test whose assertions failed while it ran. */
    public static void cancelUnlessDone(JobClient job) {
        try {
            if (!job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            // the job ended meanwhile, or the cluster is shutting down: nothing left to cancel
        }
    }

    /** {@link #await(BooleanSupplier, String, Duration)} up to {@link #TIMEOUT}. */
    public static void await(BooleanSupplier condition, String what) throws InterruptedException {
        await(condition, what, TIMEOUT);
    }

    /**
     * Waits until {@code condition} holds, checking every 20 ms; {@link AssertionError} naming {@code what} when it
     * does not within {@code limit}.
     */
    public static void await(BooleanSupplier condition, String what, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    // ---------------------------------------------------------------- failures

    /**
     * An action that holds the writer that reaches it, right after it prepared, until the test
     * releases it ({@link #releaseHeldWriters}) or cancels the job, which interrupts it; then its task
     * fails. The checkpoint whose barrier it holds cannot complete, while the other subtasks prepare
     * for it and go on writing: a checkpoint pending with transactions prepared, as at any moment
     * between barrier and completion.
     */
    public static Faults.Action holdAfterPrepare() {
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

    /** Lets every writer held by {@link #holdAfterPrepare} go on (and fail). */
    public static void releaseHeldWriters() {
        held.countDown();
    }

    /** What {@code call} threw; an AssertionError if it returned. */
    public static Throwable failureOf(ThrowingCall call) {
        try {
            call.run();
        } catch (Throwable t) {
            return t;
        }
        throw new AssertionError("expected a failure, the call returned");
    }

    /** Every message of the cause chain of {@code t}, with the suppressed ones, one a line. */
    public static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c).append('\n');
            for (Throwable s : c.getSuppressed()) {
                all.append(s).append('\n');
            }
        }
        return all.toString();
    }

    /** The message of the first throwable in the cause chain that contains {@code text}. */
    public static String messageContaining(Throwable failure, String text) {
        List<String> seen = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains(text)) {
                return message;
            }
            seen.add(t.getClass().getName() + ": " + message);
        }
        throw new AssertionError("no cause of the failure mentions '" + text + "'; causes: " + seen);
    }

    /** A call that may throw anything. */
    @FunctionalInterface
    public interface ThrowingCall {
        /** Runs the call, which may throw anything. */
        void run() throws Throwable;
    }
}
