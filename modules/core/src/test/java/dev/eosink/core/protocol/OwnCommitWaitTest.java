/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.WriterState.Lineage;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.util.function.ThrowingRunnable;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A session whose writes may need its previous transaction's locks (upserts) asks the writer's {@link
 * OwnCommits} to let the task's mailbox run until the committer committed that transaction, and only
 * then writes. Without this, the write would wait on the database for a commit that only this very
 * thread can deliver.
 */
class OwnCommitWaitTest {

    private static final Duration CHECKPOINT_TIMEOUT = Duration.ofMinutes(10);

    /** Each test its own job, so that the checkpoint outcomes one test reports do not reach another. */
    private final String JOB = UUID.randomUUID().toString().replace("-", "");

    /** The execution of {@link #JOB} that the writer's context names; outcomes are kept per execution. */
    private final String EXEC = TransactionId.executionTag(JOB, "");

    /** The writer's own committer, as the outcome operator of its subtask reports it. */
    private static final String OWN = CheckpointOutcomes.committer("upserts", 0);

    /** Whether the outcome operator of the writer's subtask runs in this JVM: then outcomes are heard. */
    private boolean hears = true;

    private final List<String> events = new ArrayList<>();
    private final Deque<ThrowingRunnable<? extends Exception>> mails = new ArrayDeque<>();

    /** The writer's clock (nanoseconds): the mailbox moves it one second on at every empty yield. */
    private long clock;

    @Test
    void nextEpochWritesOnlyAfterThePreviousTransactionCommitted() throws Exception {
        ExactlyOnceWriter<String> writer = writer(true);
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        // The completed checkpoint's commit is queued in the mailbox, as Flink delivers it.
        mails.add(() -> {
            events.add("commit " + prepared.checkpointId());
            CommitSignals.committed(prepared);
        });

        writer.write("b", null);

        assertThat(events).containsExactly("write a", "prepare 1", "commit 1", "write b");
        assertThat(CommitSignals.isCommitted(prepared))
                .as("forgotten once consumed")
                .isFalse();
    }

    @Test
    void pendingUntilTheCommitArrivesThenNeverAgain() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        assertThat(gate.pending()).as("nothing prepared yet").isFalse();
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        assertThat(gate.pending()).isTrue();

        CommitSignals.committed(prepared);

        assertThat(gate.pending()).isFalse();
        assertThat(CommitSignals.isCommitted(prepared))
                .as("forgotten once seen")
                .isFalse();
        gate.await(); // returns at once
        assertThat(mails).isEmpty();
    }

    @Test
    void onlyTheLatestPreparedTransactionIsAwaited() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId first = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(1);
        writer.write("b", null);
        TransactionId second = writer.prepareCommit().iterator().next().id();
        // A declined checkpoint: the first is committed together with the second.
        mails.add(() -> {
            CommitSignals.committed(first);
            CommitSignals.committed(second);
            events.add("commit both");
        });

        gate.await();

        assertThat(events).endsWith("prepare 2", "commit both");
        assertThat(CommitSignals.isCommitted(first))
                .as("the superseded one is not kept")
                .isFalse();
    }

    @Test
    void insertsDoNotWait() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        writer.prepareCommit();
        mails.add(() -> events.add("commit"));

        writer.write("b", null);

        assertThat(events).containsExactly("write a", "prepare 1", "write b");
        assertThat(mails).hasSize(1);
    }

    private OwnCommits gate;

    /** Runs at every yield that finds no mail: what arrives while the writer waits. */
    private Runnable onEmptyYield;

    /**
     * A checkpoint that takes long after the sink's barrier (large state elsewhere, backpressure) is
     * waited for, however long, within the checkpoint timeout: it is neither complete nor aborted, and
     * giving up would hold every statement of every epoch past its barrier, at every such checkpoint,
     * for ever.
     */
    @Test
    void aSlowCheckpointIsWaitedForAsLongAsItTakes() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        long start = clock;
        onEmptyYield = () -> {
            if (clock - start >= Duration.ofSeconds(95).toNanos()) {
                CommitSignals.committed(prepared); // the checkpoint completes after 95 s
            }
        };

        assertThat(gate.await()).as("committed, not given up").isTrue();
        assertThat(clock - start).isGreaterThanOrEqualTo(Duration.ofSeconds(95).toNanos());
        assertThat(gate.pending()).isFalse();
    }

    /** An aborted checkpoint's commit comes only with a later checkpoint, which the waiting writer holds up: stop at once. */
    @Test
    void anAbortedCheckpointEndsTheWaitAtOnce() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        writer.prepareCommit();
        writer.snapshotState(7);
        mails.add(() -> CheckpointOutcomes.aborted(EXEC, 7));
        long start = clock;

        assertThat(gate.await()).as("given up").isFalse();
        assertThat(clock - start)
                .as("no time spent waiting")
                .isLessThan(Duration.ofSeconds(2).toNanos());
        assertThat(gate.pending()).as("still not committed").isTrue();
        assertThat(gate.await()).as("not waited for again in this epoch").isFalse();
        assertThat(clock - start).isLessThan(Duration.ofSeconds(2).toNanos());
    }

    /**
     * After the aborted checkpoint, the next epoch's transaction is prepared and its checkpoint
     * completes: both transactions commit with it, and the statements held past the barrier may run.
     */
    @Test
    void afterAnAbortedCheckpointTheNextCompletedOneEndsTheHold() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId first = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        CheckpointOutcomes.aborted(EXEC, 7);
        assertThat(gate.await()).isFalse();
        writer.write("b", null);
        TransactionId second = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(8);
        mails.add(() -> {
            CheckpointOutcomes.completed(EXEC, OWN, 8);
            CommitSignals.committed(first);
            CommitSignals.committed(second);
        });

        assertThat(gate.await())
                .as("waited for checkpoint 8, which commits 7 too")
                .isTrue();
        assertThat(gate.pending()).isFalse();
    }

    /**
     * What the session holds past a barrier goes into that checkpoint's writer state, taken after the
     * epoch is prepared.
     */
    @Test
    void theSnapshotKeepsWhatTheSessionCarries() throws Exception {
        carried = new byte[] {4, 2};
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        writer.prepareCommit();

        WriterState state = writer.snapshotState(7).get(0);

        assertThat(state.carried()).containsExactly(4, 2);
    }

    /**
     * At the end of input no epoch follows to write what the session still holds (its commit comes
     * only with a later checkpoint): the task fails over rather than finish without it.
     */
    @Test
    void theEndOfInputWithHeldWritesFailsOver() throws Exception {
        carried = new byte[] {1};
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);

        assertThatThrownBy(() -> writer.flush(true))
                .hasMessageContaining("the input ended while the sink holds writes")
                .hasMessageContaining("fails over");
    }

    /**
     * A restored run runs no statement that may touch older rows before its first barrier: restored
     * committers of other subtasks, and restored writers with carried writes, may still be at work
     * until Flink can trigger the run's first checkpoint. Once this writer snapshotted it, they are
     * done.
     */
    @Test
    void aRestoredRunHoldsStatementsUntilItsFirstBarrier() throws Exception {
        restoredCheckpoint = OptionalLong.of(6);
        ExactlyOnceWriter<String> writer = writer(false);
        long start = clock;

        assertThat(gate.pending()).isTrue();
        assertThat(gate.await())
                .as("cannot be waited for: the barrier comes through this thread")
                .isFalse();
        assertThat(clock - start).isZero();
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        mails.add(() -> {
            CheckpointOutcomes.completed(EXEC, OWN, 7);
            CommitSignals.committed(prepared);
        });

        assertThat(gate.await())
                .as("after the first barrier, only the own commit counts")
                .isTrue();
    }

    /**
     * No record comes after the barrier that the session held writes past: once they may run, the
     * flush at the next barrier begins an epoch for them alone, which is prepared with 0 records;
     * while they may not, nothing begins.
     */
    @Test
    void heldWritesGetAnEpochOfTheirOwnWhenNoRecordComes() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        writer.prepareCommit();
        writer.snapshotState(7);
        CheckpointOutcomes.aborted(EXEC, 7);
        carried = new byte[] {1};

        writer.flush(false);
        assertThat(writer.prepareCommit())
                .as("checkpoint 7 not committed: nothing may run")
                .isEmpty();
        writer.snapshotState(8);
        CheckpointOutcomes.completed(EXEC, OWN, 8);
        writer.flush(false);
        java.util.Collection<PreparedTransaction> prepared = writer.prepareCommit();

        assertThat(events).containsExactly("write a", "prepare 1", "begin 9", "prepare 9");
        assertThat(prepared).singleElement().satisfies(t -> assertThat(t.rows()).isZero());
    }

    @Test
    void theEndOfInputLiftsTheRestoredRunsHold() throws Exception {
        restoredCheckpoint = OptionalLong.of(6);
        ExactlyOnceWriter<String> writer = writer(false);
        writer.flush(true);

        assertThat(gate.pending()).isFalse();
        assertThat(gate.await()).isTrue();
    }

    /**
     * The input of a restored run ends before its first barrier: the held statements may run in the last
     * epoch only once no transaction of the restored checkpoint that another subtask owns is still
     * prepared, since that subtask's restored committer may still be committing rows of the same keys.
     * Transactions named after the restored checkpoint are not waited for.
     */
    @Test
    void theEndOfInputOfARestoredRunWaitsForTheRestoredCommitsOfOtherSubtasks() throws Exception {
        restoredCheckpoint = OptionalLong.of(6);
        TransactionId promised = new TransactionId("upserts", 1, 6, "run1run1");
        TransactionId later = new TransactionId("upserts", 1, 7, "run1run1");
        prepared.add(promised);
        prepared.add(later);
        ExactlyOnceWriter<String> writer = writer(false);
        int[] listings = {0};
        onList = () -> {
            if (++listings[0] == 3) {
                prepared.remove(promised); // the restored committer of subtask 1 commits it
            }
        };

        writer.flush(true);

        assertThat(listings[0])
                .as("the end of input waited for the commit (listing 3)")
                .isGreaterThanOrEqualTo(3);
        assertThat(prepared)
                .as("named after the restored checkpoint: not waited for")
                .containsExactly(later);
        assertThat(gate.pending()).isFalse();
    }

    /**
     * After a rescale, another restored writer writes what its state carried past the barrier as its task
     * starts, and those writes may touch keys this subtask now owns: the end of input waits until they are
     * written before its held statements run, which would otherwise hold the row locks the carried writes
     * wait for, while no checkpoint can come to release them (that task is still starting).
     */
    @Test
    void theEndOfInputOfARestoredRunWaitsForTheWritesOtherRestoredWritersCarried() throws Exception {
        restoredCheckpoint = OptionalLong.of(6);
        ExactlyOnceWriter<String> writer = writer(false);
        notices.add(new CarriedNotice(new TransactionId("upserts", 1, 6, "run1run1"), 3));
        int[] reads = {0};
        onCarried = () -> {
            if (++reads[0] == 3) {
                notices.clear(); // the restored writer of subtask index 1 wrote them
            }
        };

        writer.flush(true);

        assertThat(reads[0])
                .as("the end of input waited until they were written (read 3)")
                .isGreaterThanOrEqualTo(3);
        assertThat(gate.pending()).isFalse();
    }

    /**
     * Past the claim wait, a committer of this sink in this JVM still inside its commit call (chaining
     * disabled, a slow commit) is slow, not missing: the end of input waits on for it, as the start does.
     */
    @Test
    void theEndOfInputWaitsPastTheClaimWaitWhileACommitterInThisJvmIsCommitting() throws Exception {
        restoredCheckpoint = OptionalLong.of(6);
        TransactionId promised = new TransactionId("upserts", 1, 6, "run1run1");
        prepared.add(promised);
        ExactlyOnceWriter<String> writer = writer(false);
        SubtaskContext committer = new SubtaskContext("upserts", 1, 2, 0, new JobRun(JOB, restoredCheckpoint));
        long start = clock;
        long commitEnds = start + SinkSettings.DEFAULT_CLAIM_WAIT.plusSeconds(5).toNanos();
        onList = () -> {
            if (clock - commitEnds > 0) {
                prepared.remove(promised);
            }
        };
        LocalCommitters.entered(committer);
        try {
            writer.flush(true);
        } finally {
            LocalCommitters.left(committer);
        }

        assertThat(prepared).as("waited until the committer's commit ended").isEmpty();
        assertThat(Duration.ofNanos(clock - start))
                .as("on the mailbox's clock")
                .isGreaterThan(SinkSettings.DEFAULT_CLAIM_WAIT.plusSeconds(5));
        assertThat(gate.pending()).isFalse();
    }

    /** What is still prepared after the claim wait (an orphan, a slower committer) no longer holds the statements. */
    @Test
    void theEndOfInputOfARestoredRunWaitsNoLongerThanTheClaimWait() throws Exception {
        restoredCheckpoint = OptionalLong.of(6);
        prepared.add(new TransactionId("upserts", 1, 5, "run1run1"));
        ExactlyOnceWriter<String> writer = writer(false);
        long start = clock;

        writer.flush(true);

        assertThat(Duration.ofNanos(clock - start))
                .as("on the mailbox's clock")
                .isBetween(SinkSettings.DEFAULT_CLAIM_WAIT, SinkSettings.DEFAULT_CLAIM_WAIT.plusSeconds(2));
        assertThat(gate.pending()).isFalse();
    }

    /**
     * A restored writer state that carries writes: they are written before the first record, once no
     * transaction of the writer that carried them is prepared any more (the restored committer commits
     * them as it starts, concurrently), and never before.
     */
    @Test
    void restoredCarriedWritesAreWrittenOnceTheirWritersTransactionsAreCommitted() throws Exception {
        restoredCheckpoint = OptionalLong.of(6);
        TransactionId held = new TransactionId("upserts", 0, 6, "run0run0");
        TransactionId other = new TransactionId("upserts", 1, 6, "run1run1");
        prepared.add(held);
        prepared.add(other);
        restoredStates = List.of(new WriterState("upserts", 0, 6, new Lineage("run0run0", 2, 1L), new byte[] {9}));
        int[] listings = {0};
        onList = () -> {
            if (++listings[0] == 3) {
                prepared.remove(held); // the restored committer commits it
            }
        };

        writer(false);

        assertThat(events).singleElement().asString().startsWith("apply [9] after ");
        int listingsBeforeApply =
                Integer.parseInt(events.get(0).replaceAll("\\D+", " ").trim().split(" ")[1]);
        assertThat(listingsBeforeApply)
                .as("written only once the restored committer committed (listing 3)")
                .isGreaterThanOrEqualTo(3);
        assertThat(prepared)
                .as("another writer's transaction is not waited for")
                .containsExactly(other);
    }

    /**
     * A plain savepoint's completion is never notified: its commit comes with the next checkpoint,
     * which the waiting writer holds up. Known from the savepoint's own snapshot: no wait at all.
     */
    @Test
    void aPlainSavepointEndsTheWaitAtOnce() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        writer.prepareCommit();
        CheckpointOutcomes.plainSavepoint(EXEC, 7); // the outcome operator snapshots before the writer
        writer.snapshotState(7);
        long start = clock;

        assertThat(gate.await()).isFalse();
        assertThat(clock - start).isLessThan(Duration.ofSeconds(2).toNanos());
    }

    /**
     * Chaining disabled: the outcome operator, in a task of its own, hears the completion before the
     * committer, in another task, has committed. That is no commit: a DELETE run now would miss the rows
     * the transaction inserted. The writer waits on until the committer's signal.
     */
    @Test
    void aCompletionHeardBeforeTheCommitIsNoCommit() throws Exception {
        ExactlyOnceWriter<String> writer = writer(true);
        int atStart = listed;
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        mails.add(() -> CheckpointOutcomes.completed(EXEC, OWN, 7));
        mails.add(() -> events.add("outcome operator idle"));
        mails.add(() -> {
            events.add("commit 7");
            CommitSignals.committed(prepared);
        });

        writer.write("b", null);

        assertThat(events).containsExactly("write a", "prepare 1", "outcome operator idle", "commit 7", "write b");
        assertThat(listed - atStart)
                .as("no query while the epoch's transaction is open")
                .isZero();
    }

    /**
     * A committer in another JVM signals nothing. The completion heard is a cue: a while after it, the
     * writer asks the database, every {@link OwnCommitGate#LOOK_INTERVAL}, within the epoch; once the
     * transaction is no longer prepared, it is committed, and the statement runs in this very epoch.
     */
    @Test
    void aCommitterInAnotherJvmIsSeenInTheDatabaseWithinTheEpoch() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId id = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        prepared.add(id);
        writer.write("b", null); // the next epoch is open: a busy stream
        CheckpointOutcomes.completed(EXEC, OWN, 7);
        int atStart = listed;
        onEmptyYield = () -> prepared.remove(id); // the committer in the other JVM commits meanwhile
        long start = clock;

        assertThat(gate.await()).as("the database shows the commit").isTrue();
        assertThat(clock - start)
                .as("long before the wait's bound")
                .isLessThan(OwnCommitGate.COMMIT_AFTER_COMPLETION.toNanos());
        assertThat(listed - atStart).as("looks within the epoch").isBetween(1, 2);
        assertThat(gate.pending()).isFalse();
    }

    /**
     * A busy upsert stream whose committer runs in another JVM: statements held past a barrier wait for
     * every earlier transaction of the writer, and by the time an epoch ends a newer one is always
     * prepared. So the database is asked within the epoch too ({@link OwnCommits#lookDue}), at most
     * every {@link OwnCommitGate#LOOK_INTERVAL}, and the held statements run as soon as it shows the
     * commits: not only once the input pauses.
     */
    @Test
    void heldStatementsRunWithinABusyEpochOnceTheDatabaseShowsTheCommits() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId first = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        prepared.add(first);
        writer.write("b", null);
        CheckpointOutcomes.completed(EXEC, OWN, 7);
        assertThat(gate.await())
                .as("the other JVM's committer is slow: carried")
                .isFalse();
        TransactionId second = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(8);
        prepared.add(second);
        writer.write("c", null); // the epoch after the barrier begins at once: checkpoint 8 is still running
        assertThat(gate.pending()).isTrue();
        clock += OwnCommitGate.LOOK_INTERVAL.toNanos();
        assertThat(gate.lookDue())
                .as("nothing to look for before checkpoint 8 completed")
                .isFalse();
        CheckpointOutcomes.completed(EXEC, OWN, 8);
        prepared.clear(); // the other JVM's committer commits both
        int atStart = listed;

        assertThat(gate.lookDue())
                .as("not at the completion itself: a signal may still come")
                .isFalse();
        clock += OwnCommitGate.LOOK_INTERVAL.toNanos();
        assertThat(gate.lookDue()).isTrue();
        assertThat(listed - atStart)
                .as("asking whether a look is due is no look")
                .isZero();
        assertThat(gate.await()).as("the held statements run in this epoch").isTrue();
        assertThat(listed - atStart).isEqualTo(1);
        assertThat(gate.pending()).isFalse();
        assertThat(gate.lookDue()).isFalse();
    }

    /**
     * Once the wait gave up within an epoch, the session asks again only when a look is due, and a call
     * of {@link OwnCommits#await} then looks once and never waits: at most one query per {@link
     * OwnCommitGate#LOOK_INTERVAL}, however many records arrive.
     */
    @Test
    void afterGivingUpTheDatabaseIsAskedAtMostOncePerInterval() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId id = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        prepared.add(id);
        writer.write("b", null);
        CheckpointOutcomes.completed(EXEC, OWN, 7);
        assertThat(gate.await()).isFalse();
        int atStart = listed;
        long start = clock;

        assertThat(gate.lookDue()).isFalse();
        assertThat(gate.await()).as("no look due: no at once").isFalse();
        clock += OwnCommitGate.LOOK_INTERVAL.toNanos();
        assertThat(gate.lookDue()).isTrue();
        assertThat(gate.await()).as("still prepared").isFalse();
        assertThat(gate.await()).isFalse();
        assertThat(listed - atStart).isEqualTo(1);
        assertThat(clock - start).as("no wait").isEqualTo(OwnCommitGate.LOOK_INTERVAL.toNanos());
        prepared.remove(id);
        clock += OwnCommitGate.LOOK_INTERVAL.toNanos();
        assertThat(gate.await()).isTrue();
    }

    /**
     * Between epochs, the database is asked once when the last transaction's commit is due and no signal
     * proved it: what it no longer lists is committed.
     */
    @Test
    void betweenEpochsTheDatabaseIsAskedOnceForACommitNoSignalProved() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId id = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        prepared.add(id);
        CheckpointOutcomes.completed(EXEC, OWN, 7);
        writer.flush(false);
        int atStart = listed;
        writer.write("b", null); // a new epoch: the database still lists it
        assertThat(listed - atStart).isEqualTo(1);
        assertThat(gate.pending()).isTrue();
        writer.flush(false);
        writer.prepareCommit();
        writer.snapshotState(8);
        prepared.clear(); // the committer in the other JVM commits both
        CheckpointOutcomes.completed(EXEC, OWN, 8);

        writer.write("c", null);

        assertThat(listed - atStart).isEqualTo(2);
        assertThat(gate.pending()).as("the database shows them committed").isFalse();
        assertThat(gate.await()).isTrue();
    }

    /**
     * The outcome operator of the writer's subtask runs in another JVM: an aborted checkpoint is never
     * heard, and waiting for its commit would hold up the next barrier until the checkpoint timeout. The
     * wait ends within {@link OwnCommitGate#UNHEARD_WAIT}, and the statements are carried.
     */
    @Test
    void anAbortThatCannotBeHeardEndsTheWaitWithinItsBound() throws Exception {
        hears = false;
        ExactlyOnceWriter<String> writer = writer(false);
        int atStart = listed;
        writer.write("a", null);
        TransactionId id = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        prepared.add(id);
        long start = clock;

        assertThat(gate.await()).as("carried").isFalse();
        assertThat(clock - start)
                .isBetween(
                        OwnCommitGate.UNHEARD_WAIT.toNanos(),
                        OwnCommitGate.UNHEARD_WAIT.plusSeconds(2).toNanos());
        assertThat(gate.pending()).as("still prepared").isTrue();
        assertThat(gate.await()).as("not waited for again in this epoch").isFalse();
        assertThat(listed - atStart)
                .as("the database asked meanwhile, once per second of the test's clock")
                .isBetween(1, (int) OwnCommitGate.UNHEARD_WAIT.toSeconds() + 1);
    }

    /**
     * Another subtask of the sink, or another sink of the job, in this JVM, hears the completion first:
     * that is no commit of this writer's transaction yet. Its own committer, notified in a mail still queued on this task, commits
     * it; a statement run before that mail would wait on the database for a commit that only this
     * blocked thread can deliver (seen as a lock wait to the full lock timeout under load).
     */
    @Test
    void anotherSubtasksOrSinksCompletionIsNoCommitOfThisWritersTransaction() throws Exception {
        ExactlyOnceWriter<String> writer = writer(true);
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(7);
        // subtask 1's notification came first, and another sink's of this job
        CheckpointOutcomes.completed(EXEC, CheckpointOutcomes.committer("upserts", 1), 7);
        CheckpointOutcomes.completed(EXEC, CheckpointOutcomes.committer("another-sink", 0), 7);
        mails.add(() -> {
            CheckpointOutcomes.completed(EXEC, OWN, 7);
            events.add("commit 7");
            CommitSignals.committed(prepared);
        });

        writer.write("b", null);

        assertThat(events).containsExactly("write a", "prepare 1", "commit 7", "write b");
    }

    /**
     * When this JVM hears the outcomes and none comes, the wait ends with the checkpoint timeout: the
     * checkpoint cannot complete after it.
     */
    @Test
    void theWaitEndsWithTheCheckpointTimeoutWhenNothingIsHeard() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        writer.prepareCommit();
        writer.snapshotState(7);
        long start = clock;

        assertThat(gate.await()).isFalse();
        assertThat(clock - start)
                .isBetween(
                        CHECKPOINT_TIMEOUT.toNanos(),
                        CHECKPOINT_TIMEOUT.plusSeconds(2).toNanos());
    }

    /** What the session holds and carries past every barrier; null: nothing. */
    private byte[] carried;

    private OptionalLong restoredCheckpoint = OptionalLong.empty();
    private List<WriterState> restoredStates = List.of();
    /** The sink's prepared transactions, as the session lists them. */
    private final List<TransactionId> prepared = new ArrayList<>();

    private Runnable onList = () -> {};
    private int listed;
    /** The open notices of carried writes, as the session reads them; {@link #onCarried} runs at each read. */
    private final List<CarriedNotice> notices = new ArrayList<>();

    private Runnable onCarried = () -> {};

    private ExactlyOnceWriter<String> writer(boolean waits) throws Exception {
        if (hears) {
            CheckpointOutcomes.listening(EXEC, OWN); // as the outcome operator of subtask 0 does when it opens
        }
        WriterSession<String> session = new NoOpWriterSession.Carrying() {
            @Override
            public List<TransactionId> listPrepared() {
                listed++;
                onList.run();
                return List.copyOf(prepared);
            }

            @Override
            public List<CarriedNotice> openCarried() {
                onCarried.run();
                return List.copyOf(notices);
            }

            @Override
            public java.util.Optional<byte[]> carried() {
                return java.util.Optional.ofNullable(carried);
            }

            @Override
            public boolean holdsWrites() {
                return carried != null;
            }

            @Override
            public void begin(TransactionId id) {
                if (carried != null) {
                    events.add("begin " + id.checkpointId());
                }
            }

            @Override
            public void applyCarried(byte[] bytes, int subtask, String origin) {
                events.add("apply " + java.util.Arrays.toString(bytes) + " after " + listed + " listings");
            }

            @Override
            public void ownCommits(OwnCommits ownCommits) {
                gate = ownCommits;
            }

            @Override
            public void write(String record, long positionInEpoch) throws java.io.IOException {
                if (waits) {
                    gate.await(); // as an upsert session does before a statement that may touch old rows
                }
                events.add("write " + record);
            }

            @Override
            public void prepare(TransactionId id, long rows) {
                events.add("prepare " + id.checkpointId());
            }
        };
        MailboxExecutor mailbox = new MailboxExecutor() {
            @Override
            public void execute(
                    MailboxExecutor.MailOptions options,
                    ThrowingRunnable<? extends Exception> command,
                    String format,
                    Object... args) {
                mails.add(command);
            }

            @Override
            public void yield() throws InterruptedException {
                if (!tryYield()) {
                    throw new IllegalStateException("no mail to run");
                }
            }

            @Override
            public boolean tryYield() {
                ThrowingRunnable<? extends Exception> mail = mails.poll();
                if (mail == null) {
                    clock += Duration.ofSeconds(1).toNanos();
                    if (onEmptyYield != null) {
                        onEmptyYield.run();
                    }
                    return false;
                }
                try {
                    mail.run();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
                return true;
            }

            @Override
            public boolean shouldInterrupt() {
                return false;
            }
        };
        return new ExactlyOnceWriter<>(
                new SinkSubtask(
                        new SubtaskContext(
                                "upserts",
                                0,
                                restoredCheckpoint.isPresent() ? 2 : 1,
                                0,
                                new JobRun(JOB, restoredCheckpoint)),
                        SinkSettings.defaults("upserts"),
                        "table t",
                        TestWording.WORDS),
                session,
                restoredStates,
                new WriterTask(
                        WriterMetrics.unregistered(new SimpleCounter()),
                        mailbox,
                        CHECKPOINT_TIMEOUT,
                        null,
                        () -> clock));
    }
}
