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
 */
class ProcessClusterITCase {

    private static final long EVENTS = 60_000;

    @TempDir
    Path dir;

    private final PostgresFixture db = PostgresFixture.get();
    private final Random random = new Random();
    private final List<String> faults = new ArrayList<>();

    @Test
    @Timeout(300)
    void taskManagersKilledWhileWritingCommittingAndRecoveringEndsExact() throws Exception {
        String table = "cluster_totals";
        String sinkId = "cluster-demo";
        try (ProcessCluster cluster = ProcessCluster.start(dir.resolve("cluster"), 2, 1)) {
            JobID job = cluster.submit(Path.of("target", "eosink-examples-cluster.jar"), List.of(
                    "--job", "windows", "--postgres-url", db.jdbcUrl(), "--user", db.user(),
                    "--events", Long.toString(EVENTS), "--rate", "2000", "--parallelism", "2",
                    "--table", table, "--sink-id", sinkId,
                    "--checkpoint-dir", dir.resolve("checkpoints").toString(),
                    "-Dexecution.checkpointing.interval=400ms",
                    "-Drestart-strategy.fixed-delay.delay=200ms"), 2);

            // 1. While writing: some checkpoints in, then at a random moment between two barriers.
            awaitCheckpoints(cluster, job, 2);
            Thread.sleep(random.nextInt(400));
            killAndReplace(cluster, "while writing", job);

            // 2. Right after a checkpoint completes: the committer is committing its transactions.
            long before = cluster.completedCheckpoints(job);
            awaitCheckpoints(cluster, job, before + 1);
            String replacement =
                    killAndReplace(cluster, "right after checkpoint " + cluster.completedCheckpoints(job) + " completed", job);

            // 3. During recovery: the job waits for the replacement's slot, then deploys and restores
            // its tasks there (writers roll back, committers commit what the checkpoint promised).
            cluster.await("restored tasks deploying or initializing", Duration.ofSeconds(90),
                    () -> cluster.tasksIn(job, "DEPLOYING") + cluster.tasksIn(job, "INITIALIZING") > 0);
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

    private void awaitCheckpoints(ProcessCluster cluster, JobID job, long atLeast) throws Exception {
        cluster.await(atLeast + " completed checkpoints", Duration.ofSeconds(120),
                () -> cluster.completedCheckpoints(job) >= atLeast);
    }

    /** SIGKILLs a random TaskManager (each runs one of the job's two task slots) and starts a replacement. */
    private String killAndReplace(ProcessCluster cluster, String when, JobID job) throws Exception {
        List<String> running = cluster.taskManagers();
        return killAndReplace(cluster, when, job, running.get(random.nextInt(running.size())));
    }

    private String killAndReplace(ProcessCluster cluster, String when, JobID job, String victim) throws Exception {
        int failovers = cluster.failures(job).size();
        cluster.kill(victim);
        faults.add(victim + " " + when);
        String replacement = cluster.startTaskManager();
        // The kill must have hit the job: Flink noticed and restarted it (heartbeat or lost connections).
        cluster.await("a restart after killing " + victim, Duration.ofSeconds(60),
                () -> cluster.failures(job).size() > failovers);
        System.out.printf("killed %s %s; failovers so far: %s; replacement %s%n",
                victim, when, cluster.failures(job), replacement);
        return replacement;
    }

}
