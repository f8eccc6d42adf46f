/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.cluster.ProcessCluster;
import dev.eosink.testing.PostgresFixture;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long-lived Flink session cluster, as Flink's own scripts run one: a JobManager and two
 * TaskManagers, each its own JVM, and the example jar submitted {@value #JOBS} times, one job after the
 * other, each with its own table and sink id and with {@code restart-strategy: none}. On every
 * TaskManager each job gets a user-code class loader of its own, with its own copy of the sink, pgjdbc
 * and HikariCP from the jar.
 *
 * <p>Every job must finish at its first attempt, exact: the JDBC driver that an earlier job's copy of
 * pgjdbc registered with {@code java.sql.DriverManager} must not stand in the way of the next job's
 * connections. (A sink that asks {@code DriverManager} for pgjdbc's driver fails every job but the
 * first with "No suitable driver" at its first attempt: {@code DriverManager} hands out only drivers
 * that the caller's class loader resolves to the same class, and the new job's driver has not
 * registered itself yet.)
 *
 * <p>Then the TaskManagers must let go of the finished jobs' class loaders. A driver left registered
 * with {@code DriverManager}, a JVM-wide list, keeps its class loader and every class of its job for as
 * long as the TaskManager runs: one per finished job (measured: 3 after 3 jobs, 5 after 5, unchanged
 * for as long as watched, 60 and 90 s). So does a record whose {@code equals}, {@code hashCode} or
 * {@code toString} the compiler generated: the JDK caches the record's class in a JVM-wide method
 * handle, which kept the last job's class loader on each TaskManager (1 per TaskManager, measured
 * after 61 s; the architecture test now refuses such records). A finished job's idle threads hold its class loader a few
 * seconds more, until they end: the sink's I/O watchdog after 10 s, pgjdbc's cleaner after 30 s by
 * default, 1 s here so that the test need not wait for it.
 */
class SessionClusterITCase {

    private static final int JOBS = 3;
    private static final long EVENTS = 2_000;

    /** Flink's user-code class loaders: the wrapper each job gets, and the loader inside it. */
    private static final List<String> USER_CODE_LOADERS = List.of(
            "org.apache.flink.util.ChildFirstClassLoader",
            "org.apache.flink.util.FlinkUserCodeClassLoaders$ParentFirstClassLoader",
            "org.apache.flink.util.FlinkUserCodeClassLoaders$SafetyNetWrapperClassLoader");

    @TempDir
    Path dir;

    private final PostgresFixture db = PostgresFixture.get();

    @Test
    @Timeout(300)
    void jobAfterJobFinishesAtItsFirstAttemptAndLeavesNoClassLoaderBehind() throws Exception {
        try (ProcessCluster cluster = ProcessCluster.start(dir.resolve("cluster"), 0, 1)) {
            for (int i = 0; i < 2; i++) {
                cluster.startTaskManager(List.of("-Dpgjdbc.config.cleanup.thread.ttl=1000"));
            }
            cluster.awaitTaskManagers(2, Duration.ofSeconds(90));

            for (int i = 1; i <= JOBS; i++) {
                runJob(cluster, i);
            }

            // A full GC on each TaskManager, until no job's class loader is left; before the fix, one per
            // job stays (its driver), and this waits in vain.
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long start = System.nanoTime();
            List<String> seen = new ArrayList<>(); // each change, and the last count
            Map<String, Long> live = Map.of();
            while (true) {
                Map<String, Long> now = new LinkedHashMap<>();
                for (String tm : cluster.taskManagers()) {
                    now.put(
                            tm,
                            cluster.liveInstances(tm, USER_CODE_LOADERS).values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum());
                }
                boolean done = now.values().stream().allMatch(n -> n == 0) || System.nanoTime() > deadline;
                if (!now.equals(live) || done) {
                    seen.add(String.format("%.0f s %s", (System.nanoTime() - start) / 1e9, now));
                }
                live = now;
                if (done) {
                    break;
                }
                Thread.sleep(1_000);
            }
            System.out.println("live user-code class loaders after " + JOBS + " jobs: " + seen);
            assertThat(live)
                    .as("live user-code class loaders per TaskManager after %d jobs, over time: %s", JOBS, seen)
                    .allSatisfy((tm, n) -> assertThat(n).as(tm).isZero());
            for (String tm : cluster.taskManagers()) {
                // Each job's class loader deregistered its own pgjdbc driver when Flink released it.
                assertThat(cluster.tail(tm, 100_000)
                                .lines()
                                .filter(l -> l.contains("Deregistered JDBC driver(s) [org.postgresql.Driver]")))
                        .as("%s's log: the release hook of each job", tm)
                        .hasSize(JOBS);
            }
        }
    }

    private void runJob(ProcessCluster cluster, int n) throws Exception {
        long start = System.nanoTime();
        String table = "session_events_" + n;
        String sinkId = "session-" + n;
        JobID job = cluster.submit(
                Path.of("target", "eosink-examples-cluster.jar"),
                List.of(
                        "--job",
                        "events",
                        "--postgres-url",
                        db.jdbcUrl(),
                        "--user",
                        db.user(),
                        "--events",
                        Long.toString(EVENTS),
                        "--rate",
                        "4000",
                        "--parallelism",
                        "2",
                        "--table",
                        table,
                        "--sink-id",
                        sinkId,
                        "--checkpoint-dir",
                        dir.resolve("checkpoints").toString(),
                        "-Dexecution.checkpointing.interval=200ms",
                        "-Drestart-strategy.type=none"),
                2);
        cluster.await("job " + n + " to finish", Duration.ofSeconds(120), () -> {
            JobStatus status = cluster.status(job);
            assertThat(status)
                    .as(
                            "job %d of %d; its first failure: %s",
                            n, JOBS, status == JobStatus.FAILED ? cluster.firstFailure(job) : null)
                    .isNotIn(JobStatus.FAILED, JobStatus.CANCELED);
            return status == JobStatus.FINISHED;
        });
        assertThat(cluster.failures(job)).as("failovers of job %d", n).isEmpty();
        assertThat(cluster.highestAttempt(job))
                .as("highest attempt number of job %d's tasks", n)
                .isZero();
        try (Connection c = db.connect()) {
            Verdicts.assertExact(Verdict.check(c, "events", table, sinkId, OrderGenerator.defaults(), EVENTS));
        }
        System.out.printf(
                "job %d of %d FINISHED at its first attempt, exact, in %.1f s%n",
                n, JOBS, (System.nanoTime() - start) / 1e9);
    }
}
