/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.Faults;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static dev.eosink.testing.hardcases.TestJobs.awaitStatus;
import static dev.eosink.testing.hardcases.TestJobs.checkpoint;
import static dev.eosink.testing.hardcases.TestJobs.checkpointIdOf;
import static dev.eosink.testing.hardcases.TestJobs.checkpointUntilFinished;
import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.holdAfterPrepare;
import static dev.eosink.testing.hardcases.TestJobs.manualEnv;
import static dev.eosink.testing.hardcases.TestJobs.newestRetainedCheckpoint;
import static dev.eosink.testing.hardcases.TestJobs.restoreFrom;
import static dev.eosink.testing.hardcases.TestJobs.savepoint;
import static dev.eosink.testing.hardcases.TestJobs.stopWithSavepoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the sink's transactions follow Flink's savepoints, stops and cancels: older savepoints
 * restored, other lines of history of the sink id left behind, a sink restored without its state,
 * stop-with-savepoint and cancel. The jobs' checkpoints happen when the test triggers them, so that
 * it knows exactly which transactions are prepared when it stops, cancels or restores a job. The two
 * savepoint cases that need SQL (row locks, the pruning of marker rows) are in {@link SqlCases}.
 */
public interface SavepointCases extends HardCaseSupport {

    /**
     * Restore from an older savepoint S1 after the job went on and finished. The restored committers
     * re-commit S1's transactions, which the first run committed long ago: the name is gone, the marker
     * proves the commit, and the job goes on (it must not fail with "LOST"). The replay from S1's
     * source position writes every later id a second time: rewinding a job re-delivers what came
     * after the savepoint, which exactly-once cannot undo. The restored run's new checkpoints reuse the
     * numbers of the first run's later ones and are committed all the same: no "highest committed
     * checkpoint" watermark skips them. The writers see the rewind in the markers (checkpoints
     * after S1 committed since S1 was taken): they warn by default, and refuse under rewindPolicy(FAIL).
     */
    @Test
    default void restoreFromAnOlderSavepointRecommitsIdempotentlyAndReplaysTheRest(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        // The input through a valve: S1 is taken mid-way on any machine, the rest let through after it.
        long n = 2_400;
        String valve = sinkId();
        JobClient job = startValved(valve, n, 400, manualEnv(2), "first run");
        long c1 = checkpoint(client, job.getJobID());
        await(() -> preparedLeft().isEmpty() && rows() > 0, "checkpoint " + c1 + " committed");
        IdValve.openTo(valve, 800);
        awaitOpenTransactions(2); // both writers prepare at the savepoint's barrier
        String s1 = savepoint(job, dir);
        long s1Id = checkpointIdOf(s1);
        List<String> ofS1 = preparedLeft();
        assertThat(ofS1).as("prepared at S1's barrier").hasSize(2);

        IdValve.openFully(valve);
        checkpointUntilFinished(client, job); // the next checkpoint commits S1's transactions too
        assertExactlyOnce(n);

        // The ids S1 accounts for (its source position) are exactly the rows of the transactions named
        // with a checkpoint up to S1 (see idsCommittedUpTo), as the markers count them.
        Set<Long> beforeS1 = idsCommittedUpTo(s1Id);
        long markedBeforeS1 = markedRowsUpTo(s1Id);
        assertThat((long) beforeS1.size())
                .as("rows of S1's transactions and earlier")
                .isEqualTo(markedBeforeS1);
        assertThat(beforeS1.size()).as("S1 taken mid-way").isBetween(1, (int) n - 1);
        assertThat(markedGids()).containsAll(ofS1);

        // The markers show what the sink committed after S1 since it was taken: a rewind. Under
        // rewindPolicy(FAIL) the restore is refused, naming it; under WARN (the default) it goes on.
        assertRewindRefused(valve, n, s1, s1Id, "restored from the older savepoint S1, rewindPolicy FAIL");
        assertThat(idCounts().values()).as("nothing of the refused run visible").allMatch(count -> count == 1);

        List<String> recommitted = new CopyOnWriteArrayList<>();
        // The first commit of the restored run is a restored committable: restored committers commit in
        // their initialization, before any task runs and so before any new checkpoint.
        Faults.arm(sinkId(), Faults.Point.BEFORE_COMMIT, 1, a -> recommitted.add(a.transactionId));
        StreamExecutionEnvironment second = env(2, 200, restoreFrom(s1)); // no restarts: a LOST fails it
        valvedPipeline(second, valve, n, sink());
        second.execute("restored from the older savepoint S1");

        assertThat(recommitted)
                .as("re-committed, already committed by the first run")
                .hasSize(1);
        assertThat(ofS1).contains(recommitted.get(0));
        assertOnceBeforeTwiceAfter(n, beforeS1);
    }

    /**
     * A refused rewind leaves everything as it found it, the prepared transactions of a newer savepoint
     * included: S0, a checkpoint that commits past it, S1 (its transactions stay prepared: a plain
     * savepoint does not notify the sink), cancel. Restored from S0 under rewindPolicy(FAIL), the start is
     * refused, as the markers show commits after S0; its remedy, restoring the latest savepoint S1, must
     * then work: S1's restored committers commit its transactions, and the run ends exact. A refusal that
     * rolled them back first (they are named after S0, the restored checkpoint) would leave S1 reporting
     * them LOST.
     */
    @Test
    default void aRefusedRewindLeavesTheNewerSavepointRestorable(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        long n = 2_400;
        String valve = sinkId();
        JobClient job = startValved(valve, n, 400, manualEnv(2), "first run");
        String s0 = savepoint(job, dir);
        IdValve.openTo(valve, 800);
        awaitOpenTransactions(2);
        long c = checkpoint(client, job.getJobID()); // commits S0's transactions and its own
        await(() -> preparedLeft().isEmpty(), "checkpoint " + c + " committed");
        IdValve.openTo(valve, 1_200);
        awaitOpenTransactions(2);
        String s1 = savepoint(job, dir);
        List<String> ofS1 = preparedLeft();
        assertThat(ofS1).as("prepared at S1's barrier").hasSize(2);
        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        awaitSessionsClosed();

        StreamExecutionEnvironment refused = env(2, 200, restoreFrom(s0));
        valvedPipeline(refused, valve, n, sink(spec().withRewindPolicy(RewindPolicy.FAIL)));
        assertThatThrownBy(() -> refused.execute("restored from S0 under rewindPolicy FAIL"))
                .rootCause()
                .hasMessageContaining("rewindPolicy FAIL");
        assertThat(preparedLeft())
                .as("S1's transactions after the refused rewind")
                .containsExactlyInAnyOrderElementsOf(ofS1);

        IdValve.openFully(valve);
        StreamExecutionEnvironment remedy = env(2, 200, restoreFrom(s1));
        valvedPipeline(remedy, valve, n, sink());
        remedy.execute("restored from the newest savepoint S1");
        assertThat(markedGids()).containsAll(ofS1);
        assertExactlyOnce(n);
    }

    /**
     * A rewind across lines of history: S0 is taken by a stop after three checkpoints; the job is then started
     * fresh (a new line of history, whose checkpoints count from 1 again: none after S0's number) and commits
     * its first checkpoint; then S0 is restored. Every record after S0 is written again and what the fresh run
     * committed stays, a rewind that no checkpoint number shows: the markers show it by the execution that
     * named them. Under rewindPolicy(FAIL) the restore is refused and leaves the table as it was; under WARN
     * (the default) it goes on, and the table holds what each run committed, no more.
     */
    @Test
    default void aRestoreAfterAFreshRunCommittedIsARewind(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        long n = 1_200;
        String valve = sinkId();
        JobClient first = startValved(valve, n, 300, manualEnv(2), "first run");
        for (int i = 0; i < 2; i++) {
            long c = checkpoint(client, first.getJobID());
            await(() -> preparedLeft().isEmpty(), "checkpoint " + c + " committed");
            IdValve.openTo(valve, 300L * (i + 2));
            awaitOpenTransactions(2);
        }
        String s0 = stopWithSavepoint(first, false, dir);
        awaitStatus(first, JobStatus.FINISHED);
        long s0Id = checkpointIdOf(s0);
        Set<Long> ofFirstRun = idsCommittedUpTo(s0Id);
        assertThat(ofFirstRun)
                .as("committed by the first run, all that S0 accounts for")
                .hasSize((int) rows());

        JobClient fresh = startValved(valve, n, 300, manualEnv(2), "a fresh run of the same sink id");
        long c1 = checkpoint(client, fresh.getJobID());
        assertThat(c1)
                .as("the fresh run's checkpoint, numbered no higher than S0's")
                .isLessThanOrEqualTo(s0Id);
        await(() -> preparedLeft().isEmpty() && rows() > ofFirstRun.size(), "the fresh run's checkpoint committed");
        fresh.cancel().get();
        awaitStatus(fresh, JobStatus.CANCELED);
        awaitSessionsClosed();
        Map<Long, Long> beforeRestore = idCounts();

        assertRewindRefused(valve, n, s0, s0Id, "S0 restored after the fresh run, rewindPolicy FAIL");
        assertThat(idCounts()).as("nothing of the refused run visible").isEqualTo(beforeRestore);

        IdValve.openFully(valve);
        StreamExecutionEnvironment warned = env(2, 200, restoreFrom(s0));
        valvedPipeline(warned, valve, n, sink());
        warned.execute("S0 restored after the fresh run, rewindPolicy WARN");

        Map<Long, Long> expected = new HashMap<>(beforeRestore);
        for (long id = 0; id < n; id++) {
            if (!ofFirstRun.contains(id)) {
                expected.merge(id, 1L, Long::sum);
            }
        }
        assertThat(preparedLeft()).as("prepared transactions left").isEmpty();
        assertThat(idCounts()).as("each run's commits, and the replay after S0").isEqualTo(expected);
    }

    /**
     * An older savepoint restored with a detour: an operator restores an older savepoint S0, that run
     * dies with the transactions of its first checkpoint prepared, and the operator then restores the
     * newer savepoint S1. The dead run numbered its transactions from S0 on, so its leftovers carry a
     * checkpoint number at or below S1's, yet they are in no restored committer's state: they belong to
     * another line of history of the sink id. The run from S1 must roll them back (once every restored
     * committer committed what it holds), not leave them prepared for ever, holding their locks; and it
     * must not commit them.
     */
    @Test
    default void restoreASavepointAfterARunFromAnOlderOneDied(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        // Every run's input through a valve: what lies between c1, S0 and S1 is let through by the test, and
        // the run from S0 never reaches the end of its input before it dies, however slow the machine.
        long n = 2_400;
        String valve = sinkId();
        JobClient job = startValved(valve, n, 400, manualEnv(2), "first run");
        long c1 = checkpoint(client, job.getJobID());
        await(() -> preparedLeft().isEmpty() && rows() > 0, "checkpoint " + c1 + " committed");
        IdValve.openTo(valve, 800);
        awaitOpenTransactions(2);
        String s0 = savepoint(job, dir);
        IdValve.openTo(valve, 1_200);
        awaitOpenTransactions(2);
        checkpoint(client, job.getJobID());
        IdValve.openTo(valve, 1_600);
        awaitOpenTransactions(2);
        String s1 = savepoint(job, dir);
        long s0Id = checkpointIdOf(s0);
        long s1Id = checkpointIdOf(s1);
        IdValve.openFully(valve);
        checkpointUntilFinished(client, job);
        assertExactlyOnce(n);
        Set<Long> beforeS1 = idsCommittedUpTo(s1Id);

        // This run's valve opens to 200 ids and no more: it dies mid-way.
        JobClient fromS0 = startValved(valve, n, 200, manualEnv(2, restoreFrom(s0)), "restored from S0, dies");
        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 1, holdAfterPrepare());
        client.triggerCheckpoint(fromS0.getJobID(), CheckpointType.CONFIGURED); // never completes
        awaitPrepared(s0Id + 1, 2);
        fromS0.cancel().get();
        awaitStatus(fromS0, JobStatus.CANCELED);
        awaitSessionsClosed();
        List<String> orphans = preparedLeft();
        assertThat(orphans).hasSize(2);
        assertThat(prepared())
                .extracting(TransactionId::checkpointId)
                .as("named below S1 (%s)", s1Id)
                .containsOnly(s0Id + 1);
        assertThat(s0Id + 1).isLessThanOrEqualTo(s1Id);
        assertThat(rows()).isEqualTo(n);

        IdValve.openFully(valve);
        StreamExecutionEnvironment third = env(2, 200, restoreFrom(s1));
        valvedPipeline(third, valve, n, sink());
        third.execute("restored from S1");

        assertThat(markedGids()).as("committed").doesNotContainAnyElementsOf(orphans);
        assertOnceBeforeTwiceAfter(n, beforeS1);
    }

    /** Ids 0..n-1 through the valve of {@code valve}, rebalanced over the writers of {@code sink}. */
    /**
     * Runs the ids {@code 0..n-1} through the valve {@code valve}, reset and open to {@code open} ids, into
     * the sink on {@code env} (checkpoints triggered by the test); returns once both writers have an open
     * transaction.
     */
    private JobClient startValved(String valve, long n, long open, StreamExecutionEnvironment env, String name)
            throws Exception {
        IdValve.reset(valve);
        IdValve.openTo(valve, open);
        valvedPipeline(env, valve, n, sink());
        JobClient job = env.executeAsync(name);
        awaitOpenTransactions(2);
        return job;
    }

    /**
     * Restores {@code snapshot} (checkpoint {@code checkpointId}) under rewindPolicy(FAIL) and expects the start
     * refused as a rewind, the message naming the checkpoint and what the sink committed since.
     */
    private void assertRewindRefused(String valve, long n, String snapshot, long checkpointId, String name) {
        StreamExecutionEnvironment refused = env(2, 200, restoreFrom(snapshot));
        valvedPipeline(refused, valve, n, sink(spec().withRewindPolicy(RewindPolicy.FAIL)));
        assertThatThrownBy(() -> refused.execute(name))
                .rootCause()
                .hasMessageContaining("restored from checkpoint " + checkpointId)
                .hasMessageContaining("the sink committed")
                .hasMessageContaining("rewindPolicy FAIL");
    }

    private void valvedPipeline(StreamExecutionEnvironment env, String valve, long n, ExactlyOnceSink<Long> sink) {
        IdValve.ids(env, valve, n).rebalance().sinkTo(sink).uid("eosink").name("eosink");
    }

    /**
     * A sink restored without its state. A savepoint's transactions stay prepared (a savepoint does not
     * notify the sink). Restored with a changed sink uid and --allowNonRestoredState, the sources
     * resume after the savepoint while the sink gets none of its state: those transactions are the
     * only copy of their records. The sink must not roll them back: it refuses (leftoverPolicy FAIL,
     * the default) naming them, and the job fails without restarts; restored with the sink's state,
     * the savepoint's committers commit them, exact. With a stateful operator chained to the sink, the
     * sink's task is restored (a restored checkpoint, but no writer state of its own), and the refusal
     * comes at start too, once the restored committers of other subtasks had claimWait to commit them: before
     * the refused run wrote anything, so it leaves no prepared transaction of its own behind (it used to refuse
     * at its first checkpoint, leaving the transactions it had just prepared there, which an operator
     * resolving "the listed leftovers" by hand might commit: duplicates). The refused run takes only that
     * wait longer than without the chained operator.
     */
    @ParameterizedTest(name = "stateful operator chained to the sink: {0}")
    @ValueSource(booleans = {false, true})
    default void aSinkRestoredWithoutItsStateNeverRollsBackTheSavepointsTransactions(
            boolean statefulChain, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        long n = 4_000;
        StreamExecutionEnvironment first = manualEnv(2);
        pipeline(first, n, 400, sink(), "eosink", statefulChain);
        JobClient job = first.executeAsync("first run");
        awaitOpenTransactions(2);
        long c1 = checkpoint(client, job.getJobID());
        await(() -> preparedLeft().isEmpty() && rows() > 0, "checkpoint " + c1 + " committed");
        awaitOpenTransactions(2);
        String savepoint = savepoint(job, dir);
        List<String> ofSavepoint = preparedLeft();
        assertThat(ofSavepoint).as("prepared at the savepoint's barrier").hasSize(2);
        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        awaitSessionsClosed();
        long committed = rows();

        Configuration unmatched = restoreFrom(savepoint);
        unmatched.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay"); // suppressed by the refusal
        unmatched.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        StreamExecutionEnvironment renamed = env(2, 200, unmatched);
        pipeline(renamed, n, 5_000, sink(spec().withClaimWait(Duration.ofSeconds(2))), "eosink-renamed", statefulChain);
        assertThatThrownBy(() -> renamed.execute("restored without the sink's state"))
                .rootCause()
                .satisfies(e -> assertThat(ofSavepoint).anyMatch(e.getMessage()::contains))
                .hasMessageContaining("left by other job(s)")
                .hasMessageContaining("only copy of their records")
                .hasMessageContaining(statefulChain ? "without this sink's writer state" : "without restored state");
        assertThat(preparedLeft())
                .as("the savepoint's transactions, untouched, and none of the refused run's")
                .containsExactlyInAnyOrderElementsOf(ofSavepoint);
        assertThat(rows()).as("nothing of the refused run visible").isEqualTo(committed);
        assertThat(Faults.writerAttempts(sinkId(), 0))
                .as("no restart after the refusal")
                .containsExactly(0);

        StreamExecutionEnvironment remedy = env(2, 200, restoreFrom(savepoint));
        pipeline(remedy, n, 5_000, sink(), "eosink", statefulChain);
        remedy.execute("restored with the sink's state");
        assertThat(markedGids()).containsAll(ofSavepoint);
        assertExactlyOnce(n);
    }

    /**
     * Stop-with-savepoint, with and without drain: unlike a plain savepoint, a stop notifies the
     * savepoint's completion, so everything up to it is committed and nothing is left prepared once the
     * job has stopped. Resuming from that savepoint re-commits its transactions (already committed,
     * proved by marker) and writes the rest: exact.
     */
    @ParameterizedTest(name = "drain = {0}")
    @ValueSource(booleans = {false, true})
    default void stopWithSavepointCommitsEverythingUpToIt(
            boolean drain, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        long n = 4_000;
        StreamExecutionEnvironment env = manualEnv(2);
        pipeline(env, n, 400);
        JobClient job = env.executeAsync("stop with savepoint, drain = " + drain);
        awaitOpenTransactions(2);
        long c1 = checkpoint(client, job.getJobID());
        await(() -> preparedLeft().isEmpty() && rows() > 0, "checkpoint " + c1 + " committed");
        awaitOpenTransactions(2); // both writers have rows in the stop's epoch

        String savepoint = stopWithSavepoint(job, drain, dir);
        awaitStatus(job, JobStatus.FINISHED);
        long savepointId = checkpointIdOf(savepoint);

        assertThat(preparedLeft()).as("prepared right after the stop").isEmpty();
        Set<String> ofSavepoint = markedGids().stream()
                .filter(g -> TransactionId.parse(g).orElseThrow().checkpointId() == savepointId)
                .collect(Collectors.toSet());
        assertThat(ofSavepoint)
                .as("committed transactions of the stop's savepoint")
                .hasSize(2);
        long atStop = rows();
        assertThat(atStop)
                .as("rows at the stop")
                .isBetween(1L, n - 1)
                .isEqualTo(distinctRows())
                .isEqualTo(markedRows());

        List<String> recommitted = new CopyOnWriteArrayList<>();
        Faults.arm(sinkId(), Faults.Point.BEFORE_COMMIT, 1, a -> recommitted.add(a.transactionId));
        StreamExecutionEnvironment resumed = env(2, 200, restoreFrom(savepoint));
        pipeline(resumed, n, 5_000);
        resumed.execute("resumed");

        assertThat(recommitted).hasSize(1);
        assertThat(ofSavepoint)
                .as("the first commit after resuming re-commits the stop's")
                .contains(recommitted.get(0));
        assertExactlyOnce(n);
    }

    /**
     * Cancel, and a retained checkpoint resumed: cancelling a running job rolls back only the open,
     * unprepared transaction; the transactions prepared for a checkpoint still pending stay prepared
     * (they belong to Flink's checkpoint, not to the task). Resuming from the latest retained checkpoint
     * rolls those back (their checkpoint did not complete), re-commits the retained checkpoint's
     * (already committed), replays the rest: exact, nothing prepared left.
     */
    @Test
    default void cancelRollsBackOnlyTheOpenTransactionAndTheRetainedCheckpointResumes(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        long n = 4_000;
        Configuration retained = new Configuration();
        retained.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        retained.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
        retained.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        StreamExecutionEnvironment env = manualEnv(2, retained);
        pipeline(env, n, 300);
        JobClient job = env.executeAsync("cancelled");
        JobID jobId = job.getJobID();
        awaitOpenTransactions(2);
        checkpoint(client, jobId);
        awaitOpenTransactions(2);
        long c2 = checkpoint(client, jobId);
        await(() -> preparedLeft().isEmpty() && rows() > 0, "checkpoint " + c2 + " committed");
        long committed = rows();

        awaitOpenTransactions(2);
        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 1, holdAfterPrepare());
        client.triggerCheckpoint(jobId, CheckpointType.CONFIGURED); // pending until the cancel
        awaitPrepared(c2 + 1, 2);
        awaitOpenTransactions(1); // the writer not held goes on writing after the pending barrier
        List<String> preparedAtCancel = preparedLeft();

        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        awaitSessionsClosed();

        assertThat(preparedLeft())
                .as("prepared after the cancel: the pending checkpoint's, untouched")
                .isEqualTo(preparedAtCancel);
        assertThat(rows())
                .as("rows of the open transaction never became visible")
                .isEqualTo(committed);

        Path latest = newestRetainedCheckpoint(dir, jobId);
        assertThat(checkpointIdOf(latest.toUri().toString()))
                .as("latest retained checkpoint")
                .isEqualTo(c2);
        StreamExecutionEnvironment resumed =
                env(2, 200, restoreFrom(latest.toUri().toString()));
        pipeline(resumed, n, 5_000);
        resumed.execute("resumed from " + latest.getFileName());

        assertThat(markedGids()).doesNotContainAnyElementsOf(preparedAtCancel);
        assertExactlyOnce(n);
    }
}
