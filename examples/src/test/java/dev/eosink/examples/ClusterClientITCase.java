/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.cluster.ProcessCluster;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.PsqlScript;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster example as an operator runs it: Flink's own command line client ({@code flink run},
 * {@code flink stop --savepointPath}, {@code flink run -s}, {@code flink cancel}) against a multi-process
 * session cluster whose class path is a Flink distribution's {@code lib/} and nothing else (so a class the
 * cluster jar lacks fails as on a real cluster), with Flink's default REST cache ({@code
 * web.refresh-interval} 3 s), the example's tables created by {@code sql/04-example-tables.sql} and the sink
 * running as the least-privileged role of {@code sql/02-sink-role.sql}, each script run as written on a
 * fresh database, with docs/demo.md's command as written.
 *
 * <p>A run is stopped with a savepoint and resumed with {@code flink run -s}, stopped again (after a
 * TaskManager was killed, so that there is a real failover to count), and a fresh run is refused. The
 * third run is resumed from the second savepoint and cancelled, the fourth resumed from the third's last
 * retained checkpoint with {@code -Dexecution.state-recovery.path}. Each stop ends with the savepoint's
 * path, the command to resume and exit code 0; the cancellation is reported as such; the last run ends
 * exact, every row committed before the stops kept.
 *
 * <p>Runs 1 to 3 are paced by checkpoints ({@code --per-checkpoint}): {@value #EVENTS} orders take {@value
 * #EVENTS} / {@value #PER_CHECKPOINT} checkpoints, far more than the ones the test waits for before each
 * stop, kill and cancel, on a slow machine as on a fast one. The pace is no part of the results (event time
 * comes from the order's index) nor of the state, so run 4 reads the rest at full speed.
 */
class ClusterClientITCase {

    private static final long EVENTS = 200_000;
    /**
     * 400 checkpoints, at least {@value #CHECKPOINT_INTERVAL} apart, for all the orders; the first window is
     * committed after about 10, and runs 1 to 3 act after a few dozen. What the test waits for in wall time
     * meanwhile (a client's JVM, a lost TaskManager's heartbeat, the REST cache) lets the job run on: 400
     * keep its end out of reach.
     */
    private static final int PER_CHECKPOINT = 500;

    private static final String CHECKPOINT_INTERVAL = "300ms";
    private static final Path JAR =
            Path.of("target", "eosink-examples-cluster.jar").toAbsolutePath();

    @TempDir
    Path dir;

    private final PostgresFixture db = PostgresFixture.get();
    private final long startNanos = System.nanoTime();

    @Test
    @Timeout(600) // a guard against a hang, with room for a heavily loaded machine
    void stopWithSavepointAndResumeKeepEveryResultAndEndExact() throws Exception {
        String role = "cluster_sink_" + System.nanoTime() % 100_000;
        String password = "pw-" + System.nanoTime();
        String database = role + "_db";
        String url = database(database, role, password);
        Map<String, String> env = Map.of("EOSINK_DEMO_PASSWORD", password);
        List<String> paced = job(url, role, List.of("--per-checkpoint", Integer.toString(PER_CHECKPOINT)));

        try (ProcessCluster cluster = ProcessCluster.start(dir.resolve("cluster"), 2, 1)) {
            // Run 1, fresh: stopped with a savepoint once windows are committed.
            Process first = cluster.flink(args("run", paced), env, dir.resolve("run-1.out"));
            JobID firstJob = awaitRunning(cluster, first, "run-1.out");
            awaitCommitted(url, role, password, 1);
            assertThat(cluster.checkpointDirectory().resolve(firstJob.toHexString()))
                    .as("checkpoints where the cluster's configuration says")
                    .isDirectory();
            String firstSavepoint = stop(cluster, firstJob, "run-1.out", "stop-1.out");
            String out1 = finish(first, "run-1.out", 0);
            assertThat(out1)
                    .contains("fresh start")
                    .contains("job stopped with savepoint " + firstSavepoint)
                    .contains("resume it: flink run -s " + firstSavepoint)
                    .contains("=> CONSISTENT")
                    .contains("failovers: 0 (the cluster's exception history)")
                    .doesNotContain("NOT");
            long atFirstStop = committed(url, role, password);
            progress("run 1 stopped and checked");

            // Run 2, `flink run -s`: a TaskManager killed mid-way (a real failover), then stopped again.
            Process second =
                    cluster.flink(args("run", List.of("-s", firstSavepoint), paced), env, dir.resolve("run-2.out"));
            JobID secondJob = awaitRunning(cluster, second, "run-2.out");
            long restored = cluster.completedCheckpointsLogged(secondJob);
            cluster.await(
                    "2 checkpoints of run 2",
                    Duration.ofSeconds(60),
                    () -> cluster.completedCheckpointsLogged(secondJob) >= restored + 2);
            assertRunning(cluster, secondJob, "before the kill");
            String victim = cluster.taskManagers().get(0);
            cluster.kill(victim);
            long atKill = cluster.completedCheckpointsLogged(secondJob);
            cluster.startTaskManager();
            cluster.await(
                    "the failover of run 2",
                    Duration.ofSeconds(60),
                    () -> !cluster.failures(secondJob).isEmpty());
            // No checkpoint completes between the kill and the restart: one after it means the job runs again.
            cluster.await(
                    "a checkpoint of run 2 after its restart",
                    Duration.ofSeconds(90),
                    () -> cluster.completedCheckpointsLogged(secondJob) > atKill);
            awaitCommitted(url, role, password, atFirstStop + 1);
            String secondSavepoint = stop(cluster, secondJob, "run-2.out", "stop-2.out");
            String out2 = finish(second, "run-2.out", 0);
            assertThat(out2)
                    .contains("restoring " + firstSavepoint)
                    .contains("job stopped with savepoint " + secondSavepoint)
                    .contains("resume it: flink run -s " + secondSavepoint)
                    .contains("=> CONSISTENT")
                    .doesNotContain("deleted")
                    .doesNotContain("created table");
            assertThat(failovers(out2))
                    .as("failovers counted in run 2's last line: %s", out2)
                    .isEqualTo(cluster.failures(secondJob).size())
                    .isPositive();
            long atSecondStop = committed(url, role, password);
            progress("run 2 stopped and checked");
            assertThat(atSecondStop)
                    .as("rows kept through the resume, and more")
                    .isGreaterThan(atFirstStop);

            // A fresh run against a table with results is refused, nothing submitted.
            Process fresh = cluster.flink(args("run", paced), env, dir.resolve("fresh.out"));
            assertThat(fresh.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String outFresh = Files.readString(dir.resolve("fresh.out"));
            assertThat(outFresh).contains("holds").contains("--reset").contains("flink run -s");
            assertThat(committed(url, role, password)).as("nothing deleted").isEqualTo(atSecondStop);
            progress("a fresh run refused");

            // Run 3, `flink run -s` with checkpoints retained in a directory of its own: cancelled.
            Path retained = dir.resolve("retained");
            Process third = cluster.flink(
                    args(
                            "run",
                            List.of("-s", secondSavepoint),
                            paced,
                            List.of("--checkpoint-dir", retained.toString())),
                    env,
                    dir.resolve("run-3.out"));
            JobID thirdJob = awaitRunning(cluster, third, "run-3.out");
            long resumed = cluster.completedCheckpointsLogged(thirdJob);
            cluster.await(
                    "a checkpoint of run 3",
                    Duration.ofSeconds(60),
                    () -> cluster.completedCheckpointsLogged(thirdJob) > resumed);
            assertRunning(cluster, thirdJob, "before the cancellation");
            Process cancel =
                    cluster.flink(List.of("cancel", thirdJob.toHexString()), Map.of(), dir.resolve("cancel.out"));
            assertThat(cancel.waitFor(120, TimeUnit.SECONDS))
                    .as("flink cancel returns")
                    .isTrue();
            assertThat(cancel.exitValue())
                    .as("flink cancel: %s", Files.readString(dir.resolve("cancel.out")))
                    .isZero();
            String out3 = finish(third, "run-3.out", 1);
            assertThat(out3)
                    .contains("restoring " + secondSavepoint)
                    .contains("job CANCELED")
                    .contains("job cancelled")
                    .contains("resume it: flink run -s")
                    .doesNotContain("FAILED")
                    .doesNotContain("JobCancellationException");
            progress("run 3 cancelled");
            Path lastCheckpoint = Demo.latestCheckpoint(retained)
                    .orElseThrow(
                            () -> new AssertionError("no checkpoint of the cancelled run retained in " + retained));

            // Run 4, -Dexecution.state-recovery.path: the cancelled run's last checkpoint, to the end at full speed.
            Process fourth = cluster.flink(
                    args(
                            "run",
                            job(url, role, List.of("--rate", "20000")),
                            List.of("-Dexecution.state-recovery.path=" + lastCheckpoint.toUri())),
                    env,
                    dir.resolve("run-4.out"));
            String out4 = finish(fourth, "run-4.out", 0);
            assertThat(out4)
                    .contains("restoring " + lastCheckpoint.toUri())
                    .contains("job FINISHED")
                    .contains("=> EXACT");
            progress("run 4 finished");
        }
        try (Connection c = DriverManager.getConnection(url, credentials(role, password))) {
            Verdicts.assertExact(
                    Verdict.check(c, "windows", "window_totals", "demo-windows", OrderGenerator.defaults(), EVENTS));
        }
    }

    /** Where the test is, and after how long: for the log of a slow run. */
    private void progress(String what) {
        System.out.printf("%s after %.1f s%n", what, (System.nanoTime() - startNanos) / 1e9);
    }

    /** The job must still be running before a fault or a stop: the pacing leaves it far from its end. */
    private static void assertRunning(ProcessCluster cluster, JobID job, String when) throws Exception {
        assertThat(cluster.status(job))
                .as("job %s %s (paced by checkpoints, it cannot have ended yet)", job, when)
                .isEqualTo(JobStatus.RUNNING);
    }

    private static List<String> job(String url, String role, List<String> pace) {
        List<String> job = new ArrayList<>(List.of(
                JAR.toString(),
                "--postgres-url",
                url,
                "--user",
                role,
                "--events",
                Long.toString(EVENTS),
                "--parallelism",
                "2",
                "-Dexecution.checkpointing.interval=" + CHECKPOINT_INTERVAL));
        job.addAll(pace);
        return job;
    }

    /**
     * A database of its own, set up with the repository's scripts for the least-privileged role, each run as
     * written on a fresh database, as psql runs it: only the role's name and password are this test's, given as
     * the scripts' psql variables (roles are the server's, not the database's).
     */
    private String database(String name, String role, String password) throws IOException {
        db.execute("CREATE DATABASE " + name);
        String url = db.jdbcUrl().replaceFirst("/postgres(\\?|$)", "/" + name + "$1");
        try (Connection c = DriverManager.getConnection(url, credentials(db.user(), db.password()))) {
            for (String script : List.of("01-marker-table.sql", "02-sink-role.sql", "04-example-tables.sql")) {
                try (Statement s = c.createStatement()) {
                    s.execute(PsqlScript.render(
                            Path.of("..", "sql", script), Map.of("role", role, "password", password)));
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(
                            "sql/" + script + " as written failed on the fresh database " + name, e);
                }
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("connecting to the fresh database " + name + " failed", e);
        }
        return url;
    }

    private static Properties credentials(String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null) {
            p.setProperty("password", password);
        }
        return p;
    }

    @SafeVarargs
    private static List<String> args(String command, List<String>... parts) {
        List<String> all = new ArrayList<>(List.of(command));
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    private JobID awaitRunning(ProcessCluster cluster, Process client, String output) throws Exception {
        cluster.await("a running job (client output: " + output + ")", Duration.ofSeconds(90), () -> {
            assertThat(client.isAlive())
                    .as("the client ended early: %s", Files.readString(dir.resolve(output)))
                    .isTrue();
            return cluster.jobs(JobStatus.RUNNING).size() == 1
                    && cluster.allTasksRunning(cluster.jobs(JobStatus.RUNNING).get(0));
        });
        return cluster.jobs(JobStatus.RUNNING).get(0);
    }

    /** {@code flink stop --savepointPath}: the savepoint's path, as the CLI prints it. */
    private String stop(ProcessCluster cluster, JobID job, String client, String output) throws Exception {
        Process stop = cluster.flink(
                List.of(
                        "stop",
                        "--savepointPath",
                        dir.resolve("savepoints").toUri().toString(),
                        job.toHexString()),
                Map.of(),
                dir.resolve(output));
        assertThat(stop.waitFor(120, TimeUnit.SECONDS)).as("flink stop returns").isTrue();
        String out = Files.readString(dir.resolve(output));
        assertThat(stop.exitValue())
                .as(
                        "flink stop: %s%nthe job's client so far: %s%nthe job manager's log: %s",
                        out, Files.readString(dir.resolve(client)), cluster.tail("jobmanager", 60))
                .isZero();
        Matcher m = Pattern.compile("Savepoint completed\\. Path: (\\S+)").matcher(out);
        assertThat(m.find()).as("the savepoint's path in: %s", out).isTrue();
        return m.group(1);
    }

    /** Waits for a client to end, which must be with exit code {@code exit}; its output. */
    private String finish(Process client, String output, int exit) throws Exception {
        assertThat(client.waitFor(180, TimeUnit.SECONDS)).as("the client ends").isTrue();
        String out = Files.readString(dir.resolve(output));
        assertThat(client.exitValue())
                .as("exit code of the client; its output:%n%s", out)
                .isEqualTo(exit);
        return out;
    }

    private static long failovers(String output) {
        Matcher m = Pattern.compile("failovers: (\\d+)").matcher(output);
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }

    private long committed(String url, String role, String password) throws Exception {
        try (Connection c = DriverManager.getConnection(url, credentials(role, password));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM window_totals")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void awaitCommitted(String url, String role, String password, long atLeast) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (committed(url, role, password) < atLeast) {
            assertThat(System.nanoTime())
                    .as("%d committed rows within 90 s", atLeast)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
