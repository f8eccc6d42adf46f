/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A snapshot taken after the sink's writers finished. A bounded input ends; at the final checkpoint the writers
 * prepare their last transactions and, once it completed, finish, while the committers, in tasks of their own
 * (chaining off), are still committing (slowly here: they wait for the test). A savepoint then holds no state of the
 * writers (Flink keeps none of a finished operator) and committer state without a committable of the sink: it names
 * the sink nowhere. {@code eosink-admin resolve} against it used to fail ("holds no eosink sink's state at all");
 * now, as Flink recorded operators finished and every committer state was read, it asks the database: nothing of
 * the sink prepared is nothing to do (exit 0), and a prepared transaction of the sink is refused, changing nothing,
 * as the savepoint cannot tell about it. The logic is the tool's reading of the snapshot, the same for every
 * database, so one database runs it.
 */
class AdminFinishedWritersITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(6)
                    .build());

    private static final long N = 3_000;

    private final PostgresFixture pg = PostgresFixture.get();

    @Test
    void aSnapshotAfterTheWritersFinishedIsNothingToDoUnlessTheSinkHasPreparedTransactions(
            @InjectMiniCluster MiniCluster cluster, @TempDir Path dir) throws Exception {
        String sinkId = "admin-finished-" + System.nanoTime() % 100_000;
        String table = "finished_" + System.nanoTime() % 100_000;
        execute("CREATE TABLE " + table + " (v bigint NOT NULL)");
        COMMITS.put(sinkId, new Commits());

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(Duration.ofHours(1).toMillis()); // only the final checkpoint, at the end of input
        env.disableOperatorChaining();
        env.fromSequence(1, N)
                // Both writers must get rows (the test waits for both committers): a source reader that starts
                // first may take every split of the sequence, leaving the other writer nothing to prepare.
                .rebalance()
                .sinkTo(PostgresSink.<Long>builder()
                        .jdbcUrl(pg.jdbcUrl())
                        .username(pg.user())
                        .password(pg.password())
                        .sinkId(sinkId)
                        .table(table)
                        .columns("v")
                        .rows(v -> new Object[] {v})
                        .build()
                        .withLifecycleHook(AdminFinishedWritersITCase::commitsWaitForTheTest))
                .name("eosink");
        JobClient job = env.executeAsync("admin: writers finished, " + sinkId);
        Path savepoint;
        try {
            JobID id = job.getJobID();
            Commits commits = COMMITS.get(sinkId);
            await(() -> commits.arrived.get() == 2, "both committers at the final checkpoint's commit");
            await(() -> writersFinished(cluster, id), "the sink's writers finished");
            // The savepoint's barrier reaches each committer once its commit returned: it holds no committable.
            CompletableFuture<String> taken =
                    job.triggerSavepoint(dir.toUri().toString(), SavepointFormatType.CANONICAL);
            commits.release.countDown();
            savepoint = Path.of(URI.create(taken.get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)));
            job.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            TestJobs.cancelUnlessDone(job);
        }
        assertExactly(sinkId, table);

        Run resolve = admin(args("resolve", savepoint.toString(), "--sink-id", sinkId, "--apply"));
        assertThat(resolve.exit()).as("%s", resolve).isZero();
        assertThat(resolve.out())
                .contains("holds no state of sink id " + sinkId)
                .contains("of its operators are recorded finished")
                .contains("no prepared transaction of sink id " + sinkId + ": nothing to do");

        // A prepared transaction of the sink that the savepoint cannot tell about: refused, nothing changed.
        TransactionId stray = new TransactionId(sinkId, 0, 9, "zzzz0000abcd");
        execute("BEGIN; INSERT INTO " + table + " VALUES (-1); PREPARE TRANSACTION '" + stray + "'");
        Run refused = admin(args("resolve", savepoint.toString(), "--sink-id", sinkId, "--apply"));
        assertThat(refused.exit()).as("%s", refused).isEqualTo(AdminException.FAILED);
        assertThat(refused.err())
                .contains("holds no state of sink id '" + sinkId + "'")
                .contains(stray.toString())
                .contains("Nothing changed")
                .contains("Remedy:");
        assertThat(prepared(sinkId)).as("the stray transaction, untouched").isEqualTo(1);
        execute("ROLLBACK PREPARED '" + stray + "'");
        assertExactly(sinkId, table);
    }

    private void assertExactly(String sinkId, String table) throws SQLException {
        assertThat(prepared(sinkId)).as("prepared transactions left").isZero();
        assertThat(count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(N);
        assertThat(count("SELECT count(DISTINCT v) FROM " + table))
                .as("distinct rows")
                .isEqualTo(N);
        assertThat(count("SELECT min(v) FROM " + table)).isEqualTo(1);
        assertThat(count("SELECT max(v) FROM " + table)).isEqualTo(N);
    }

    /** The commits of one sink id: how many arrived, and the latch that lets them go on. */
    private static final class Commits {
        final AtomicInteger arrived = new AtomicInteger();
        final CountDownLatch release = new CountDownLatch(1);
    }

    private static final Map<String, Commits> COMMITS = new ConcurrentHashMap<>();

    /** A commit that waits until the test lets it go on: a slow commit, behind which the writers finish. */
    private static void commitsWaitForTheTest(LifecycleHook.Point point, SubtaskContext context, TransactionId id)
            throws IOException {
        if (point != LifecycleHook.Point.BEFORE_COMMIT) {
            return;
        }
        Commits commits = COMMITS.get(context.sinkId());
        commits.arrived.incrementAndGet();
        try {
            commits.release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("cancelled before its commit");
        }
    }

    /** Every subtask of the sink's writer finished, while the job runs on (its committers wait for a checkpoint). */
    private static boolean writersFinished(MiniCluster cluster, JobID id) {
        try {
            for (AccessExecutionJobVertex vertex : cluster.getArchivedExecutionGraph(id)
                    .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .getAllVertices()
                    .values()) {
                if (vertex.getName().contains("Writer")) {
                    return vertex.getAggregateState() == ExecutionState.FINISHED;
                }
            }
            return false;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private String[] args(String... command) {
        String[] all = new String[command.length + 4];
        System.arraycopy(command, 0, all, 0, command.length);
        all[command.length] = "--url";
        all[command.length + 1] = pg.jdbcUrl();
        all[command.length + 2] = "--user";
        all[command.length + 3] = pg.user();
        return all;
    }

    private Run admin(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Admin.run(args, o, e, Map.of(Credentials.PASSWORD_ENV, pg.password() == null ? "" : pg.password()));
        }
        Run run = new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        System.out.println("$ eosink-admin " + String.join(" ", args) + "\n" + run);
        return run;
    }

    /** What one run of the tool printed, and its exit code. */
    private record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private long prepared(String sinkId) throws SQLException {
        return count("SELECT count(*) FROM pg_prepared_xacts WHERE starts_with(gid, 'eos1/" + sinkId + "/')");
    }

    private long count(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
