/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.xa.XaSink;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The job {@link AdminITCase} runs in a JVM of its own and kills: the numbers 1, 2, 3, ... (a
 * generator whose position is in its checkpointed state, at parallelism 1) into a one-column table
 * through the PostgreSQL or the XA sink at parallelism 2, a checkpoint every 300 ms, retained when the
 * job dies.
 *
 * <p>Once the test creates the file {@code freeze} in the control directory, the job stops in a state
 * that the operator tool must untangle: the committer of subtask 0 stops before its next commit (a
 * completed checkpoint's transaction stays prepared: promised), and then the writer of subtask 1 stops
 * right after its next prepare (a transaction of a checkpoint that never completes: not promised).
 * Each writes a file when it stops, so that the test knows when to kill.
 *
 * <p>When the test creates the file {@code savepoint}, the job takes a savepoint and writes its path
 * into the file {@code savepoint-done}.
 *
 * <p>Arguments: postgres|mariadb|mysql|xa-postgres|firebird, JDBC URL, user, sink id, table, checkpoint directory, control
 * directory; the password in the environment variable {@code JOB_PASSWORD}.
 */
public final class FrozenJob {

    private FrozenJob() {}

    public static void main(String[] args) throws Exception {
        String database = args[0];
        String url = args[1];
        String user = args[2];
        String sinkId = args[3];
        String table = args[4];
        Path checkpoints = Path.of(args[5]);
        String control = args[6];
        String password = System.getenv("JOB_PASSWORD");

        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 3);
        // State in files of their own, not inline in _metadata: the tool reads those too.
        conf.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);

        DataGeneratorSource<Long> numbers =
                new DataGeneratorSource<>(i -> i + 1, Long.MAX_VALUE, RateLimiterStrategy.perSecond(400), Types.LONG);
        ExactlyOnceSink<Long> sink;
        if (database.equals(
                "firebird")) { // the XA sink on Firebird, which folds the test's unquoted names to upper case
            sink = XaSink.<Long>builder()
                    .jdbcUrl(url)
                    .username(user)
                    .password(password)
                    .sinkId(sinkId)
                    .table(table.toUpperCase(Locale.ROOT))
                    .columns("V")
                    .rows(v -> new Object[] {v})
                    .build();
        } else if (!database.equals("postgres")) { // the XA sink: on MariaDB (by either driver) or on PostgreSQL
            sink = XaSink.<Long>builder()
                    .jdbcUrl(url)
                    .username(user)
                    .password(password)
                    .sinkId(sinkId)
                    .table(table)
                    .columns("v")
                    .rows(v -> new Object[] {v})
                    .build();
        } else {
            sink = PostgresSink.<Long>builder()
                    .jdbcUrl(url)
                    .username(user)
                    .password(password)
                    .sinkId(sinkId)
                    .table(table)
                    .columns("v")
                    .rows(v -> new Object[] {v})
                    .build();
        }
        env.fromSource(numbers, WatermarkStrategy.noWatermarks(), "numbers")
                .setParallelism(1)
                .uid("numbers")
                .rebalance()
                .sinkTo(sink.withLifecycleHook(new Freeze(control)))
                .setParallelism(2)
                .uid("sink");
        JobClient job = env.executeAsync("eosink-admin test job " + sinkId);
        // A savepoint when the test asks for one (the file "savepoint"): its path goes to "savepoint-done".
        Path ask = Path.of(control, "savepoint");
        while (true) {
            if (Files.exists(ask)) {
                String savepoint = job.triggerSavepoint(
                                checkpoints.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
                Files.delete(ask);
                Path written = Files.writeString(Path.of(control, "savepoint-done.tmp"), savepoint);
                Files.move(written, Path.of(control, "savepoint-done"), StandardCopyOption.ATOMIC_MOVE);
            }
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                System.err.println("the job ended: " + job.getJobStatus().get());
                System.exit(1);
            }
            Thread.sleep(50);
        }
    }

    /** Stops the committer of subtask 0, then the writer of subtask 1, once the test asks for it. */
    static final class Freeze implements LifecycleHook {

        private static final long serialVersionUID = 1L;

        private final String control;

        Freeze(String control) {
            this.control = control;
        }

        @Override
        public void at(Point point, dev.eosink.core.spi.SubtaskContext context, dev.eosink.core.TransactionId tx)
                throws IOException {
            Path dir = Path.of(control);
            if (!Files.exists(dir.resolve("freeze"))) {
                return;
            }
            if (point == Point.BEFORE_COMMIT && context.subtask() == 0) {
                stop(dir.resolve("commit-stopped-" + tx.checkpointId()));
            } else if (point == Point.AFTER_PREPARE && context.subtask() == 1 && commitStopped(dir)) {
                stop(dir.resolve("prepare-stopped-" + tx.checkpointId()));
            }
        }

        private static boolean commitStopped(Path dir) throws IOException {
            try (Stream<Path> files = Files.list(dir)) {
                return files.anyMatch(f -> f.getFileName().toString().startsWith("commit-stopped-"));
            }
        }

        /** Says so, then holds this task until the process is killed. */
        private static void stop(Path signal) throws IOException {
            Files.createFile(signal);
            while (true) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    // Flink cancels the task (never here: the test kills the process). Keep holding.
                }
            }
        }
    }
}
