/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.CheckpointDecliner.Observation;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.failureOf;
import static dev.eosink.testing.hardcases.TestJobs.fixedDelayRestarts;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.hardcases.TestJobs.messageContaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task fails around the two-phase commit, or a checkpoint fails after the writers prepared it:
 * every point between the first record of an epoch and the commit of its transaction. Besides exact
 * counts, each case checks that the fault fired and what the protocol then did with the very
 * transaction it hit ({@link ProtocolTrace}).
 *
 * <p>Histories in assertions read "what@attempt": {@code COMMIT:COMMITTED@1} is a commit that
 * succeeded in the committer's attempt 1 (after one restart of that subtask).
 */
public interface FailoverCases extends HardCaseSupport {

    /**
     * Rows of the jobs whose checkpoint is declined: two seconds of input at the source's rate, whose last
     * records wait for the decline ({@link FaultPacedIds#idsUntilDeclined}), so that even a cold, loaded run
     * has checkpoints with rows after the first (the decliner fails the first from its second snapshot on
     * before which it passed records on).
     */
    long DECLINED_ROWS = 6_000;

    /** The straight path: a bounded job's last records are committed by its final checkpoint. */
    @Test
    default void boundedJobCommitsEverythingAtTheEnd() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 5_000, 5_000).sinkTo(sink());
        env.execute("bounded");
        assertExactlyOnce(5_000);
    }

    /** An exception in the middle of an epoch: the open transaction dies, the epoch is replayed once. */
    @Test
    default void failureMidEpochIsReplayedOnce() throws Exception {
        Faults.arm(sinkId(), Faults.Point.WRITE, 1_500);
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(sink());
        env.execute("mid-epoch failure");
        assertThat(Faults.fired(sinkId(), Faults.Point.WRITE)).isEqualTo(1);
        assertExactlyOnce(4_000);
    }

    /** A regional failover restarts only the failed subtask; the other keeps running and keeps its transactions. */
    @Test
    default void regionalFailoverRestartsOnlyTheFailedSubtask() throws Exception {
        Faults.arm(sinkId(), Faults.Point.WRITE, 1_500);
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 2_000).sinkTo(sink());
        env.execute("regional failover");
        assertThat(List.of(Faults.writerAttempts(sinkId(), 0), Faults.writerAttempts(sinkId(), 1)))
                .as("writer attempts per subtask")
                .containsExactlyInAnyOrder(Set.of(0), Set.of(0, 1));
        assertExactlyOnce(4_000);
    }

    /**
     * The task fails right after it prepared (the job's third prepare: the input waits for it, {@link
     * FaultPacedIds}), before its checkpoint can complete. The prepared transaction never becomes visible
     * (its marker never appears), and the restarted writer of that subtask rolls it back at start,
     * because its checkpoint is after the one the job restored.
     */
    @Test
    default void failureAfterPrepareIsRolledBackByTheRestartedWriter() throws Exception {
        AtomicReference<String> hit = new AtomicReference<>();
        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 3, rememberAndFail(hit));
        StreamExecutionEnvironment env = env(2, 200);
        FaultPacedIds.ids(env, 4_000, 4_000, sinkId(), Faults.Point.AFTER_PREPARE)
                .sinkTo(sink());
        env.execute("failure after prepare");

        assertThat(Faults.fired(sinkId(), Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        String gid = hit.get();
        int subtask = TransactionId.parse(gid).orElseThrow().subtask();
        assertThat(ProtocolTrace.prepared(sinkId(), gid).rows())
                .as("rows in the hit transaction")
                .isPositive();
        // Never committed by anyone, rolled back by the restarted writer of its own subtask.
        assertThat(ProtocolTrace.history(sinkId(), gid)).containsExactly("PREPARED@0", "ROLLED_BACK@1");
        assertThat(ProtocolTrace.of(sinkId(), gid).get(1).subtask).isEqualTo(subtask);
        assertThat(markers(gid))
                .as("marker of %s (visible only if it committed)", gid)
                .isZero();
        assertThat(Faults.writerAttempts(sinkId(), subtask)).contains(0, 1);
        assertExactlyOnce(4_000);
    }

    /**
     * Checkpoint N completed, and the committer fails before it commits (the job's third commit: the
     * input waits for it, {@link FaultPacedIds}). The restarted subtask's committer finds the transaction
     * in the restored state and commits it (a real commit, not "already committed"); its writer leaves it
     * alone.
     */
    @Test
    default void crashBeforeCommitIsCommittedByTheRestoredCommitter() throws Exception {
        AtomicReference<String> hit = new AtomicReference<>();
        Faults.arm(sinkId(), Faults.Point.BEFORE_COMMIT, 3, rememberAndFail(hit));
        StreamExecutionEnvironment env = env(2, 200);
        FaultPacedIds.ids(env, 4_000, 4_000, sinkId(), Faults.Point.BEFORE_COMMIT)
                .sinkTo(sink());
        env.execute("crash before commit");

        assertThat(Faults.fired(sinkId(), Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        String gid = hit.get();
        assertThat(ProtocolTrace.history(sinkId(), gid)).containsExactly("PREPARED@0", "COMMIT:COMMITTED@1");
        assertThat(markers(gid)).isEqualTo(1);
        assertThat(Faults.writerAttempts(
                        sinkId(), TransactionId.parse(gid).orElseThrow().subtask()))
                .containsExactly(0, 1);
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(4_000);
    }

    /**
     * The crash above, and the restored committer's commit takes longer than the writer's claim wait (a
     * COMMIT PREPARED waiting for a synchronous standby, say). With chaining disabled the restored committer
     * is a task of its own and commits while the restored writer starts: the writer, finding the promised
     * transaction still prepared when its claim wait runs out, waits on while that committer is committing,
     * instead of refusing the start for good as if the committers' state had been dropped. Run where chaining
     * is disabled ({@link SinkUnchainedHardCases}); chained, the committer commits before the writer starts,
     * whatever it takes.
     */
    default void aRestoredCommitterSlowerThanTheClaimWaitIsWaitedFor() throws Exception {
        AtomicReference<String> hit = new AtomicReference<>();
        Faults.arm(sinkId(), Faults.Point.BEFORE_COMMIT, 3, rememberAndFail(hit));
        StreamExecutionEnvironment env = env(2, 200);
        FaultPacedIds.ids(env, 4_000, 4_000, sinkId(), Faults.Point.BEFORE_COMMIT)
                // The claim wait leaves the restored committer's task time to start on a busy machine; the
                // commit then outlasts it by far.
                .sinkTo(sink(spec().withClaimWait(Duration.ofSeconds(3)))
                        .withLifecycleHook(Faults.delayFirstRestoredCommit(sinkId(), Duration.ofSeconds(7))));
        env.execute("crash before commit, slow restored commit");

        String gid = hit.get();
        assertThat(ProtocolTrace.history(sinkId(), gid)).containsExactly("PREPARED@0", "COMMIT:COMMITTED@1");
        assertThat(Faults.writerAttempts(
                        sinkId(), TransactionId.parse(gid).orElseThrow().subtask()))
                .as("one restart, the injected one")
                .containsExactly(0, 1);
        assertExactlyOnce(4_000);
    }

    /**
     * The commit succeeded, then the task failed before Flink heard of it. The restored committer finds
     * the transaction gone (the resource answers "not found"), proves from its marker that it committed
     * and counts it "already committed"; the job goes on without another failure, nothing written twice.
     */
    @Test
    default void commitDoneBeforeTheCrashIsProvedByItsMarker() throws Exception {
        AtomicReference<String> hit = new AtomicReference<>();
        Faults.arm(sinkId(), Faults.Point.AFTER_COMMIT, 3, rememberAndFail(hit));
        StreamExecutionEnvironment env = env(2, 200);
        CheckpointPacedIds.ids(env, 4_000, 500).sinkTo(sink());
        env.execute("crash after commit");

        assertThat(Faults.fired(sinkId(), Faults.Point.AFTER_COMMIT)).isEqualTo(1);
        String gid = hit.get();
        assertThat(ProtocolTrace.history(sinkId(), gid))
                .containsExactly("PREPARED@0", "COMMIT:COMMITTED@0", "COMMIT:NOT_FOUND@1", "MARKER:true@1");
        // Exactly the one injected restart: proving the commit did not fail the restored task.
        assertThat(Faults.writerAttempts(
                        sinkId(), TransactionId.parse(gid).orElseThrow().subtask()))
                .containsExactly(0, 1);
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(4_000);
    }

    /**
     * Declined and tolerated: checkpoint N is declined by one subtask (its state fails to serialize
     * asynchronously) after both writers prepared their transactions of N, and the job goes on
     * (tolerable failed checkpoints > 0). When Flink notifies the abort, the transactions of N are still
     * prepared and none of their rows or markers is visible; when the next checkpoint completes, N's and
     * then N+1's transactions are committed, in order, by the same committers, without any failover.
     */
    @Test
    default void declinedCheckpointIsCommittedByTheNextCompletedOne() throws Exception {
        CheckpointDecliner.watch(sinkId(), databaseView());
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        FaultPacedIds.idsUntilDeclined(env, DECLINED_ROWS, 3_000, sinkId())
                .map(new CheckpointDecliner(sinkId(), 0, 2, CheckpointDecliner.How.ASYNC_DECLINE))
                .sinkTo(sink());
        env.execute("declined checkpoint, tolerated");

        assertAbortedCheckpointCommittedByTheNextOne();
        assertExactlyOnce(DECLINED_ROWS);
    }

    /**
     * Timed out: checkpoint N expires (one subtask is stuck in its snapshot past the checkpoint
     * timeout) after both writers prepared N. As with a decline: nothing of N is visible at the abort,
     * the next completed checkpoint commits N, then N+1, with no failover.
     */
    @Test
    default void expiredCheckpointIsCommittedByTheNextCompletedOne() throws Exception {
        CheckpointDecliner.watch(sinkId(), databaseView());
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setCheckpointTimeout(1_000);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        FaultPacedIds.idsUntilDeclined(env, DECLINED_ROWS, 3_000, sinkId())
                .map(new CheckpointDecliner(sinkId(), 0, 2, CheckpointDecliner.How.BLOCK_UNTIL_ABORTED))
                .sinkTo(sink());
        env.execute("expired checkpoint, tolerated");

        assertAbortedCheckpointCommittedByTheNextOne();
        assertExactlyOnce(DECLINED_ROWS);
    }

    /**
     * Declined, not tolerated: the same decline with tolerable failed checkpoints = 0 fails the whole
     * job over. The restarted writers roll back the transactions of the declined checkpoint (its
     * number is after the restored one), none of them is ever committed, and the replay writes their
     * records once.
     */
    @Test
    default void declinedCheckpointWithoutToleranceIsRolledBackAndReplayed() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(0);
        FaultPacedIds.idsUntilDeclined(env, DECLINED_ROWS, 3_000, sinkId())
                .map(new CheckpointDecliner(sinkId(), 0, 2, CheckpointDecliner.How.ASYNC_DECLINE))
                .sinkTo(sink());
        env.execute("declined checkpoint, not tolerated");

        long n = CheckpointDecliner.failedCheckpoint(sinkId());
        assertThat(n).as("checkpoint declined by the map").isPositive();
        Map<Integer, List<String>> preparedAtN = CheckpointDecliner.preparedAt(sinkId(), n);
        // Subtask 0 declines and wrote in that epoch; subtask 1 may have had nothing to prepare under load.
        assertThat(preparedAtN)
                .containsKey(0)
                .allSatisfy((subtask, gids) -> assertThat(gids).hasSizeBetween(subtask == 0 ? 1 : 0, 1));
        for (List<String> gids : preparedAtN.values()) {
            for (String gid : gids) {
                assertThat(ProtocolTrace.history(sinkId(), gid)).containsExactly("PREPARED@0", "ROLLED_BACK@1");
                assertThat(markers(gid)).isZero();
            }
        }
        // Exceeding the tolerable number fails the whole job over, not just one region.
        assertThat(Faults.writerAttempts(sinkId(), 0)).contains(0, 1);
        assertThat(Faults.writerAttempts(sinkId(), 1)).contains(0, 1);
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(DECLINED_ROWS);
    }

    /**
     * A failing {@code snapshotState}, as Flink really treats it: an exception in the synchronous part
     * of a snapshot fails the task even with tolerable failed checkpoints > 0 (only asynchronous
     * failures and expiry are tolerable). The failing subtask restarts alone (regional failover) and
     * rolls back its transaction of the failed checkpoint; the other subtask keeps running and commits
     * its transaction of that checkpoint with the next completed one.
     */
    @Test
    default void snapshotStateFailureFailsTheTaskOverEvenWhenTolerated() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        FaultPacedIds.idsUntilDeclined(env, DECLINED_ROWS, 3_000, sinkId())
                .map(new CheckpointDecliner(sinkId(), 0, 2, CheckpointDecliner.How.SYNC_THROW))
                .sinkTo(sink());
        env.execute("snapshotState throws");

        long n = CheckpointDecliner.failedCheckpoint(sinkId());
        assertThat(n).isPositive();
        Map<Integer, List<String>> preparedAtN = CheckpointDecliner.preparedAt(sinkId(), n);
        assertThat(preparedAtN)
                .containsKey(0)
                .allSatisfy((subtask, gids) -> assertThat(gids).hasSizeBetween(subtask == 0 ? 1 : 0, 1));
        assertThat(Faults.writerAttempts(sinkId(), 0)).containsExactly(0, 1);
        assertThat(Faults.writerAttempts(sinkId(), 1)).containsExactly(0);
        assertThat(ProtocolTrace.history(sinkId(), preparedAtN.get(0).get(0)))
                .containsExactly("PREPARED@0", "ROLLED_BACK@1");
        for (String gid : preparedAtN.getOrDefault(1, List.of())) {
            assertThat(ProtocolTrace.history(sinkId(), gid)).containsExactly("PREPARED@0", "COMMIT:COMMITTED@0");
        }
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(DECLINED_ROWS);
    }

    /**
     * Lost: someone else rolls back a prepared transaction whose checkpoint completed, just before the
     * committer commits it. The committer must not assume success: the job fails, naming the
     * transaction, the checkpoint, the subtask and that the rows are LOST; each restored attempt looks
     * again (not found, no marker) and fails the same way.
     *
     * <p>Parallelism 1, and the lost transaction is the job's last one (the epoch holding the last
     * id): then, when the job gives up, no other transaction is in flight, so "nothing prepared left"
     * and "exactly the lost transaction's rows are missing" are exact statements.
     */
    @Test
    default void transactionRolledBackBySomeoneElseFailsTheJobLoudly() throws Exception {
        long n = 3_000;
        int restarts = 2;
        AtomicReference<String> hit = new AtomicReference<>();
        Faults.armWhen(
                sinkId(),
                Faults.Point.BEFORE_COMMIT,
                a -> {
                    ProtocolTrace.Event epoch = ProtocolTrace.prepared(a.sinkId, a.transactionId);
                    return epoch != null && epoch.maxId() == n - 1;
                },
                a -> {
                    hit.set(a.transactionId);
                    try {
                        backend()
                                .rollbackPrepared(
                                        TransactionId.parse(a.transactionId).orElseThrow()); // as an operator might
                    } catch (Exception e) {
                        throw new IOException(e);
                    }
                });
        StreamExecutionEnvironment env = env(1, 200, fixedDelayRestarts(restarts, Duration.ofMillis(100)));
        ids(env, n, 3_000).sinkTo(sink());

        Throwable failure = failureOf(() -> env.execute("lost transaction"));
        assertThat(Faults.fired(sinkId(), Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        String gid = hit.get();
        TransactionId id = TransactionId.parse(gid).orElseThrow();
        assertThat(messageContaining(failure, "LOST"))
                .contains(gid)
                .contains("checkpoint " + id.checkpointId())
                .contains("sink '" + sinkId() + "' subtask 0/1")
                .contains("written by subtask 0")
                .contains("is gone and "
                        + sink().database().wording().missingMarker()); // "its marker row is absent", ...

        // Never assumed committed: every attempt (the first and each restart) found it gone and unmarked.
        List<String> expected = new ArrayList<>(List.of("PREPARED@0"));
        for (int attempt = 0; attempt <= restarts; attempt++) {
            expected.add("COMMIT:NOT_FOUND@" + attempt);
            expected.add("MARKER:false@" + attempt);
        }
        assertThat(ProtocolTrace.history(sinkId(), gid)).containsExactlyElementsOf(expected);
        assertThat(markers(gid)).isZero();

        // Exactly the lost transaction's rows are missing. At parallelism 1 the single reader emits ids
        // in order, so the lost epoch is the contiguous range minId..n-1, which the trace recorded.
        ProtocolTrace.Event epoch = ProtocolTrace.prepared(sinkId(), gid);
        assertThat(epoch.maxId()).isEqualTo(n - 1);
        assertThat(epoch.maxId() - epoch.minId() + 1)
                .as("lost epoch is contiguous")
                .isEqualTo(epoch.rows());
        assertThat(preparedLeft()).as("prepared transactions left").isEmpty();
        assertThat(rows()).as("duplicates").isEqualTo(distinctRows());
        assertThat(rows()).isEqualTo(n - epoch.rows());
        assertThat(distinctIdsIn(0, epoch.minId()))
                .as("every id before the lost epoch")
                .isEqualTo(epoch.minId());
    }

    /** An action that remembers the transaction it hit, then fails the task. */
    private static Faults.Action rememberAndFail(AtomicReference<String> hit) {
        return a -> {
            hit.set(a.transactionId);
            throw new Faults.InjectedFault(a.sinkId + ": injected fault at " + a.point + " on " + a.transactionId
                    + " (subtask " + a.subtask + ", attempt " + a.attempt + ")");
        };
    }

    /**
     * For a checkpoint N that {@link CheckpointDecliner} made fail while the job went on: both
     * subtasks prepared N; at the abort N was still prepared and invisible; the first completed
     * checkpoint after N committed it; no failover; commits in checkpoint order.
     */
    private void assertAbortedCheckpointCommittedByTheNextOne() {
        long n = CheckpointDecliner.failedCheckpoint(sinkId());
        assertThat(n).as("checkpoint failed by the map").isPositive();
        Map<Integer, List<String>> preparedAtN = CheckpointDecliner.preparedAt(sinkId(), n);
        assertThat(preparedAtN)
                .as("transactions prepared at the barrier of failed checkpoint %d", n)
                .containsKey(0)
                .allSatisfy((subtask, gids) -> assertThat(gids).hasSizeBetween(subtask == 0 ? 1 : 0, 1));
        List<String> gidsOfN =
                preparedAtN.values().stream().flatMap(List::stream).collect(Collectors.toList());

        // No failover: the failed checkpoint was tolerated.
        assertThat(Faults.writerAttempts(sinkId(), 0)).containsExactly(0);
        assertThat(Faults.writerAttempts(sinkId(), 1)).containsExactly(0);

        List<Observation> observations = CheckpointDecliner.observations(sinkId());
        List<Observation> aborted =
                observations.stream().filter(o -> o.when.equals("aborted")).collect(Collectors.toList());
        List<Observation> completed =
                observations.stream().filter(o -> o.when.equals("completed")).collect(Collectors.toList());
        assertThat(aborted)
                .as("abort notifications of checkpoint %d, per subtask", n)
                .extracting(o -> o.subtask)
                .containsExactlyInAnyOrder(0, 1);
        for (Observation o : aborted) {
            // The declining subtask 0 wrote in that epoch; under load the other subtask's source may
            // have started late and had nothing to prepare, which is no less a correct run.
            assertThat(o.gids).as("%s", o).hasSizeBetween(o.subtask == 0 ? 1 : 0, 1);
            if (o.gids.isEmpty()) {
                continue;
            }
            assertThat(o.stillPrepared).as("still prepared at abort: %s", o).isEqualTo(o.gids);
            assertThat(o.markersVisible).as("markers visible at abort: %s", o).isZero();
            assertThat(o.rowsVisible)
                    .as("rows of checkpoint %d visible at abort: %s", n, o)
                    .isZero();
            assertThat(o.rowsPrepared).as("%s", o).isPositive();
            assertThat(o.committedRows).as("%s", o).isLessThan(DECLINED_ROWS);
        }
        assertThat(completed)
                .as("first completed checkpoint after %d, per subtask", n)
                .extracting(o -> o.subtask)
                .containsExactlyInAnyOrder(0, 1);
        for (Observation o : completed) {
            assertThat(o.notifiedCheckpointId).as("%s", o).isGreaterThan(n);
            if (o.gids.isEmpty()) {
                continue; // that subtask prepared nothing at checkpoint n (see above)
            }
            assertThat(o.stillPrepared).as("%s", o).isEmpty();
            assertThat(o.markersVisible).as("%s", o).isEqualTo(1);
            assertThat(o.rowsVisible).as("%s", o).isEqualTo(o.rowsPrepared);
        }

        // Each transaction of N: one commit that succeeded, by the committer that was running all
        // along; and every subtask committed in checkpoint order (N before N+1).
        for (String gid : gidsOfN) {
            assertThat(ProtocolTrace.history(sinkId(), gid)).containsExactly("PREPARED@0", "COMMIT:COMMITTED@0");
        }
        assertCommitsInCheckpointOrder();
    }

    /** Per subtask, commits were sent in ascending checkpoint order (N before N+1), none twice. */
    private void assertCommitsInCheckpointOrder() {
        for (int subtask : Set.of(0, 1)) {
            List<Long> order = ProtocolTrace.events(sinkId(), ProtocolTrace.Kind.COMMIT).stream()
                    .filter(e -> e.subtask == subtask && e.outcome.equals("COMMITTED"))
                    .map(ProtocolTrace.Event::checkpointOfGid)
                    .collect(Collectors.toList());
            assertThat(order)
                    .as("checkpoints of the transactions subtask %d committed, in commit order", subtask)
                    .isSorted()
                    .doesNotHaveDuplicates();
        }
    }
}
