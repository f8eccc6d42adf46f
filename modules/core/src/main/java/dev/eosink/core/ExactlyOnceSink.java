package dev.eosink.core;

import dev.eosink.core.protocol.ExactlyOnceCommitter;
import dev.eosink.core.protocol.ExactlyOnceWriter;
import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.PreparedTransactionSerializer;
import dev.eosink.core.protocol.WriterState;
import dev.eosink.core.protocol.WriterStateSerializer;
import dev.eosink.core.spi.HookedDatabase;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.Objects;

/**
 * An exactly-once Flink sink over any {@link TransactionalDatabase}. Users get one from a database
 * module's builder (for PostgreSQL: {@code PostgresSink.builder()}) and pass it to {@code
 * stream.sinkTo(...)}.
 *
 * <p>Writer and committer follow Flink's Sink V2 two-phase commit: the writer prepares one database
 * transaction per subtask and checkpoint, the committer commits it when the checkpoint completes. The
 * protocol is in {@link ExactlyOnceWriter}, {@link ExactlyOnceCommitter} and {@link
 * dev.eosink.core.protocol.RecoveryPlan}.
 */
public class ExactlyOnceSink<IN>
        implements Sink<IN>,
                SupportsCommitter<PreparedTransaction>,
                SupportsWriterState<IN, WriterState>,
                SupportsPreWriteTopology<IN> {

    private static final long serialVersionUID = 1L;

    private final TransactionalDatabase<IN> database;
    private final SinkSettings settings;

    /** For database modules' builders; users call a builder such as {@code PostgresSink.builder()}. */
    public ExactlyOnceSink(TransactionalDatabase<IN> database, SinkSettings settings) {
        this.database = Objects.requireNonNull(database, "database");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    public TransactionalDatabase<IN> database() {
        return database;
    }

    public SinkSettings settings() {
        return settings;
    }

    /**
     * The same sink, calling {@code hook} at every point of each transaction's life: for failure
     * injection in tests and demos, or instrumentation.
     */
    public ExactlyOnceSink<IN> withLifecycleHook(LifecycleHook hook) {
        return new ExactlyOnceSink<>(new HookedDatabase<>(database, hook), settings);
    }

    @Override
    public ExactlyOnceWriter<IN> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, Collections.emptyList());
    }

    @Override
    public ExactlyOnceWriter<IN> restoreWriter(
            WriterInitContext context, Collection<WriterState> recoveredState) throws IOException {
        SubtaskContext subtask = subtaskContext(context);
        return new ExactlyOnceWriter<>(
                subtask,
                settings,
                database.target(),
                database.openWriter(subtask),
                recoveredState,
                context.metricGroup().getNumRecordsSendCounter(),
                context.getMailboxExecutor());
    }

    @Override
    public Committer<PreparedTransaction> createCommitter(CommitterInitContext context)
            throws IOException {
        SubtaskContext subtask = subtaskContext(context);
        return new ExactlyOnceCommitter(
                subtask, settings, database.target(), database.openCommitter(subtask), context.metricGroup());
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
     *       prepared;
     *   <li>at-least-once checkpoints do not align barriers: records that arrive after the barrier
     *       on one input, while another input's barrier is still on its way, go into the epoch
     *       that the checkpoint commits, yet a restore from that checkpoint replays them, and they
     *       are written twice. (Unaligned exactly-once checkpoints are fine: such records are
     *       stored with the checkpoint and written only in the next epoch.)
     * </ul>
     */
    @Override
    public DataStream<IN> addPreWriteTopology(DataStream<IN> input) {
        StreamExecutionEnvironment env = input.getExecutionEnvironment();
        RuntimeExecutionMode mode = env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE);
        if (mode == RuntimeExecutionMode.STREAMING && !env.getCheckpointConfig().isCheckpointingEnabled()) {
            throw new IllegalStateException(
                    "sink '"
                            + settings.sinkId()
                            + "' into "
                            + database.target()
                            + " is exactly-once: it commits only when a checkpoint completes, and this "
                            + "streaming job has checkpointing disabled, so nothing would ever be committed. "
                            + "Remedy: enable checkpointing (env.enableCheckpointing(10_000) or "
                            + "-Dexecution.checkpointing.interval=10s), or run the job in BATCH mode.");
        }
        if (mode != RuntimeExecutionMode.BATCH
                && env.getCheckpointConfig().isCheckpointingEnabled()
                && env.getCheckpointConfig().getCheckpointingConsistencyMode() == CheckpointingMode.AT_LEAST_ONCE) {
            throw new IllegalStateException(
                    "sink '"
                            + settings.sinkId()
                            + "' into "
                            + database.target()
                            + " is exactly-once, and this job checkpoints AT_LEAST_ONCE: without aligned "
                            + "barriers, records that arrive after a checkpoint's barrier are committed with "
                            + "that checkpoint and written again when the job restores from it. Remedy: "
                            + "checkpoint EXACTLY_ONCE (the default; -Dexecution.checkpointing.mode=EXACTLY_ONCE), "
                            + "aligned or unaligned.");
        }
        return input;
    }

    private SubtaskContext subtaskContext(InitContext context) {
        return new SubtaskContext(
                settings.sinkId(),
                context.getTaskInfo().getIndexOfThisSubtask(),
                context.getTaskInfo().getNumberOfParallelSubtasks(),
                context.getTaskInfo().getAttemptNumber(),
                context.getJobInfo().getJobId().toString(),
                context.getRestoredCheckpointId());
    }

    @Override
    public String toString() {
        return "ExactlyOnceSink{" + settings.sinkId() + " -> " + database.target() + "}";
    }
}
