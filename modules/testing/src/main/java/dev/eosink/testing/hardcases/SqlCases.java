/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.JobFailures;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static dev.eosink.testing.hardcases.TestJobs.awaitStatus;
import static dev.eosink.testing.hardcases.TestJobs.checkpointIdOf;
import static dev.eosink.testing.hardcases.TestJobs.checkpointUntilFinished;
import static dev.eosink.testing.hardcases.TestJobs.fixedDelayRestarts;
import static dev.eosink.testing.hardcases.TestJobs.manualEnv;
import static dev.eosink.testing.hardcases.TestJobs.restoreFrom;
import static dev.eosink.testing.hardcases.TestJobs.savepoint;
import static dev.eosink.testing.hardcases.TestJobs.stopWithSavepoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The savepoint cases that need a database's SQL: what row locks and the pruning of marker rows do to a
 * restore. The rest of the savepoint cases are resource-neutral ({@link SavepointCases}).
 */
public interface SqlCases extends JdbcHardCaseSupport {

    /**
     * An orphan holding keys the replay writes. Another line of history of the sink id (a run restored
     * from an older snapshot, another job) died with a prepared transaction named at or below the
     * savepoint an operator now restores, holding keys the replay writes (a unique index). The writer
     * state restored from the savepoint names the runs whose transactions its committers hold, so the
     * new writers roll the orphan back at start, before the first record; resolved only at the first
     * checkpoint, it would hold the replay's writes until the lock timeout, at every restart, and no
     * checkpoint would ever come. The restored run ends exact, without a lock wait.
     *
     * <p>Where the database makes such a write fail at once rather than wait ({@link
     * Capability#WRITES_WAIT_FOR_PREPARED_ROWS}: Firebird, whose orphan is in limbo), the other subtask's
     * replay may meet an orphan's row before subtask 0 rolled it back: it fails on it (isc_rec_in_limbo), and
     * the job, restarted from the savepoint, ends exact. So there the restored run may restart, and every
     * failure it went through is that one; elsewhere it runs without restarts and fails none.
     *
     * <p>Needs SQL: the conflict is a unique index's row locks, which the test creates by SQL; the
     * orphan's rollback itself is a neutral case ({@link SavepointCases#restoreASavepointAfterARunFromAnOlderOneDied}).
     */
    @Test
    default void anOrphanOfAnotherLineOfHistoryIsRolledBackBeforeTheReplayNeedsItsLocks(
            @InjectClusterClient ClusterClient<?> client, @InjectMiniCluster MiniCluster cluster, @TempDir Path dir)
            throws Exception {
        long n = 4_000;
        backend().execute("CREATE UNIQUE INDEX " + target() + "_id ON " + target() + " (id)");
        StreamExecutionEnvironment first = manualEnv(2);
        pipeline(first, n, 400);
        JobClient job = first.executeAsync("first run");
        awaitOpenTransactions(2);
        String savepoint = savepoint(job, dir);
        long savepointId = checkpointIdOf(savepoint);
        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        awaitSessionsClosed();
        List<String> ofSavepoint = preparedLeft();
        assertThat(ofSavepoint).hasSize(2);
        // Another job's transaction of subtask 0, named at the savepoint, holding the last 50 ids.
        TransactionId orphan = new TransactionId(sinkId(), 0, savepointId, "zzzz0000");
        backend().stagePrepared(target(), orphan, n - 50, n);

        // No restarts (where writes wait): a lock timeout fails the job. No checkpoint until the replay has
        // reached the orphan's ids (about half a second at this rate): the conflict comes before the first one.
        StreamExecutionEnvironment restored = manualEnv(2, restoreFromPastPreparedRows(savepoint));
        pipeline(restored, n, 5_000);
        JobClient replay = restored.executeAsync("restored, an orphan in the way");
        Thread.sleep(3_000);
        long t0 = System.nanoTime();
        checkpointUntilFinished(client, replay);

        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("no lock wait").isLessThan(Duration.ofSeconds(30));
        assertFailedOnRowsInLimboAtMost(cluster, replay.getJobID());
        assertThat(markedGids()).as("committed").containsAll(ofSavepoint).doesNotContain(orphan.toString());
        assertExactlyOnce(n);
    }

    /**
     * A leftover in the replay's way, when the restore gives the sink no state. The job is stopped with a
     * savepoint (everything up to it committed); another job of the sink id then dies with a prepared
     * transaction named at the savepoint, holding ids the replay after the savepoint writes (a unique index).
     * The operator restores the savepoint with a changed sink uid and --allowNonRestoredState, and a stateful
     * operator chained to the sink makes the writers' tasks restored ones: they see a restored checkpoint but no
     * writer state, and another subtask's restored committer could have held the leftover. The writers wait
     * claimWait for that, then the leftover policy decides at start, before the first record: FAIL refuses
     * without restarts, naming it; nothing of the refused run becomes visible, and the leftover is untouched.
     * (It used to be left to the run's first checkpoint, which never came: the replay waited on the
     * leftover's lock until the lock timeout, failed over, and did the same at every restart.) Restored with
     * the sink's state, the leftover is of another execution than the savepoint's: an orphan, rolled back at
     * start, and the run ends exact.
     *
     * <p>Where the database makes a write that meets the leftover's row fail at once rather than wait ({@link
     * Capability#WRITES_WAIT_FOR_PREPARED_ROWS}: Firebird, whose leftover is in limbo), whichever subtask gets
     * there first ends the refused run: subtask 0 refusing as above, or the other subtask's replay failing on
     * the leftover's row (isc_rec_in_limbo) while subtask 0 still waits. That run runs without restarts there,
     * since each restart would race again; either way nothing of it is visible and the leftover is untouched.
     * The run restored with the sink's state may meet the orphan's row the same way before subtask 0 rolled it
     * back: it restarts, failing on nothing else, and ends exact.
     */
    @Test
    default void aLeftoverInTheReplaysWayIsRefusedAtStartWhenTheRestoreGivesTheSinkNoState(
            @InjectMiniCluster MiniCluster cluster, @TempDir Path dir) throws Exception {
        long n = 4_000;
        backend().execute("CREATE UNIQUE INDEX " + target() + "_id ON " + target() + " (id)");
        StreamExecutionEnvironment first = manualEnv(2);
        pipeline(first, n, 400, sink(), "eosink", true);
        JobClient job = first.executeAsync("first run");
        awaitOpenTransactions(2);
        String savepoint = stopWithSavepoint(job, false, dir);
        awaitStatus(job, JobStatus.FINISHED);
        awaitSessionsClosed();
        long savepointId = checkpointIdOf(savepoint);
        long atStop = rows();
        assertThat(preparedLeft()).as("prepared after the stop").isEmpty();
        TransactionId leftover = new TransactionId(sinkId(), 0, savepointId, "zzzz0000");
        backend().stagePrepared(target(), leftover, n - 50, n);

        boolean writesWait = !backend().lacks(Capability.WRITES_WAIT_FOR_PREPARED_ROWS);
        Configuration unmatched = restoreFrom(savepoint);
        if (writesWait) {
            unmatched.addAll(fixedDelayRestarts(50, Duration.ofMillis(100))); // the refusal suppresses them
        }
        unmatched.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        StreamExecutionEnvironment renamed = manualEnv(2, unmatched);
        pipeline(renamed, n, 5_000, sink(spec().withClaimWait(Duration.ofSeconds(2))), "eosink-renamed", true);
        JobClient refused = renamed.executeAsync("restored without the sink's state, a leftover in the way");
        Throwable failure = catchThrowable(() -> refused.getJobExecutionResult().get(60, TimeUnit.SECONDS));
        assertThat(failure)
                .as("refused, well within the lock timeout of a writer waiting on the leftover")
                .isInstanceOf(ExecutionException.class);
        String messages = TestJobs.messages(failure);
        if (writesWait || !metARowInLimbo(messages)) {
            assertThat(failure)
                    .rootCause()
                    .hasMessageContaining(leftover.toString())
                    .hasMessageContaining("left by other job(s)")
                    .hasMessageContaining("without this sink's writer state");
        }
        assertThat(Faults.writerAttempts(sinkId(), 0))
                .as("no restart after the refusal")
                .containsExactly(0);
        assertThat(preparedLeft()).as("the leftover, untouched").containsExactly(leftover.toString());
        assertThat(rows()).as("nothing of the refused run visible").isEqualTo(atStop);

        StreamExecutionEnvironment remedy = TestJobs.env(2, 200, restoreFromPastPreparedRows(savepoint));
        pipeline(remedy, n, 5_000, sink(), "eosink", true);
        JobClient restored = remedy.executeAsync("restored with the sink's state");
        restored.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        assertFailedOnRowsInLimboAtMost(cluster, restored.getJobID());
        assertThat(markedGids()).doesNotContain(leftover.toString());
        assertExactlyOnce(n);
    }

    /**
     * A restore of {@code savepoint} ({@link TestJobs#restoreFrom}: no restarts), with restarts where a write that
     * meets a row of a prepared branch fails at once ({@link Capability#WRITES_WAIT_FOR_PREPARED_ROWS}): there a
     * replay may meet the row of a branch that its own subtask rolls back at start only a moment later.
     */
    private Configuration restoreFromPastPreparedRows(String savepoint) {
        Configuration restore = restoreFrom(savepoint);
        if (backend().lacks(Capability.WRITES_WAIT_FOR_PREPARED_ROWS)) {
            restore.addAll(fixedDelayRestarts(50, Duration.ofMillis(100)));
        }
        return restore;
    }

    /**
     * The failures {@code job} went through: none where writes wait for prepared rows; elsewhere only a write that
     * met a row of a branch in limbo, as many times as the replay got there before the branch's own subtask.
     */
    private void assertFailedOnRowsInLimboAtMost(MiniCluster cluster, JobID job) throws Exception {
        List<String> failures = JobFailures.of(cluster, job);
        if (backend().lacks(Capability.WRITES_WAIT_FOR_PREPARED_ROWS)) {
            assertThat(failures)
                    .as("failures of the restored run")
                    .allSatisfy(f -> assertThat(metARowInLimbo(f)).as(f).isTrue());
        } else {
            assertThat(failures).as("failures of the restored run").isEmpty();
        }
    }

    /** Firebird's isc_rec_in_limbo (335544459): "record from transaction N is stuck in limbo". */
    private static boolean metARowInLimbo(String failure) {
        return failure.contains("stuck in limbo");
    }

    /**
     * Marker retention at restore. Marker rows are dated by their epoch's start. A job down for longer
     * than markerRetention and restored from a savepoint commits the savepoint's transactions at
     * restore, whose markers are older than the retention already. Pruned at once, a failure before
     * the run's first checkpoint would restore the same savepoint again and find them neither prepared
     * nor marked: a false LOST, whose remedy (a replay) would duplicate. So pruning waits for a
     * checkpoint of the run: the restart after that failure finds the markers, and the run ends exact
     * with them pruned.
     *
     * <p>Needs SQL: it is about marker rows that the sink deletes (pruning). A resource whose marker
     * is the committed data itself (a committed file) prunes nothing, so the case has no meaning there.
     */
    @Test
    default void markersOfTheCommitsAtRestoreOutliveTheRetentionUntilACheckpointOfTheRunCompletes(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        long n = 4_000;
        Supplier<ExactlyOnceSink<Long>> shortRetention =
                () -> sink(spec().withMarkerRetention(Duration.ofSeconds(1), Duration.ofMillis(1)));
        StreamExecutionEnvironment first = manualEnv(2);
        pipeline(first, n, 400, shortRetention.get(), "eosink", false);
        JobClient job = first.executeAsync("first run");
        awaitOpenTransactions(2);
        String savepoint = savepoint(job, dir);
        List<String> ofSavepoint = preparedLeft();
        assertThat(ofSavepoint).hasSize(2);
        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        awaitSessionsClosed();
        Thread.sleep(1_500); // the job is down longer than the retention

        Configuration restore = fixedDelayRestarts(3, Duration.ofMillis(100));
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment second = manualEnv(2, restore);
        pipeline(second, n, 4_000, shortRetention.get(), "eosink", false); // only checkpoints the test takes
        Faults.arm(sinkId(), Faults.Point.WRITE, 100); // attempt 0 fails before any checkpoint of the run
        JobClient restored = second.executeAsync("restored, fails before its first checkpoint");
        await(() -> Faults.fired(sinkId(), Faults.Point.WRITE) == 1, "the failure before the run's first checkpoint");
        checkpointUntilFinished(client, restored); // the restart restores the savepoint again

        assertThat(Faults.fired(sinkId(), Faults.Point.WRITE)).isEqualTo(1);
        assertThat(markedGids())
                .as("pruned, once a checkpoint of the run completed")
                .doesNotContainAnyElementsOf(ofSavepoint);
        assertExactlyOnce(n);
    }
}
