/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import dev.eosink.core.flink.SinkV2;
import dev.eosink.core.protocol.CheckpointOutcomeOperator;
import dev.eosink.core.protocol.CommitterClassLoader;
import dev.eosink.core.protocol.ExactlyOnceCommitter;
import dev.eosink.core.protocol.ExactlyOnceWriter;
import dev.eosink.core.protocol.FlinkRelease;
import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.PreparedTransactionSerializer;
import dev.eosink.core.protocol.SinkSubtask;
import dev.eosink.core.protocol.WriterState;
import dev.eosink.core.protocol.WriterStateSerializer;
import dev.eosink.core.protocol.WriterTask;
import dev.eosink.core.spi.HookedDatabase;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import org.apache.flink.streaming.api.transformations.WithBoundedness;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An exactly-once Flink sink over any {@link TransactionalDatabase}. Users get one from a database
 * module's builder (for PostgreSQL: {@code PostgresSink.builder()}), or build one over their own
 * transactional system with {@link #ExactlyOnceSink(TransactionalDatabase, SinkSettings)}, and pass it
 * to {@code stream.sinkTo(...)}.
 *
 * <p>Writer and committer follow Flink's Sink V2 two-phase commit: the writer prepares one database
 * transaction per subtask and checkpoint, the committer commits it when the checkpoint completes. The
 * protocol is in {@link ExactlyOnceWriter}, {@link ExactlyOnceCommitter} and {@link
 * dev.eosink.core.protocol.RecoveryPlan}. After the committer, a small operator ({@link
 * CheckpointOutcomeOperator}) tells the writers which checkpoints completed or were aborted, which
 * Flink tells a sink writer nothing of.
 *
 * <p>The class is the same source for every Flink line eosink is built for; it implements Flink's
 * {@code Sink} through {@link SinkV2}, which has one declaration per line.
 */
@PublicEvolving
public class ExactlyOnceSink<IN>
        implements SinkV2<IN>,
                SupportsCommitter<PreparedTransaction>,
                SupportsWriterState<IN, WriterState>,
                SupportsPreWriteTopology<IN>,
                SupportsPostCommitTopology<PreparedTransaction> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceSink.class);

    private final TransactionalDatabase<IN> database;
    private final SinkSettings settings;
    private final InputDistribution<IN> distribution;

    /**
     * The job's checkpoint timeout, read from the job's configuration when Flink translates the sink
     * (before the sink is serialized into the job graph): how long a writer waits for the outcome of
     * its last transaction's checkpoint.
     */
    private Duration checkpointTimeout = ExactlyOnceWriter.DEFAULT_CHECKPOINT_TIMEOUT;

    /**
     * The job's checkpoint interval, read with the timeout: the default threshold of the writers' warning
     * about transactions that stay prepared ({@link SinkSettings#preparedAgeWarning()}); null when unknown.
     */
    private Duration checkpointInterval;

    /**
     * Drawn anew whenever Flink translates the sink into a job graph ({@link #addPreWriteTopology}), and so
     * serialized with it: every task of one submission of the job graph, on every task manager and in every
     * attempt, reads the same value, and a JobManager failover that recovers the job graph keeps it. A new
     * submission draws a new one, even under the same job id. With the job id it makes the {@linkplain
     * TransactionId#executionTag execution tag} of every transaction name, by which a writer knows what its
     * own execution prepared.
     */
    private String executionNonce = TransactionId.newExecutionNonce();

    /**
     * The sink over {@code database} with {@code settings}: the public entry point for a sink of one's
     * own transactional system (an implementation of the SPI in {@code dev.eosink.core.spi}; see
     * {@code docs/extending.md}), and what the database modules' builders call. Users of PostgreSQL or XA
     * call a builder such as {@code PostgresSink.builder()} instead. Checkpointing and the settings are
     * checked when Flink translates the job ({@link #addPreWriteTopology}).
     */
    public ExactlyOnceSink(TransactionalDatabase<IN> database, SinkSettings settings) {
        this(database, settings, InputDistribution.asGiven());
    }

    /** The same, with the writers' input distributed by {@code distribution} (by key, for upserts). */
    public ExactlyOnceSink(
            TransactionalDatabase<IN> database, SinkSettings settings, InputDistribution<IN> distribution) {
        this.database = Objects.requireNonNull(database, "database");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.distribution = Objects.requireNonNull(distribution, "distribution");
    }

    /** The database the sink writes to and commits in, as given to the constructor; never null. */
    public TransactionalDatabase<IN> database() {
        return database;
    }

    /** The protocol's settings the sink runs with, as given to the constructor; never null. */
    public SinkSettings settings() {
        return settings;
    }

    /** How the writers' input is distributed; a sink wrapping this one's database keeps it. */
    public InputDistribution<IN> distribution() {
        return distribution;
    }

    /**
     * The same sink, calling {@code hook} at every point of each transaction's life: for failure
     * injection in tests and demos, or instrumentation.
     */
    public ExactlyOnceSink<IN> withLifecycleHook(LifecycleHook hook) {
        return new ExactlyOnceSink<>(new HookedDatabase<>(database, hook), settings, distribution);
    }

    @Override
    public ExactlyOnceWriter<IN> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, Collections.emptyList());
    }

    @Override
    public ExactlyOnceWriter<IN> restoreWriter(WriterInitContext context, Collection<WriterState> recoveredState)
            throws IOException {
        SubtaskContext subtask = subtaskContext(context);
        // Flink's own sink operators of some patch releases end the input in ways the protocol cannot rely on.
        FlinkRelease.check(subtask);
        // Before anything is opened: what the session loads (a JDBC driver) must not outlive the job.
        database.registerReleaseHooks(context.getUserCodeClassLoader());
        return refusedWithoutRestarts(() -> new ExactlyOnceWriter<>(
                sinkSubtask(subtask),
                database.openWriter(subtask),
                recoveredState,
                WriterTask.of(
                        context.metricGroup(), context.getMailboxExecutor(), checkpointTimeout, checkpointInterval)));
    }

    @Override
    public Committer<PreparedTransaction> createCommitter(CommitterInitContext context) throws IOException {
        SubtaskContext subtask = subtaskContext(context);
        // Before anything is opened, as a writer does: a committer may run on a TaskManager where no writer
        // of its job does (see CommitterClassLoader).
        Optional<UserCodeClassLoader> userCode = CommitterClassLoader.of(context);
        if (userCode.isPresent()) {
            database.registerReleaseHooks(userCode.get());
        } else {
            LOG.warn(
                    "{}: Flink gave the committer no class loader to register the sink's release hooks on: on a "
                            + "TaskManager where no writer of this job runs, a JDBC driver the committer loads from the job's "
                            + "jar stays registered with DriverManager, and keeps the job's classes in memory, after the job. "
                            + "Remedy: put the JDBC driver into Flink's lib/ directory.",
                    subtask);
        }
        return refusedWithoutRestarts(() ->
                new ExactlyOnceCommitter(sinkSubtask(subtask), database.openCommitter(subtask), context.metricGroup()));
    }

    /** The subtask as the protocol sees it: with this sink's settings, target and words. */
    private SinkSubtask sinkSubtask(SubtaskContext subtask) {
        return new SinkSubtask(subtask, settings, database.target(), database.wording());
    }

    /**
     * Starts a writer or committer: the database's start-up checks, and for a writer its recovery up to the
     * first record. A {@link MisconfigurationException} anywhere in a failure of that start fails the job
     * without restarts ({@link SuppressRestartsException}): every restart would find the same, and Flink's
     * restart strategy would retry for ever or bury the reason under identical failures. Any other failure
     * (the database unreachable, a connection cut, a guard whose holder is going away) fails the task as it
     * is, and Flink restarts it.
     */
    private static <T> T refusedWithoutRestarts(Start<T> start) throws IOException {
        try {
            return start.run();
        } catch (IOException e) {
            if (ExceptionUtils.findThrowable(e, MisconfigurationException.class).isPresent()) {
                throw new SuppressRestartsException(e);
            }
            throw e;
        }
    }

    /** A writer's or committer's start. */
    @FunctionalInterface
    private interface Start<T> {
        T run() throws IOException;
    }

    @Override
    public SimpleVersionedSerializer<PreparedTransaction> getCommittableSerializer() {
        return new PreparedTransactionSerializer();
    }

    @Override
    public SimpleVersionedSerializer<WriterState> getWriterStateSerializer() {
        return new WriterStateSerializer();
    }

    /**
     * Runs while the job graph is built, so a job that cannot be exactly-once is refused before it
     * starts:
     *
     * <ul>
     *   <li>a streaming job without checkpointing would write into transactions that are never
     *       prepared (also in AUTOMATIC mode, when the sink's input has an unbounded source);
     *   <li>at-least-once checkpoints do not align barriers: records that arrive after the barrier
     *       on one input, while another input's barrier is still on its way, go into the epoch
     *       that the checkpoint commits, yet a restore from that checkpoint replays them, and they
     *       are written twice. (Unaligned exactly-once checkpoints are fine: such records are
     *       stored with the checkpoint and written only in the next epoch.)
     *   <li>more concurrent checkpoints than {@link SinkSettings#maxPreparedPerSubtask()} leaves room
     *       for would make healthy checkpoints fail the writers.
     * </ul>
     *
     * <p>It also takes the job's checkpoint timeout and interval for the writers, and distributes their input as
     * {@link #distribution()} says (partitioned by the sink's key, for upserts).
     */
    @Override
    public DataStream<IN> addPreWriteTopology(DataStream<IN> input) {
        StreamExecutionEnvironment env = input.getExecutionEnvironment();
        long sinkToCalls = env.getTransformations().stream()
                .filter(t -> t instanceof SinkTransformation && ((SinkTransformation<?, ?>) t).getSink() == this)
                .count();
        if (sinkToCalls > 1) {
            // Each call becomes a sink of its own with this sink id and, the object being one, one execution
            // nonce: their writers would take each other's transactions and guard for their own.
            throw new IllegalStateException("sink '" + settings.sinkId() + "' into " + database.target()
                    + ": one ExactlyOnceSink object is given to " + sinkToCalls + " sinkTo(...) calls of this job, "
                    + "and each becomes a sink of its own with the same sink id, whose writers would take each "
                    + "other's transactions for their own. Remedy: build one sink per sinkTo(...), each with a sink "
                    + "id of its own (in SQL: an eosink table, with a 'sink.id' of its own, per INSERT).");
        }
        RuntimeExecutionMode mode = env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE);
        boolean streaming = mode == RuntimeExecutionMode.STREAMING
                || (mode == RuntimeExecutionMode.AUTOMATIC && hasUnboundedSource(input));
        boolean checkpointing = env.getCheckpointConfig().isCheckpointingEnabled();
        if (streaming && !checkpointing) {
            throw new IllegalStateException("sink '"
                    + settings.sinkId()
                    + "' into "
                    + database.target()
                    + " is exactly-once: it commits only when a checkpoint completes, and this "
                    + (mode == RuntimeExecutionMode.AUTOMATIC
                            ? "job runs as a streaming job (AUTOMATIC mode, and the sink's input has an unbounded source)"
                            : "streaming job")
                    + " has checkpointing disabled, so nothing would ever be committed. "
                    + "Remedy: enable checkpointing (env.enableCheckpointing(10_000) or "
                    + "-Dexecution.checkpointing.interval=10s).");
        }
        if (mode != RuntimeExecutionMode.BATCH
                && checkpointing
                && env.getCheckpointConfig().getCheckpointingConsistencyMode() == CheckpointingMode.AT_LEAST_ONCE) {
            throw new IllegalStateException("sink '"
                    + settings.sinkId()
                    + "' into "
                    + database.target()
                    + " is exactly-once, and this job checkpoints AT_LEAST_ONCE: without aligned "
                    + "barriers, records that arrive after a checkpoint's barrier are committed with "
                    + "that checkpoint and written again when the job restores from it. Remedy: "
                    + "checkpoint EXACTLY_ONCE (the default; -Dexecution.checkpointing.mode=EXACTLY_ONCE), "
                    + "aligned or unaligned.");
        }
        if (checkpointing) {
            int concurrent = env.getCheckpointConfig().getMaxConcurrentCheckpoints();
            if ((long) concurrent + 2 > settings.maxPreparedPerSubtask()) {
                throw new IllegalStateException("sink '"
                        + settings.sinkId()
                        + "' into "
                        + database.target()
                        + ": this job runs up to "
                        + concurrent
                        + " concurrent checkpoints, and each holds one prepared transaction per writer "
                        + "subtask until it completes; maxPreparedPerSubtask ("
                        + settings.maxPreparedPerSubtask()
                        + ") leaves no room for that and one more. Remedy: maxPreparedPerSubtask("
                        + (concurrent + 2)
                        + ") or more (and a database sized for it), or fewer concurrent checkpoints.");
            }
            checkpointTimeout = Duration.ofMillis(env.getCheckpointConfig().getCheckpointTimeout());
            long interval = env.getCheckpointConfig().getCheckpointInterval();
            checkpointInterval = interval > 0 ? Duration.ofMillis(interval) : null;
        }
        // A job graph of its own, so an execution of its own: a sink object submitted twice from one JVM (under a
        // fixed job id, say) must not make the second submission look like the first.
        executionNonce = TransactionId.newExecutionNonce();
        return distribution.distribute(input);
    }

    /** Whether a source the sink's input comes from is unbounded: Flink then runs an AUTOMATIC job as streaming. */
    private static boolean hasUnboundedSource(DataStream<?> input) {
        List<Transformation<?>> all = new ArrayList<>(input.getTransformation().getTransitivePredecessors());
        all.add(input.getTransformation());
        return all.stream()
                .anyMatch(t ->
                        t instanceof WithBoundedness && ((WithBoundedness) t).getBoundedness() != Boundedness.BOUNDED);
    }

    /**
     * Adds the operator that hears checkpoint outcomes for the writers ({@link
     * CheckpointOutcomeOperator}), after the committer. It is stateless; it gets a uid only when the job
     * disables generated uids (then Flink requires one on every operator, and on the sink). It is chained
     * to the committer unless the job or the sink disables chaining (Flink then overrides the strategy set
     * here with the sink's); the operator and the writers are correct either way, see its Javadoc. Flink
     * adds this topology after the pre-write one ({@link #addPreWriteTopology}), whose execution nonce the
     * operator takes.
     */
    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<PreparedTransaction>> committables) {
        SingleOutputStreamOperator<Void> outcomes = committables.transform(
                CheckpointOutcomeOperator.NAME,
                Types.VOID,
                new CheckpointOutcomeOperator(settings.sinkId(), executionNonce));
        // Chained by default on every Flink line: Flink 2.x chains an operator unless told otherwise, Flink
        // 1.20 makes a plain AbstractStreamOperator the head of a new chain. In the writer's task it costs no
        // task of its own, and it hears an outcome together with the committer.
        ((OneInputTransformation<?, ?>) outcomes.getTransformation()).setChainingStrategy(ChainingStrategy.ALWAYS);
        if (!committables.getExecutionEnvironment().getConfig().hasAutoGeneratedUIDsEnabled()) {
            outcomes.uid("eosink-checkpoint-outcomes");
        }
    }

    /**
     * The parameter's type is spelled out: on Flink 1.20 the simple name {@code InitContext} here means
     * the nested {@code Sink.InitContext}, which this class inherits and which shadows the import.
     */
    private SubtaskContext subtaskContext(org.apache.flink.api.connector.sink2.InitContext context) {
        String jobId = context.getJobInfo().getJobId().toString();
        return new SubtaskContext(
                settings.sinkId(),
                context.getTaskInfo().getIndexOfThisSubtask(),
                context.getTaskInfo().getNumberOfParallelSubtasks(),
                context.getTaskInfo().getAttemptNumber(),
                new SubtaskContext.JobRun(
                        jobId, TransactionId.executionTag(jobId, executionNonce), context.getRestoredCheckpointId()));
    }

    @Override
    public String toString() {
        return "ExactlyOnceSink{" + settings.sinkId() + " -> " + database.target() + "}";
    }
}
