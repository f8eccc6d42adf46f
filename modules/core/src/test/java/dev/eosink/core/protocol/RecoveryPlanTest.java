/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.RecoveryPlan.Verdict;
import dev.eosink.core.protocol.WriterState.Lineage;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RecoveryPlanTest {

    /** The job that took the restored checkpoints in these tests, and the job that restores them. */
    private static final String OLD_JOB = "11111111111111111111111111111111";

    private static final String NEW_JOB = "22222222222222222222222222222222";
    private static final String OTHER_JOB = "33333333333333333333333333333333";

    /** A transaction of {@code job}'s writer instance {@code instance} (four characters). */
    private static TransactionId tx(int subtask, long checkpoint, String job, String instance) {
        return new TransactionId("s", subtask, checkpoint, TransactionId.executionTag(job, "") + instance);
    }

    private static TransactionId tx(int subtask, long checkpoint) {
        return tx(subtask, checkpoint, OLD_JOB, "aaaa");
    }

    private static String run(String job, String instance) {
        return TransactionId.executionTag(job, "") + instance;
    }

    private static WriterState state(int subtask, long checkpoint, String run, int parallelism) {
        return new WriterState("s", subtask, checkpoint, new Lineage(run, parallelism, 1_000L));
    }

    private static RecoveryPlan decide(
            Collection<TransactionId> found,
            int subtask,
            int parallelism,
            OptionalLong restored,
            List<WriterState> states) {
        return RecoveryPlan.decide(
                found, new SubtaskContext("s", subtask, parallelism, 0, new JobRun(NEW_JOB, restored)), states);
    }

    @Test
    void restoredRunRollsBackWhatIsNamedAfterTheRestoredCheckpointAndLeavesWhatItsCommitterHolds() {
        List<TransactionId> found = List.of(tx(0, 4), tx(0, 5), tx(0, 6), tx(0, 7));
        RecoveryPlan plan = decide(found, 0, 1, OptionalLong.of(5), List.of(state(0, 5, run(OLD_JOB, "aaaa"), 1)));
        assertThat(plan.rollBackAtStart()).containsExactly(tx(0, 6), tx(0, 7));
        assertThat(plan.with(Verdict.AFTER_RESTORED)).containsExactly(tx(0, 6), tx(0, 7));
        assertThat(plan.with(Verdict.RESTORED_COMMITTER)).containsExactly(tx(0, 4), tx(0, 5));
        assertThat(plan.freshStart()).isFalse();
    }

    /** What an operator's tool asks: the checkpoint promises exactly what a restored job leaves to its committers. */
    @Test
    void promisesExactlyWhatARestoredJobLeavesToItsCommitters() {
        List<WriterState> states = List.of(state(0, 9, run(OLD_JOB, "aaaa"), 2), state(1, 9, run(OLD_JOB, "bbbb"), 2));
        List<TransactionId> found = List.of(
                tx(0, 8),
                tx(0, 9),
                tx(0, 10),
                tx(1, 9, OLD_JOB, "bbbb"),
                tx(1, 9, OLD_JOB, "cccc"),
                tx(2, 7),
                tx(0, 3, OTHER_JOB, "aaaa"));
        Set<TransactionId> held = new HashSet<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            held.addAll(decide(found, subtask, 2, OptionalLong.of(9), states).with(Verdict.RESTORED_COMMITTER));
        }
        assertThat(held).containsExactlyInAnyOrder(tx(0, 8), tx(0, 9), tx(1, 9, OLD_JOB, "bbbb"));
        for (TransactionId id : found) {
            assertThat(RecoveryPlan.promises(9, states, id)).as("%s", id).isEqualTo(held.contains(id));
        }
        assertThat(RecoveryPlan.promises(9, List.of(WriterState.withoutLineage("s", 0, 9)), tx(0, 8)))
                .isFalse();
    }

    /**
     * The orphan that made a restored job wait for ever: another line of history (a run restored from an
     * older savepoint, another job) prepared a transaction named below the restored checkpoint and died.
     * The restored writer state names the run that took the checkpoint, so it is rolled back at start,
     * before any record of the replay needs its locks.
     */
    @Test
    void aTransactionOfAnotherRunOnTheSameSubtaskIsAnOrphanAtStart() {
        TransactionId held = tx(0, 9, OLD_JOB, "aaaa");
        TransactionId sameJobOtherRun = tx(0, 7, OLD_JOB, "bbbb");
        TransactionId otherJob = tx(0, 8, OTHER_JOB, "cccc");
        RecoveryPlan plan = decide(
                List.of(held, sameJobOtherRun, otherJob),
                0,
                1,
                OptionalLong.of(9),
                List.of(state(0, 9, run(OLD_JOB, "aaaa"), 1)));
        assertThat(plan.with(Verdict.ORPHAN)).containsExactly(sameJobOtherRun, otherJob);
        assertThat(plan.rollBackAtStart()).containsExactly(sameJobOtherRun, otherJob);
        assertThat(plan.with(Verdict.RESTORED_COMMITTER)).containsExactly(held);
        assertThat(plan.reason(otherJob)).get().asString().contains("names run " + run(OLD_JOB, "aaaa"));
        // What the state proves held is its committer's, whatever the first checkpoint finds.
        assertThat(plan.orphansStillPrepared(List.of(held))).isEmpty();
    }

    /**
     * After a rescale the state of an old subtask index may go to another subtask than its owner: the
     * owner proves what it can from the state it got (the parallelism and the execution of the restored
     * checkpoint) and leaves the rest to the restored committers (waited for at start), then to the first
     * checkpoint.
     */
    @Test
    void afterARescaleWhatTheRestoredStateCannotTellWaitsForTheFirstCheckpoint() {
        // 4 -> 3 restored from checkpoint 10 taken by OLD_JOB; subtask 0 owns old indices 0 and 3 but got
        // the state of old indices 0 and 1.
        List<WriterState> states =
                List.of(state(0, 10, run(OLD_JOB, "aaa0"), 4), state(1, 10, run(OLD_JOB, "aaa1"), 4));
        TransactionId held0 = tx(0, 10, OLD_JOB, "aaa0");
        TransactionId maybeHeld3 = tx(3, 10, OLD_JOB, "aaa3");
        TransactionId otherJob3 = tx(3, 6, OTHER_JOB, "bbbb");
        TransactionId beyondParallelism = tx(6, 8, OLD_JOB, "cccc"); // owned by 0 (6 mod 3), did not exist at 10
        TransactionId notOwned = tx(1, 10, OLD_JOB, "aaa1");
        RecoveryPlan plan = decide(
                List.of(held0, maybeHeld3, otherJob3, beyondParallelism, notOwned), 0, 3, OptionalLong.of(10), states);
        // notOwned is subtask 1's to commit or roll back, but only this subtask got the state that proves it
        // promised: it judges it too, and refuses if no restored committer commits it.
        assertThat(plan.with(Verdict.RESTORED_COMMITTER)).containsExactly(held0, notOwned);
        assertThat(plan.with(Verdict.UNLESS_COMMITTED)).containsExactly(maybeHeld3);
        assertThat(plan.with(Verdict.ORPHAN)).containsExactly(otherJob3, beyondParallelism);
        assertThat(plan.reason(beyondParallelism)).get().asString().contains("parallelism 4");
        assertThat(plan.reason(otherJob3)).get().asString().contains("another execution");
        assertThat(plan.rollBackAtStart()).doesNotContain(notOwned);
        assertThat(plan.orphansStillPrepared(List.of(notOwned))).isEmpty();
        // What the state of an index this subtask does not own proves nothing about is not its to judge.
        TransactionId otherRunNotOwned = tx(1, 9, OLD_JOB, "zzzz");
        assertThat(decide(List.of(otherRunNotOwned), 0, 3, OptionalLong.of(10), states)
                        .verdictOf(otherRunNotOwned))
                .isNull();
        // Subtask 3's committer committed maybeHeld3 before the first checkpoint: nothing to do then.
        assertThat(plan.orphansStillPrepared(List.of(held0))).isEmpty();
        assertThat(plan.orphansStillPrepared(List.of(maybeHeld3))).containsExactly(maybeHeld3);
    }

    /** Hard case 6 and the leftover policy: a fresh start tells its own earlier attempts from other jobs. */
    @Test
    void aFreshStartRollsBackItsOwnAttemptsAndLeavesOtherJobsToThePolicy() {
        TransactionId ownAttempt = tx(0, 1, NEW_JOB, "aaaa");
        TransactionId otherJob = tx(0, 7, OLD_JOB, "bbbb");
        TransactionId notOwned = tx(1, 9, OLD_JOB, "bbbb");
        RecoveryPlan plan = decide(List.of(ownAttempt, otherJob, notOwned), 0, 2, OptionalLong.empty(), List.of());
        assertThat(plan.freshStart()).isTrue();
        assertThat(plan.rollBackAtStart()).containsExactly(ownAttempt);
        assertThat(plan.with(Verdict.OWN_ATTEMPT)).containsExactly(ownAttempt);
        assertThat(plan.with(Verdict.LEFTOVER)).containsExactly(otherJob);
    }

    /**
     * A fixed job id: every submission of the job graph runs under the same job id (Flink's application mode
     * with high availability), so the job id cannot tell this execution's own earlier attempt from the previous
     * deployment. The execution tag can: another submission's transaction is a leftover, never "our own".
     */
    @Test
    void underAFixedJobIdOnlyThisExecutionsTransactionsAreItsOwn() {
        String previous = TransactionId.executionTag(NEW_JOB, "previous deployment");
        String current = TransactionId.executionTag(NEW_JOB, "this deployment");
        TransactionId savepoints = new TransactionId("s", 0, 7, TransactionId.newRunToken(previous));
        TransactionId ownAttempt = new TransactionId("s", 0, 1, TransactionId.newRunToken(current));
        RecoveryPlan plan = RecoveryPlan.decide(
                List.of(savepoints, ownAttempt),
                new SubtaskContext("s", 0, 1, 3, new JobRun(NEW_JOB, current, OptionalLong.empty())),
                List.of());
        assertThat(plan.with(Verdict.OWN_ATTEMPT)).containsExactly(ownAttempt);
        assertThat(plan.with(Verdict.LEFTOVER)).containsExactly(savepoints);
    }

    /**
     * A restore that gives the sink no state (a changed sink uid with --allowNonRestoredState, while a
     * stateful operator chained to the sink restores its own): the savepoint's transactions may be the
     * only copy of records the restored sources will not replay. The sink never rolls them back on its
     * own judgement: what no committer commits is left to the leftover policy.
     */
    @Test
    void aRestoreWithoutTheSinksStateLeavesOtherJobsTransactionsToThePolicy() {
        TransactionId savepoints = tx(0, 12, OLD_JOB, "aaaa");
        TransactionId after = tx(0, 13, OLD_JOB, "aaaa");
        TransactionId own = tx(0, 12, NEW_JOB, "bbbb");
        RecoveryPlan plan = decide(List.of(savepoints, after, own), 0, 1, OptionalLong.of(12), List.of());
        assertThat(plan.restoredCheckpoint().sinkStateRestored()).isFalse();
        assertThat(plan.with(Verdict.AFTER_RESTORED)).containsExactly(after);
        assertThat(plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED)).containsExactly(savepoints);
        assertThat(plan.with(Verdict.UNLESS_COMMITTED)).containsExactly(own);
        assertThat(plan.orphansStillPrepared(List.of(savepoints, own))).containsExactly(own);
    }

    /** State of another sink id is no state of this sink. */
    @Test
    void stateOfAnotherSinkIdIsNoStateOfThisSink() {
        TransactionId found = tx(0, 5, OLD_JOB, "aaaa");
        WriterState other = new WriterState("other", 0, 5, new Lineage(run(OLD_JOB, "aaaa"), 1, 1L));
        RecoveryPlan plan = decide(List.of(found), 0, 1, OptionalLong.of(5), List.of(other));
        assertThat(plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED)).containsExactly(found);
    }

    /** State written before lineage was kept proves nothing: decided as that release did, at the first checkpoint. */
    @Test
    void stateWithoutLineageLeavesEverythingAtOrBeforeTheRestoredCheckpointToTheFirstCheckpoint() {
        TransactionId a = tx(0, 5, OLD_JOB, "aaaa");
        TransactionId b = tx(0, 3, OTHER_JOB, "bbbb");
        RecoveryPlan plan = decide(
                List.of(a, b, tx(0, 6)), 0, 1, OptionalLong.of(5), List.of(WriterState.withoutLineage("s", 0, 5)));
        assertThat(plan.with(Verdict.UNLESS_COMMITTED)).containsExactly(b, a);
        assertThat(plan.rollBackAtStart()).containsExactly(tx(0, 6));
    }

    @Test
    void otherSinksAreNeverTouched() {
        TransactionId other = new TransactionId("s2", 0, 9, run(OLD_JOB, "abcd"));
        RecoveryPlan fresh = decide(List.of(other), 0, 1, OptionalLong.empty(), List.of());
        RecoveryPlan restored = decide(List.of(other), 0, 1, OptionalLong.of(1), List.of());
        assertThat(fresh.verdictOf(other)).isNull();
        assertThat(restored.verdictOf(other)).isNull();
        assertThat(fresh.rollBackAtStart()).isEmpty();
    }

    /** After any rescale, every old subtask index has exactly one owner among the new subtasks. */
    @Test
    void everyOldSubtaskHasExactlyOneOwnerAfterRescale() {
        int[][] rescales = {{1, 2}, {2, 1}, {4, 3}, {3, 4}, {6, 5}, {8, 1}, {1, 8}};
        for (int[] r : rescales) {
            int oldParallelism = r[0];
            int newParallelism = r[1];
            List<TransactionId> found = new ArrayList<>();
            for (int s = 0; s < oldParallelism; s++) {
                found.add(tx(s, 10));
            }
            Set<TransactionId> rolledBack = new HashSet<>();
            int total = 0;
            for (int sub = 0; sub < newParallelism; sub++) {
                RecoveryPlan plan = decide(found, sub, newParallelism, OptionalLong.of(9), List.of());
                rolledBack.addAll(plan.rollBackAtStart());
                total += plan.rollBackAtStart().size();
                for (TransactionId id : plan.rollBackAtStart()) {
                    if (id.subtask() != sub) {
                        assertThat(RecoveryPlan.adoptedSubtasks(plan.rollBackAtStart(), sub))
                                .contains(id.subtask());
                    }
                }
            }
            assertThat(total)
                    .as("rescale %d->%d: no transaction rolled back twice", oldParallelism, newParallelism)
                    .isEqualTo(oldParallelism);
            assertThat(rolledBack)
                    .as("rescale %d->%d", oldParallelism, newParallelism)
                    .containsExactlyInAnyOrderElementsOf(found);
        }
    }

    @Test
    void upscaleThatFailedBeforeItsFirstCheckpointIsCleanedAtTheOldParallelism() {
        // 2 -> 4 wrote transactions for checkpoint 11 on subtasks 0..3 and died; back at 2 from 10.
        List<TransactionId> found = List.of(tx(0, 11), tx(1, 11), tx(2, 11), tx(3, 11));
        RecoveryPlan p0 = decide(found, 0, 2, OptionalLong.of(10), List.of(state(0, 10, run(OLD_JOB, "aaaa"), 2)));
        RecoveryPlan p1 = decide(found, 1, 2, OptionalLong.of(10), List.of(state(1, 10, run(OLD_JOB, "aaaa"), 2)));
        assertThat(p0.rollBackAtStart()).containsExactly(tx(0, 11), tx(2, 11));
        assertThat(RecoveryPlan.adoptedSubtasks(p0.rollBackAtStart(), 0)).containsExactly(2);
        assertThat(p1.rollBackAtStart()).containsExactly(tx(1, 11), tx(3, 11));
    }
}
