/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.cluster.ProcessCluster;
import dev.eosink.testing.Directories;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.TcpProxy;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak: the example job on a real multi-process Flink cluster, writing to a PostgreSQL of its
 * own through a TCP proxy, with a random fault every few seconds drawn from every kind the project
 * knows (TaskManagers killed, PostgreSQL crashed or restarted, connections cut or stalled, a
 * COMMIT PREPARED whose answer is lost). When the time is up the faults stop, the job finishes and
 * the table is checked row by row; a report is written.
 *
 * <p>The soak is paced by checkpoints, not by the clock: the source hands out {@value #PER_CHECKPOINT} orders
 * per completed checkpoint (one a second), so {@code soak.minutes} sets the job's length in checkpoints
 * (60 a minute) and {@code soak.gap} the checkpoints between the recovery from one fault and the next
 * fault. Faults are injected only while the job is at least {@value #RESERVE} checkpoints from its end, so it
 * can still restart; a slow machine takes longer, never fewer faults. CI runs 1.5 minutes with a fault
 * every 5-10 checkpoints (about 7 faults); the kinds are drawn in shuffled rounds of every kind once, and at least 5 faults
 * of 5 kinds are asserted. The long run is a command (see docs/demo.md):
 * {@code ./mvnw -B -pl examples -am verify -Dit.test=SoakITCase -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsoak.minutes=30 -Dsoak.gap=10-30 -Dsoak.report=...}.
 */
class SoakITCase {

    /** Orders per completed checkpoint (one a second): the job's length follows from it and soak.minutes. */
    private static final int PER_CHECKPOINT = 1_500;
    /** Checkpoints a second. */
    private static final String CHECKPOINT_INTERVAL = "1s";
    /** No fault is injected closer than this many checkpoints to the job's end: the job must still restart. */
    private static final long RESERVE = 15;

    private static final Duration MAX_RECOVERY = Duration.ofMinutes(3);

    enum Fault {
        TASK_MANAGER_KILLED("SIGKILL a TaskManager, start a replacement"),
        TASK_MANAGER_KILLED_AFTER_CHECKPOINT("SIGKILL a TaskManager as a checkpoint completes (during commits)"),
        POSTGRES_CRASHED("SIGKILL the postmaster, restart it 1-3 s later (crash recovery)"),
        POSTGRES_RESTARTED("fast shutdown of PostgreSQL, start again"),
        CONNECTIONS_CUT("reset every connection between Flink and PostgreSQL"),
        NETWORK_STALLED("forward nothing for 2-8 s, sockets left open"),
        COMMIT_ANSWER_LOST("the next COMMIT PREPARED is carried out, its answer never arrives");

        final String what;

        Fault(String what) {
            this.what = what;
        }
    }

    private final Random random = new Random(Long.getLong("soak.seed", System.nanoTime()));

    /** The kinds not yet drawn in this round: every kind once, in random order, before any comes again. */
    private final Deque<Fault> round = new ArrayDeque<>();

    private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
    private final List<String> timeline = new ArrayList<>();
    private Duration longestRecovery = Duration.ZERO;
    private String longestRecoveryAfter = "-";

    @Test
    @Timeout(value = 3, unit = java.util.concurrent.TimeUnit.HOURS) // the soak bounds itself: see awaits
    void randomFaultsForMinutesEndExact() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("soak.minutes", "1.5"));
        String[] gap = System.getProperty("soak.gap", "5-10").split("-");
        long minGap = Long.parseLong(gap[0]);
        long maxGap = Long.parseLong(gap[1]);
        Path report = Path.of(System.getProperty("soak.report", "target/soak-report.md"));
        Path dir = Files.createTempDirectory("eosink-soak-");
        long checkpoints = (long) (minutes * 60);
        long events = PER_CHECKPOINT * checkpoints;
        String table = "soak_totals";
        String sinkId = "soak";

        boolean passed = false;
        try {
            Instant started = Instant.now();
            try (StandalonePostgres pg = PostgresFixture.startNew(Map.of("track_commit_timestamp", "on"));
                    TcpProxy proxy = TcpProxy.to(pg.jdbcUrl());
                    ProcessCluster cluster = ProcessCluster.start(dir.resolve("cluster"), 2, 1)) {
                JobID job = cluster.submit(
                        Path.of("target", "eosink-examples-cluster.jar"),
                        List.of(
                                "--job",
                                "windows",
                                "--postgres-url",
                                proxy.jdbcUrl(pg.jdbcUrl()),
                                "--user",
                                pg.user(),
                                "--events",
                                Long.toString(events),
                                "--per-checkpoint",
                                Integer.toString(PER_CHECKPOINT),
                                "--parallelism",
                                "2",
                                "--table",
                                table,
                                "--sink-id",
                                sinkId,
                                "--checkpoint-dir",
                                dir.resolve("checkpoints").toString(),
                                "-Dexecution.checkpointing.interval=" + CHECKPOINT_INTERVAL,
                                "-Drestart-strategy.fixed-delay.delay=500ms"),
                        2);
                awaitHealthy(cluster, job, 0, "the start");

                // Checkpoint ids count every completed checkpoint and some that failed: the job has made at most
                // that many checkpoints' progress, so below this it still has RESERVE checkpoints to go.
                long lastFaultAt = checkpoints - RESERVE;
                while (true) {
                    long gapEnd = cluster.completedCheckpointsLogged(job)
                            + minGap
                            + (long) (random.nextDouble() * (maxGap - minGap));
                    awaitCheckpointWatching(cluster, job, Math.min(gapEnd, lastFaultAt));
                    long checkpointsBefore = cluster.completedCheckpointsLogged(job);
                    if (checkpointsBefore >= lastFaultAt) {
                        break;
                    }
                    Fault fault = nextFault();
                    long t0 = System.nanoTime();
                    inject(fault, cluster, pg, proxy, job);
                    injected.merge(fault, 1, Integer::sum);
                    Duration recovery = awaitHealthy(cluster, job, checkpointsBefore, fault.name());
                    Duration total = Duration.ofNanos(System.nanoTime() - t0);
                    timeline.add(String.format(
                            "%6.1f s  checkpoint %4d  %-38s healthy again after %5.1f s",
                            Duration.between(started, Instant.now()).toMillis() / 1000.0 - total.toMillis() / 1000.0,
                            checkpointsBefore,
                            fault,
                            total.toMillis() / 1000.0));
                    if (recovery.compareTo(longestRecovery) > 0) {
                        longestRecovery = recovery;
                        longestRecoveryAfter = fault.name();
                    }
                }

                cluster.await("the job to finish", Duration.ofMinutes(10), () -> {
                    JobStatus s = cluster.status(job);
                    assertThat(s)
                            .as("job status; failovers: %s", cluster.failures(job))
                            .isNotIn(JobStatus.FAILED, JobStatus.CANCELED);
                    return s == JobStatus.FINISHED;
                });
                List<String> failovers = cluster.failures(job);

                try (Connection c = pg.connect()) {
                    Verdict v = Verdict.check(c, "windows", table, sinkId, OrderGenerator.defaults(), events);
                    String latency = commitLatency(c, sinkId);
                    String text = report(
                            minutes,
                            minGap,
                            maxGap,
                            events,
                            failovers,
                            v,
                            latency,
                            Duration.between(started, Instant.now()));
                    Files.createDirectories(report.toAbsolutePath().getParent());
                    Files.writeString(report, text);
                    System.out.println(text);

                    int faults = injected.values().stream()
                            .mapToInt(Integer::intValue)
                            .sum();
                    Verdicts.assertExact(v);
                    if (minutes >= 2) {
                        // Drawn round by round, so the first faults are all of different kinds.
                        assertThat(faults).as("faults survived; %s", injected).isGreaterThanOrEqualTo(5);
                        assertThat(injected).as("kinds of faults").hasSizeGreaterThanOrEqualTo(5);
                    }
                }
            }
            passed = true;
        } finally {
            // A passing soak leaves nothing behind (the cluster's logs and checkpoints take hundreds of MB);
            // a failing one keeps them for the post-mortem.
            if (passed) {
                Directories.deleteRecursively(dir);
            } else {
                System.out.println("soak failed: cluster logs and checkpoints kept in " + dir);
            }
        }
    }

    private void inject(Fault fault, ProcessCluster cluster, StandalonePostgres pg, TcpProxy proxy, JobID job)
            throws Exception {
        switch (fault) {
            case TASK_MANAGER_KILLED:
                killTaskManager(cluster);
                break;
            case TASK_MANAGER_KILLED_AFTER_CHECKPOINT:
                long completed = cluster.completedCheckpointsLogged(job);
                cluster.await(
                        "a checkpoint to complete",
                        Duration.ofSeconds(60),
                        () -> cluster.completedCheckpointsLogged(job) > completed);
                killTaskManager(cluster);
                break;
            case POSTGRES_CRASHED:
                pg.crash();
                Thread.sleep(1_000 + random.nextInt(2_000));
                pg.start();
                break;
            case POSTGRES_RESTARTED:
                pg.restart();
                break;
            case CONNECTIONS_CUT:
                proxy.cutAll();
                break;
            case NETWORK_STALLED:
                proxy.stall();
                Thread.sleep(2_000 + random.nextInt(6_000));
                proxy.resume();
                break;
            case COMMIT_ANSWER_LOST:
                proxy.cutWhenClientSends("COMMIT PREPARED");
                break;
            default:
                throw new IllegalStateException(fault.name());
        }
    }

    private void killTaskManager(ProcessCluster cluster) throws Exception {
        List<String> running = cluster.taskManagers();
        cluster.kill(running.get(random.nextInt(running.size())));
        cluster.startTaskManager();
    }

    /**
     * The next fault: rounds of every kind once, each round shuffled, so that a short soak meets as many
     * kinds as it has faults and a long one meets each kind equally often.
     */
    private Fault nextFault() {
        if (round.isEmpty()) {
            List<Fault> kinds = new ArrayList<>(List.of(Fault.values()));
            Collections.shuffle(kinds, random);
            round.addAll(kinds);
        }
        return round.removeFirst();
    }

    /**
     * Healthy again: two checkpoints newer than the fault have completed, so every task runs and the sink
     * commits (which a job stuck in a failing sink could not do). Returns how long that took.
     */
    private Duration awaitHealthy(ProcessCluster cluster, JobID job, long checkpointsBefore, String after)
            throws Exception {
        long t0 = System.nanoTime();
        cluster.await("the job healthy after " + after, MAX_RECOVERY, () -> {
            JobStatus s = cluster.status(job);
            assertThat(s)
                    .as("job status after %s; failovers: %s", after, cluster.failures(job))
                    .isNotIn(JobStatus.FAILED, JobStatus.CANCELED);
            assertThat(s)
                    .as("job status after %s: paced by checkpoints, it cannot have ended yet", after)
                    .isNotEqualTo(JobStatus.FINISHED);
            return s == JobStatus.RUNNING && cluster.completedCheckpointsLogged(job) > checkpointsBefore + 1;
        });
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** Waits until checkpoint {@code id} of the job completed, the job neither failed nor ended meanwhile. */
    private void awaitCheckpointWatching(ProcessCluster cluster, JobID job, long id) throws Exception {
        cluster.await("checkpoint " + id, MAX_RECOVERY, () -> {
            JobStatus s = cluster.status(job);
            assertThat(s)
                    .as("job status; failovers: %s", cluster.failures(job))
                    .isNotIn(JobStatus.FAILED, JobStatus.CANCELED, JobStatus.FINISHED);
            return cluster.completedCheckpointsLogged(job) >= id;
        });
    }

    /**
     * First write of a transaction (its marker's {@code now()}) to its COMMIT PREPARED (the commit
     * timestamp PostgreSQL records with {@code track_commit_timestamp}): how long a row waited to be
     * visible, including the waits that faults caused.
     */
    private static String commitLatency(Connection c, String sinkId) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*),"
                        + " percentile_cont(0.5) WITHIN GROUP (ORDER BY l), percentile_cont(0.99) WITHIN GROUP (ORDER BY l), max(l)"
                        + " FROM (SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin) - created_at) AS l"
                        + " FROM eosink_markers WHERE sink_id = '" + sinkId + "') m")) {
            rs.next();
            return String.format(
                    "%,d transactions committed; first write -> committed: p50 %.2f s, p99 %.2f s, max %.2f s",
                    rs.getLong(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4));
        }
    }

    private String report(
            double minutes,
            long minGap,
            long maxGap,
            long events,
            List<String> failovers,
            Verdict v,
            String latency,
            Duration wall) {
        StringBuilder r = new StringBuilder();
        r.append("# Soak report\n\n");
        r.append("- command: `./soak ")
                .append(System.getProperty("soak.command", "(SoakITCase)"))
                .append("` at commit ")
                .append(System.getProperty("soak.commit", "unknown"))
                .append('\n');
        r.append(String.format(
                "- %.1f minutes of faults (%d checkpoints, 1 s apart at the least), one every %d-%d "
                        + "checkpoints; wall time %.1f min; %s%n",
                minutes,
                (long) (minutes * 60),
                minGap,
                maxGap,
                wall.toSeconds() / 60.0,
                String.format(
                        "%d cores, Java %s",
                        Runtime.getRuntime().availableProcessors(),
                        Runtime.version().feature())));
        r.append(String.format(
                "- job: windowed totals, %,d orders, %,d per checkpoint, parallelism 2, checkpoints "
                        + "every 1 s, on a JobManager and 2 TaskManagers (separate JVMs, one slot each), PostgreSQL behind a "
                        + "TCP proxy%n",
                events, PER_CHECKPOINT));
        int total = injected.values().stream().mapToInt(Integer::intValue).sum();
        r.append(String.format("- faults injected and survived: %d of %d kinds%n", total, injected.size()));
        r.append(String.format("- recoveries (failovers Flink reported): %d%n", failovers.size()));
        r.append(String.format(
                "- longest recovery (from the end of the fault's injection, e.g. a stall over or a replacement"
                        + " TaskManager started, to all tasks running and a newer checkpoint completed): %.1f s, after %s%n",
                longestRecovery.toMillis() / 1000.0, longestRecoveryAfter));
        r.append("- ").append(latency).append('\n');
        r.append("- verdict: ").append(v).append("\n\n");
        r.append("| fault | what | count |\n|---|---|---|\n");
        for (Fault f : Fault.values()) {
            r.append("| ")
                    .append(f.name())
                    .append(" | ")
                    .append(f.what)
                    .append(" | ")
                    .append(injected.getOrDefault(f, 0))
                    .append(" |\n");
        }
        Map<String, Integer> causes = new TreeMap<>();
        failovers.forEach(f -> causes.merge(f.replaceAll(" on .*", ""), 1, Integer::sum));
        r.append("\nFailover causes (Flink's exception history):\n\n");
        causes.forEach((cause, n) ->
                r.append("- ").append(n).append(" x ").append(cause).append('\n'));
        r.append("\nTimeline (seconds since start; \"healthy again after\" counts from the fault's start, its"
                + " own length included):\n\n```\n");
        timeline.forEach(line -> r.append(line).append('\n'));
        r.append("```\n");
        return r.toString();
    }
}
