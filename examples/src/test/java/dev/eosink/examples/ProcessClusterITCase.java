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
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example jar on a real multi-process Flink cluster (a JobManager and two TaskManagers, each its
 * own JVM, one slot each), submitted over REST. TaskManagers are killed with SIGKILL three times:
 * while the sink writes, right after a checkpoint completed (while its transactions are being
 * committed), and while the job is recovering from the previous kill. A replacement TaskManager is
 * started after each kill. The table must end exact, with nothing left prepared.
 *
 * <p>The source is paced by checkpoints ({@code --per-checkpoint}): the job takes {@value #EVENTS} / {@value
 * #PER_CHECKPOINT} checkpoints, and the three kills come within the first few, so the job can still
 * restart when each of them strikes, on a slow machine as on a fast one. Checkpoints are counted from the
 * JobManager's log and the recovery is seen in the replacement's log: the REST API answers from a cache
 * as old as {@code web.refresh-interval} (Flink's default, 3 s), too slow to catch a recovery.
 */
class ProcessClusterITCase {

    private static final long EVENTS = 60_000;
    /**
     * 120 checkpoints for all the orders, 400 ms apart at the least: the kills come within the first 20 or
     * so, and what the test waits for in wall time meanwhile (a lost TaskManager's heartbeat, the REST cache)
     * cannot run the job to its end.
     */
    private static final int PER_CHECKPOINT = 500;

    @TempDir
    Path dir;

    private final PostgresFixture db = PostgresFixture.get();
    private final Random random = new Random();
    private final List<String> faults = new ArrayList<>();

    @Test
    @Timeout(600) // a guard against a hang, with room for a heavily loaded machine
    void taskManagersKilledWhileWritingCommittingAndRecoveringEndsExact() throws Exception {
        String table = "cluster_totals";
        String sinkId = "cluster-demo";
        try (ProcessCluster cluster = ProcessCluster.start(dir.resolve("cluster"), 2, 1)) {
            JobID job = cluster.submit(
                    Path.of("target", "eosink-examples-cluster.jar"),
                    List.of(
                            "--job",
                            "windows",
                            "--postgres-url",
                            db.jdbcUrl(),
                            "--user",
                            db.user(),
                            "--events",
                            Long.toString(EVENTS),
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
                            "-Dexecution.checkpointing.interval=400ms",
                            "-Drestart-strategy.fixed-delay.delay=200ms"),
                    2);

            // 1. While writing: some checkpoints in, then at a random moment between two barriers.
            awaitCheckpoints(cluster, job, 2);
            Thread.sleep(random.nextInt(400));
            killAndReplace(cluster, "while writing", job);

            // 2. Right after a checkpoint completes: the committer is committing its transactions.
            long before = cluster.completedCheckpointsLogged(job);
            awaitCheckpoints(cluster, job, before + 1);
            String replacement = killAndReplace(
                    cluster, "right after checkpoint " + cluster.completedCheckpointsLogged(job) + " completed", job);

            // 3. During recovery: the job waits for the replacement's slot, then deploys and restores
            // its tasks there (writers roll back, committers commit what the checkpoint promised).
            cluster.await(
                    "restored tasks initializing on " + replacement,
                    Duration.ofSeconds(90),
                    () -> cluster.logged(replacement, "switched from DEPLOYING to INITIALIZING"));
            killAndReplace(cluster, "during recovery", job, replacement);

            cluster.await("the job to finish", Duration.ofSeconds(180), () -> {
                JobStatus status = cluster.status(job);
                assertThat(status).as("job status; faults: %s", faults).isNotIn(JobStatus.FAILED, JobStatus.CANCELED);
                return status == JobStatus.FINISHED;
            });
            assertThat(faults).hasSize(3);
        }

        try (Connection c = db.connect()) {
            Verdict v = Verdict.check(c, "windows", table, sinkId, OrderGenerator.defaults(), EVENTS);
            Verdicts.assertExact(v);
        }
    }

    /** Waits until the JobManager logged checkpoint {@code atLeast} of the job as completed. */
    private void awaitCheckpoints(ProcessCluster cluster, JobID job, long atLeast) throws Exception {
        cluster.await(
                "checkpoint " + atLeast + " completed",
                Duration.ofSeconds(120),
                () -> cluster.completedCheckpointsLogged(job) >= atLeast);
    }

    /** SIGKILLs a random TaskManager (each runs one of the job's two task slots) and starts a replacement. */
    private String killAndReplace(ProcessCluster cluster, String when, JobID job) throws Exception {
        List<String> running = cluster.taskManagers();
        return killAndReplace(cluster, when, job, running.get(random.nextInt(running.size())));
    }

    private String killAndReplace(ProcessCluster cluster, String when, JobID job, String victim) throws Exception {
        int failovers = cluster.failures(job).size();
        assertThat(cluster.status(job))
                .as(
                        "the job before killing %s %s (paced by checkpoints, it cannot have ended "
                                + "yet); faults so far: %s",
                        victim, when, faults)
                .isEqualTo(JobStatus.RUNNING);
        cluster.kill(victim);
        faults.add(victim + " " + when);
        String replacement = cluster.startTaskManager();
        // The kill must have hit the job: Flink noticed and restarted it (heartbeat or lost connections).
        cluster.await(
                "a restart after killing " + victim,
                Duration.ofSeconds(60),
                () -> cluster.failures(job).size() > failovers);
        System.out.printf(
                "killed %s %s; failovers so far: %s; replacement %s%n",
                victim, when, cluster.failures(job), replacement);
        return replacement;
    }
}
