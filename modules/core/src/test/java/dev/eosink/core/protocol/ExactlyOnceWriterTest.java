/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.WriterState.Lineage;
import dev.eosink.core.spi.CarriedLedger;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.HeldWrites;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/** The writer's recovery decisions over time, against a fake session (the real database is in the ITs). */
class ExactlyOnceWriterTest {

    /** The job that runs the writers of these tests, and another one. */
    private static final String JOB = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    private static final String OLD_JOB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    private static final String OTHER_JOB = "cccccccccccccccccccccccccccccccc";

    private static String run(String job, String instance) {
        return TransactionId.executionTag(job, "") + instance;
    }

    private static TransactionId tx(int subtask, long checkpoint, String run) {
        return new TransactionId("orders", subtask, checkpoint, run);
    }

    private static WriterState state(int subtask, long checkpoint, String run, int parallelism) {
        return new WriterState("orders", subtask, checkpoint, new Lineage(run, parallelism, 1_000L));
    }

    /**
     * Restored from checkpoint 4 at parallelism 1, taken by the old job's run "aaaa": its transaction of
     * checkpoint 4 is the restored committer's. 0/3 of run "bbbb" and 1/2 (a subtask that did not exist
     * at checkpoint 4) are of another line of history: rolled back at start, before the first record,
     * whose write might need their locks. The newer one is rolled back at start too.
     */
    @Test
    void orphansOfAnotherRunAreRolledBackAtStartAndTheRestoredCommittersAreLeftAlone() throws Exception {
        TransactionId held = tx(0, 4, run(OLD_JOB, "aaaa"));
        TransactionId orphan = tx(0, 3, run(OLD_JOB, "bbbb"));
        TransactionId adoptedOrphan = tx(1, 2, run(OLD_JOB, "bbbb"));
        TransactionId newer = tx(0, 5, run(OLD_JOB, "aaaa"));
        FakeSession session = new FakeSession(held, orphan, adoptedOrphan, newer);
        session.onList = listing -> {
            if (session.rolledBack.size() == 3) {
                session.prepared.remove(held); // the restored committer commits what its state holds
            }
        };
        RecordingMetricGroup metrics = new RecordingMetricGroup();

        ExactlyOnceWriter<String> writer =
                writer(session, OptionalLong.of(4), 0, 1, List.of(state(0, 4, run(OLD_JOB, "aaaa"), 1)), metrics);
        assertThat(session.rolledBack).as("at start, oldest first").containsExactly(adoptedOrphan, orphan, newer);
        assertThat(metrics.count("eosink.transactionsRolledBack")).isEqualTo(3);
        assertThat(metrics.count("eosink.orphansRolledBack"))
                .as("the two of another run")
                .isEqualTo(2);
        assertThat(session.claimed).as("guards taken").containsExactly(0, 1);
        assertThat(session.released).as("adopted guards released").containsExactly(1);
        assertThat(session.prepared)
                .as("the held one, committed by the restored committer meanwhile")
                .isEmpty();

        writer.write("x", null);
        writer.prepareCommit();
        writer.snapshotState(5);
        assertThat(session.rolledBack)
                .as("nothing more at the first checkpoint")
                .hasSize(3);
    }

    /** A short wait for the restored committers of other subtasks, for the cases that wait it out. */
    private static final SinkSettings SHORT_WAIT =
            SinkSettings.defaults("orders").withClaimWait(Duration.ofMillis(300));

    /**
     * What the restored state cannot tell (a rescale gave its subtask's state elsewhere) is waited for at start:
     * another subtask's restored committer commits it as it starts. What is still prepared after the wait is
     * left to the first checkpoint, and rolled back then.
     */
    @Test
    void whatOnlyAnotherSubtasksStateCouldTellIsWaitedForAtStartThenRolledBackAtTheFirstCheckpoint() throws Exception {
        TransactionId maybeHeld = tx(2, 4, run(OLD_JOB, "cccc")); // owned by 0 at parallelism 2; its state went to 1
        TransactionId committedByOtherSubtask = tx(2, 3, run(OLD_JOB, "cccc"));
        FakeSession session = new FakeSession(maybeHeld, committedByOtherSubtask);
        session.onList = listing -> {
            if (listing == 3) {
                session.prepared.remove(committedByOtherSubtask); // another subtask's restored committer commits it
            }
        };
        RecordingMetricGroup metrics = new RecordingMetricGroup();
        ExactlyOnceWriter<String> writer = writer(
                session, OptionalLong.of(4), 0, 2, List.of(state(0, 4, run(OLD_JOB, "aaaa"), 3)), metrics, SHORT_WAIT);
        assertThat(session.rolledBack).as("at start").isEmpty();
        assertThat(session.listed).as("waited, looking again").isGreaterThan(3);

        writer.write("x", null);
        writer.prepareCommit(); // also runs at the end of input, before every task may have restored
        assertThat(session.rolledBack).as("at prepareCommit").isEmpty();
        writer.snapshotState(5);
        assertThat(session.rolledBack).containsExactly(maybeHeld);
        assertThat(metrics.count("eosink.transactionsRolledBack")).isEqualTo(1);
        assertThat(metrics.count("eosink.orphansRolledBack")).isEqualTo(1);

        session.prepared.add(tx(0, 1, run(OLD_JOB, "dddd"))); // cannot happen (guards), but: looked at once only
        writer.snapshotState(6);
        assertThat(session.rolledBack).hasSize(1);
    }

    /** When the restored committers commit everything within the wait, nothing is left for the first checkpoint. */
    @Test
    void whatTheRestoredCommittersCommitWithinTheWaitEndsTheWaitAtOnce() throws Exception {
        TransactionId held = tx(2, 4, run(OLD_JOB, "cccc"));
        FakeSession session = new FakeSession(held);
        session.onList = listing -> session.prepared.remove(held);
        long start = System.nanoTime();
        ExactlyOnceWriter<String> writer = writer(
                session,
                OptionalLong.of(4),
                0,
                2,
                List.of(state(0, 4, run(OLD_JOB, "aaaa"), 3)),
                new RecordingMetricGroup(),
                SinkSettings.defaults("orders"));
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("no wait for the whole claimWait")
                .isLessThan(Duration.ofSeconds(10));
        int listed = session.listed;
        writer.snapshotState(5);
        assertThat(session.listed).as("nothing left for the first checkpoint").isEqualTo(listed);
        assertThat(session.rolledBack).isEmpty();
    }

    /**
     * A record that fails while a transaction found at start still waits for the first checkpoint (it
     * may hold the lock the record waited for): the message names it, says that the first checkpoint
     * cannot come while the writer waits, what it holds in the resource's words, and what to do.
     */
    @Test
    void anEpochFailureBeforeTheFirstCheckpointNamesWhatWaitsForIt() throws Exception {
        TransactionId maybeHeld = tx(2, 4, run(OLD_JOB, "cccc"));
        FakeSession session = new FakeSession(maybeHeld);
        ExactlyOnceWriter<String> writer = writer(
                session,
                OptionalLong.of(4),
                0,
                2,
                List.of(state(0, 4, run(OLD_JOB, "aaaa"), 3)),
                new RecordingMetricGroup(),
                SHORT_WAIT);
        session.writeFailure = new IOException("record #1: lock wait timed out");

        assertThatThrownBy(() -> writer.write("x", null))
                .isInstanceOf(SinkException.class)
                .hasMessageContaining("record #1: lock wait timed out")
                .hasMessageContaining(
                        "Prepared transaction(s) [" + maybeHeld + "] found at start are named at or before "
                                + "restored checkpoint 4 by the execution that took it, yet no restored committer committed them "
                                + "within PT0.3S; this run rolls them back at its first checkpoint, which cannot come while this "
                                + "writer waits. Until then each holds the row locks of the rows it wrote.")
                .hasMessageContaining("roll it back by hand (sql/03-prepared-transactions.sql)");
    }

    /**
     * A failover before the job's first completed checkpoint restarts without state and finds its own
     * earlier attempt's transaction: rolled back whatever the policy (with FAIL, the default, such a
     * restart used to refuse for ever). Another job's leftover is refused under FAIL, after the own
     * attempt's transaction was rolled back (it is this execution's, and never promised).
     */
    @Test
    void aFreshStartRollsBackItsOwnAttemptsAndRefusesOtherJobsLeftoversUnderFail() throws Exception {
        TransactionId ownAttempt = tx(0, 1, run(JOB, "aaaa"));
        FakeSession session = new FakeSession(ownAttempt);
        ExactlyOnceWriter<String> writer = writer(session, OptionalLong.empty(), List.of());
        assertThat(session.rolledBack).containsExactly(ownAttempt);
        int listed = session.listed;
        writer.snapshotState(1);
        assertThat(session.listed).as("no second look").isEqualTo(listed);

        TransactionId savepoints = tx(0, 7, run(OLD_JOB, "bbbb"));
        TransactionId ownEarlier = tx(0, 2, run(JOB, "cccc"));
        FakeSession withLeftover = new FakeSession(ownEarlier, savepoints);
        assertThatThrownBy(() -> writer(withLeftover, OptionalLong.empty(), List.of()))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .isInstanceOf(SinkException.class)
                .hasMessageContaining("sink 'orders' subtask 0/1")
                .hasMessageContaining(savepoints.toString())
                .hasMessageContaining("left by other job(s) or other submissions of this job")
                .hasMessageContaining("only copy of their records")
                .hasMessageContaining("nothing of this job became visible")
                .hasMessageContaining("decide by hand (sql/03-prepared-transactions.sql): commit the transactions if")
                .hasMessageContaining("leftoverPolicy(ROLLBACK)");
        assertThat(withLeftover.rolledBack)
                .as("only this execution's own, never the leftover")
                .containsExactly(ownEarlier);
        assertThat(withLeftover.prepared).containsExactly(savepoints);
        assertThat(withLeftover.closed).isTrue();

        FakeSession rolling = new FakeSession(savepoints);
        writer(
                rolling,
                OptionalLong.empty(),
                List.of(),
                SinkSettings.defaults("orders").withLeftoverPolicy(LeftoverPolicy.ROLLBACK));
        assertThat(rolling.rolledBack).containsExactly(savepoints);
    }

    /**
     * A fixed job id (Flink fixes it for an application with high availability): a fresh start under the same
     * job id but another submission of the job graph finds the previous submission's savepoint transaction. It
     * is another execution's, never taken for this one's own earlier attempt: refused under FAIL.
     */
    @Test
    void aFreshStartUnderTheSameJobIdTellsAnotherSubmissionsTransactionsFromItsOwn() throws Exception {
        String previous = TransactionId.executionTag(JOB, "first submission");
        String current = TransactionId.executionTag(JOB, "second submission");
        TransactionId savepoints = tx(0, 7, TransactionId.newRunToken(previous));
        TransactionId ownAttempt = tx(0, 1, TransactionId.newRunToken(current));
        FakeSession session = new FakeSession(savepoints, ownAttempt);
        SubtaskContext context = new SubtaskContext("orders", 0, 1, 1, new JobRun(JOB, current, OptionalLong.empty()));
        assertThatThrownBy(() -> new ExactlyOnceWriter<>(
                        new SinkSubtask(context, SinkSettings.defaults("orders"), "table t", TestWording.WORDS),
                        session,
                        List.of()))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining(savepoints.toString())
                .hasMessageContaining("execution tag " + previous);
        assertThat(session.rolledBack).containsExactly(ownAttempt);
        assertThat(session.prepared).containsExactly(savepoints);
    }

    /**
     * A restore that gives the sink no state (changed uid, --allowNonRestoredState, a stateful operator
     * chained to the sink): the savepoint's own transaction, named at the restored checkpoint, is held by
     * no committer. It is never rolled back on the sink's judgement: FAIL refuses at start, once the
     * restored committers of other subtasks had their chance, before this writer wrote anything.
     */
    @Test
    void aRestoreWithoutTheSinksStateRefusesAtStartWhatNoCommitterCommittedWithinTheWait() throws Exception {
        TransactionId savepoints = tx(0, 12, run(OLD_JOB, "aaaa"));
        FakeSession session = new FakeSession(savepoints);
        assertThatThrownBy(() -> writer(session, OptionalLong.of(12), List.of(), SHORT_WAIT))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining(savepoints.toString())
                .hasMessageContaining("without this sink's writer state");
        assertThat(session.rolledBack).isEmpty();
        assertThat(session.begun).as("nothing written").isEmpty();

        FakeSession rolling = new FakeSession(savepoints);
        ExactlyOnceWriter<String> rollingWriter =
                writer(rolling, OptionalLong.of(12), List.of(), SHORT_WAIT.withLeftoverPolicy(LeftoverPolicy.ROLLBACK));
        assertThat(rolling.rolledBack).as("at start").containsExactly(savepoints);
        rollingWriter.snapshotState(13);
        assertThat(rolling.rolledBack).hasSize(1);

        FakeSession committed = new FakeSession(savepoints);
        committed.onList = listing -> committed.prepared.remove(savepoints); // another subtask's committer had it
        writer(committed, OptionalLong.of(12), List.of(), SHORT_WAIT);
        assertThat(committed.rolledBack).isEmpty();
    }

    /**
     * What the restored writer state proves the restored checkpoint promised, yet no restored committer commits
     * within the wait: the committers' state was not restored (another operator id for the committer, its state
     * dropped by --allowNonRestoredState). Refused, naming them: left alone they would stay prepared for ever,
     * the only copy of their records. Never rolled back.
     */
    @Test
    void whatTheCheckpointPromisedAndNoCommitterCommitsIsRefused() throws Exception {
        TransactionId promised = tx(0, 4, run(OLD_JOB, "aaaa"));
        FakeSession session = new FakeSession(promised);
        assertThatThrownBy(() -> writer(
                        session,
                        OptionalLong.of(4),
                        0,
                        1,
                        List.of(state(0, 4, run(OLD_JOB, "aaaa"), 1)),
                        new RecordingMetricGroup(),
                        SHORT_WAIT))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining("restored checkpoint 4 promised [" + promised + "]")
                .hasMessageContaining("the committers' state was not restored")
                .hasMessageContaining("eosink-admin resolve");
        assertThat(session.rolledBack).isEmpty();
        assertThat(session.prepared).containsExactly(promised);
    }

    /**
     * Chaining disabled: the restored committer is a task of its own in this JVM, and its commit of what the
     * restored checkpoint promised outlasts the claim wait. The writer waits on while that committer is inside
     * its commit call. The commit returns while the writer's listing is on its way back (the listing still
     * shows the transaction prepared, read just before the COMMIT PREPARED finished), and the committer leaves
     * its commit call before the writer asks whether one is still committing. The transaction is committed:
     * the start must go on, not be refused for good as if the committers' state had been dropped.
     */
    @Test
    void aRestoredCommitterThatFinishesWhileTheWritersListingTravelsIsNoDroppedCommitterState() throws Exception {
        TransactionId promised = tx(0, 4, run(OLD_JOB, "aaaa"));
        FakeSession session = new FakeSession(promised);
        SubtaskContext committer = new SubtaskContext("orders", 0, 1, 0, new JobRun(JOB, OptionalLong.of(4)));
        boolean[] committing = {true};
        LocalCommitters.entered(committer); // the restored committer's commit call began as its task initialized
        // Listing 1 is the one under the guards; the wait for the restored committers starts just before listing 2.
        long[] waitStartedBefore = new long[1];
        session.onList = listing -> {
            if (listing == 2) {
                waitStartedBefore[0] = System.nanoTime();
            }
        };
        session.afterList = listing -> {
            if (committing[0]
                    && listing > 2
                    && System.nanoTime() - waitStartedBefore[0]
                            > SHORT_WAIT.claimWait().toNanos()) {
                // Past the claim wait, the writer waits on for the busy committer. Its COMMIT PREPARED returns
                // now, just after the server answered the writer's listing, and its commit call ends.
                session.prepared.remove(promised);
                committing[0] = false;
                LocalCommitters.left(committer);
            }
        };
        try {
            writer(
                    session,
                    OptionalLong.of(4),
                    0,
                    1,
                    List.of(state(0, 4, run(OLD_JOB, "aaaa"), 1)),
                    new RecordingMetricGroup(),
                    SHORT_WAIT);
        } finally {
            if (committing[0]) {
                LocalCommitters.left(committer); // never leave the JVM-wide count to the other tests
            }
        }
        assertThat(committing[0])
                .as("the committer finished while the writer waited")
                .isFalse();
        assertThat(session.prepared).as("committed by the restored committer").isEmpty();
        assertThat(session.rolledBack).isEmpty();
    }

    /**
     * The same after a rescale 4 -> 3: Flink gave subtask 0 the writer state of old indices 0 and 1, while the
     * transaction of old index 1 is subtask 1's (1 mod 3), which got no state proving it and would roll it back
     * at its first checkpoint. Subtask 0, whose state proves it promised, refuses the start first.
     */
    @Test
    void whatTheCheckpointPromisedIsRefusedByTheSubtaskThatGotItsStateAfterARescale() throws Exception {
        TransactionId promised = tx(1, 4, run(OLD_JOB, "aaa1"));
        FakeSession session = new FakeSession(promised);
        List<WriterState> states = List.of(state(0, 4, run(OLD_JOB, "aaa0"), 4), state(1, 4, run(OLD_JOB, "aaa1"), 4));
        assertThatThrownBy(
                        () -> writer(session, OptionalLong.of(4), 0, 3, states, new RecordingMetricGroup(), SHORT_WAIT))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining("restored checkpoint 4 promised [" + promised + "]")
                .hasMessageContaining("the committers' state was not restored");
        assertThat(session.rolledBack).isEmpty();
        assertThat(session.prepared).containsExactly(promised);

        FakeSession committed = new FakeSession(promised);
        committed.onList = listing -> committed.prepared.remove(promised); // its restored committer commits it
        writer(committed, OptionalLong.of(4), 0, 3, states, new RecordingMetricGroup(), SHORT_WAIT);
        assertThat(committed.rolledBack).isEmpty();
    }

    /**
     * A refusal rolls back, before it fails the job, what this execution prepared after the restored checkpoint
     * on every subtask index (other subtasks of this execution may have prepared at the end of their input):
     * none of it can be committed any more, and left prepared it would look like a leftover to the next start.
     * It never touches what the restored checkpoint may hold, nor other executions' transactions.
     */
    @Test
    void aRefusalRollsBackWhatThisExecutionPreparedAfterTheRestoredCheckpoint() throws Exception {
        TransactionId leftover = tx(0, 12, run(OLD_JOB, "aaaa"));
        TransactionId ownOtherSubtask = tx(1, 13, run(JOB, "bbbb"));
        TransactionId ownAtRestored = tx(1, 12, run(JOB, "cccc"));
        TransactionId othersAfter = tx(1, 14, run(OLD_JOB, "dddd"));
        FakeSession session = new FakeSession(leftover, ownOtherSubtask, ownAtRestored, othersAfter);
        SubtaskContext context = new SubtaskContext("orders", 0, 2, 0, new JobRun(JOB, OptionalLong.of(12)));
        assertThatThrownBy(() -> new ExactlyOnceWriter<>(
                        new SinkSubtask(context, SHORT_WAIT, "table t", TestWording.WORDS), session, List.of()))
                .isInstanceOf(SuppressRestartsException.class);
        assertThat(session.rolledBack).containsExactly(ownOtherSubtask);
        assertThat(session.prepared).containsExactlyInAnyOrder(leftover, ownAtRestored, othersAfter);
    }

    /**
     * Writes carried past a barrier that a start cannot see: the resource shows them (their transaction
     * committed, nothing wrote them since), and no state of the sink was restored. Refused under FAIL, naming
     * them and the tool; given up under ROLLBACK (the sources replay everything). Another subtask's are not
     * this one's to judge.
     */
    @Test
    void carriedWritesAStartWithoutTheSinksStateCannotSeeAreRefused() throws Exception {
        CarriedNotice own = new CarriedNotice(tx(2, 9, run(OLD_JOB, "aaaa")), 13);
        CarriedNotice another = new CarriedNotice(tx(1, 9, run(OLD_JOB, "bbbb")), 2);
        FakeSession session = new FakeSession();
        session.notices.addAll(List.of(own, another));
        assertThatThrownBy(() -> writer(
                        session,
                        OptionalLong.empty(),
                        0,
                        2,
                        List.of(),
                        new RecordingMetricGroup(),
                        SinkSettings.defaults("orders")))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining("13 write(s) of subtask 2 carried past the barrier of " + own.transaction())
                .hasMessageContaining("never written")
                .hasMessageContaining("eosink-admin carried")
                .hasMessageContaining("leftoverPolicy(ROLLBACK)")
                .satisfies(e -> assertThat(e.getMessage())
                        .doesNotContain(another.transaction().toString()));
        assertThat(session.closedCarried).isEmpty();

        FakeSession rolling = new FakeSession();
        rolling.notices.addAll(List.of(own, another));
        writer(
                rolling,
                OptionalLong.empty(),
                0,
                2,
                List.of(),
                new RecordingMetricGroup(),
                SinkSettings.defaults("orders").withLeftoverPolicy(LeftoverPolicy.ROLLBACK));
        assertThat(rolling.closedCarried).containsExactly(2);
    }

    /**
     * A restored writer writes what its state carried, once the transactions they follow are committed, and
     * that removes the notice of that subtask index. A state that carries nothing while the resource shows
     * carried writes of its index (a later line of history, which the restore rewinds) gives those up. A
     * notice of an index the restored checkpoint never had (it was taken at a smaller parallelism) is given up
     * by that index's owner.
     */
    @Test
    void aRestoredWriterWritesOrGivesUpTheCarriedWritesOfTheIndicesItRestored() throws Exception {
        byte[] carried = {1, 2, 3};
        TransactionId pendingOfState0 = tx(0, 9, run(OLD_JOB, "aaaa"));
        FakeSession session = new FakeSession(pendingOfState0);
        session.notices.add(new CarriedNotice(tx(0, 8, run(OLD_JOB, "aaaa")), 3));
        session.notices.add(new CarriedNotice(tx(1, 11, run(OLD_JOB, "xxxx")), 5)); // later line, rewound
        session.notices.add(new CarriedNotice(tx(4, 2, run(OTHER_JOB, "yyyy")), 1)); // index 4 > parallelism 2 at 9
        session.onList = listing -> session.prepared.remove(pendingOfState0); // its restored committer commits it
        List<WriterState> states = List.of(
                new WriterState("orders", 0, 9, new Lineage(run(OLD_JOB, "aaaa"), 2, 1_000L), carried),
                state(1, 9, run(OLD_JOB, "bbbb"), 2));
        writer(session, OptionalLong.of(9), 0, 2, states, new RecordingMetricGroup(), SHORT_WAIT);
        assertThat(session.applied).containsExactly("0:" + java.util.Arrays.toString(carried));
        assertThat(session.closedCarried).containsExactlyInAnyOrder(1, 4);
        assertThat(session.notices).isEmpty();
    }

    /**
     * Restored at parallelism 4 from checkpoint 9, which was taken at parallelism 2: a savepoint restored after a
     * later line of history ran at parallelism 4, which this restore rewinds. That line left notices of carried
     * writes on indices 2 and 3, which checkpoint 9 never had: its restored sources replay their records, and a
     * restore with the sink's state gives such notices up (guarantees.md, "Writes carried past a barrier").
     * Flink gives the two writer states to subtasks 0 and 1; the owners of indices 2 and 3 get none, so they
     * cannot tell, and the subtasks that can tell leave those notices alone as another owner's.
     */
    @Test
    void aRestoreAtAHigherParallelismGivesUpNoticesOfIndicesTheRestoredCheckpointNeverHad() throws Exception {
        FakeSession session = new FakeSession();
        CarriedNotice laterLine = new CarriedNotice(tx(2, 11, run(OTHER_JOB, "yyyy")), 4);
        CarriedNotice neverHad = new CarriedNotice(tx(3, 6, run(OTHER_JOB, "zzzz")), 1);
        session.notices.addAll(List.of(laterLine, neverHad));
        RecordingMetricGroup metrics = new RecordingMetricGroup();
        writer(session, OptionalLong.of(9), 0, 4, List.of(state(0, 9, run(OLD_JOB, "aaaa"), 2)), metrics, SHORT_WAIT);
        writer(session, OptionalLong.of(9), 1, 4, List.of(state(1, 9, run(OLD_JOB, "bbbb"), 2)), metrics, SHORT_WAIT);
        writer(session, OptionalLong.of(9), 2, 4, List.of(), metrics, SHORT_WAIT);
        writer(session, OptionalLong.of(9), 3, 4, List.of(), metrics, SHORT_WAIT);
        assertThat(session.notices)
                .as("notices of indices restored checkpoint 9 never had")
                .isEmpty();
    }

    /**
     * A rewind refused under rewindPolicy(FAIL): "the job fails without restarts; nothing of this job became
     * visible". Only subtask 0 asks the marker table. Subtask 1 of the same run, which starts on its own (here
     * before subtask 0 refuses), restores a state that carries writes: it writes them at start, committed at once,
     * over the newer rows the rewound line committed, and with them gives up the notices of that line. The table
     * then holds the rewound snapshot's values for those keys although the rewind was refused.
     */
    @Test
    void aRewindRefusedUnderRewindPolicyFailWritesNothingOnAnySubtask() throws Exception {
        byte[] carried = {1, 2, 3};
        FakeSession session = new FakeSession();
        session.committedAfter = Optional.of(new Committed(4, 39_907, 5, 8)); // the rewound line committed 5 to 8
        CarriedNotice ofTheRewoundLine = new CarriedNotice(tx(1, 7, run(OLD_JOB, "xxxx")), 2);
        session.notices.add(ofTheRewoundLine);
        SinkSettings refuseRewinds = SHORT_WAIT.withRewindPolicy(RewindPolicy.FAIL);
        List<WriterState> ofSubtask1 =
                List.of(new WriterState("orders", 1, 4, new Lineage(run(OLD_JOB, "bbbb"), 2, 1_000L), carried));
        List<WriterState> ofSubtask0 = List.of(state(0, 4, run(OLD_JOB, "aaaa"), 2));

        catchThrowable(
                () -> writer(session, OptionalLong.of(4), 1, 2, ofSubtask1, new RecordingMetricGroup(), refuseRewinds));
        assertThatThrownBy(() -> writer(
                        session, OptionalLong.of(4), 0, 2, ofSubtask0, new RecordingMetricGroup(), refuseRewinds))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining("rewindPolicy FAIL");
        assertThat(session.applied)
                .as("carried writes the refused rewind wrote")
                .isEmpty();
        assertThat(session.notices).as("notices the refused rewind gave up").containsExactly(ofTheRewoundLine);
    }

    /**
     * Checkpoints that keep failing after the sink prepared leave one transaction prepared each. Past
     * maxPreparedPerSubtask, the next epoch fails before it begins, once the database confirms they
     * are still prepared (a committer elsewhere commits without telling the writer).
     */
    @Test
    void anEpochThatWouldExceedMaxPreparedPerSubtaskFailsBeforeItBegins() throws Exception {
        FakeSession session = new FakeSession();
        ExactlyOnceWriter<String> writer = writer(
                session,
                OptionalLong.empty(),
                List.of(),
                SinkSettings.defaults("orders").withMaxPreparedPerSubtask(3));
        for (long checkpoint = 1; checkpoint <= 3; checkpoint++) {
            writer.write("r" + checkpoint, null);
            writer.prepareCommit();
            writer.snapshotState(checkpoint); // each checkpoint fails afterwards: nothing commits
        }
        assertThatThrownBy(() -> writer.write("r4", null))
                .isInstanceOf(SinkException.class)
                .hasMessageContaining("3 transactions this subtask prepared are still waiting")
                .hasMessageContaining("checkpoints [1, 2, 3]")
                .hasMessageContaining("maxPreparedPerSubtask (3)")
                .hasMessageContaining(
                        "Each prepared transaction holds the row locks of the rows it wrote, so this subtask fails over");
        assertThat(session.begun).hasSize(3);

        // A committer in another JVM committed the first two: the database no longer lists them.
        session.prepared.remove(session.begun.get(0));
        session.prepared.remove(session.begun.get(1));
        writer.write("r4", null);
        assertThat(session.begun).hasSize(4);
    }

    /** A restore from a checkpoint older than what the sink committed since is a rewind: warned, or refused. */
    @Test
    void aRewindIsRefusedUnderRewindPolicyFail() throws Exception {
        FakeSession session = new FakeSession();
        session.committedAfter = Optional.of(new Committed(4, 39_907, 5, 8));
        List<WriterState> restored = List.of(state(0, 4, run(OLD_JOB, "aaaa"), 1));
        writer(session, OptionalLong.of(4), restored); // WARN, the default: starts
        assertThat(session.askedCommittedAfter).containsExactly(4L, 1_000L);

        FakeSession refusing = new FakeSession();
        refusing.committedAfter = session.committedAfter;
        assertThatThrownBy(() -> writer(
                        refusing,
                        OptionalLong.of(4),
                        restored,
                        SinkSettings.defaults("orders").withRewindPolicy(RewindPolicy.FAIL)))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining("restored from checkpoint 4")
                .hasMessageContaining("4 transaction(s) with 39907 rows of checkpoints 5 to 8")
                .hasMessageContaining("rewindPolicy FAIL");
    }

    /** XA names a transaction when it starts: the name given at the epoch's first record is the one prepared. */
    @Test
    void anEpochIsNamedWhenItBeginsExactlyAsItIsPrepared() throws Exception {
        FakeSession session = new FakeSession();
        ExactlyOnceWriter<String> writer = writer(session, OptionalLong.of(7), List.of());
        writer.snapshotState(8); // an empty epoch: nothing begins
        assertThat(session.begun).isEmpty();
        writer.write("a", null);
        writer.write("b", null);
        writer.prepareCommit();
        writer.snapshotState(9);
        writer.write("c", null);
        writer.prepareCommit();
        assertThat(session.begun).hasSize(2);
        assertThat(session.begun.get(0).checkpointId()).isEqualTo(9);
        assertThat(session.begun.get(1).checkpointId()).isEqualTo(10);
        assertThat(session.begun.get(0).executionTag()).isEqualTo(TransactionId.executionTag(JOB, ""));
        assertThat(session.prepared).containsExactlyElementsOf(session.begun);
    }

    private static ExactlyOnceWriter<String> writer(
            FakeSession session, OptionalLong restored, List<WriterState> states) throws Exception {
        return writer(session, restored, states, SinkSettings.defaults("orders"));
    }

    private static ExactlyOnceWriter<String> writer(
            FakeSession session, OptionalLong restored, List<WriterState> states, SinkSettings settings)
            throws Exception {
        SubtaskContext context = new SubtaskContext("orders", 0, 1, 0, new JobRun(JOB, restored));
        return new ExactlyOnceWriter<>(
                new SinkSubtask(context, settings, "table t", TestWording.WORDS), session, states);
    }

    private static ExactlyOnceWriter<String> writer(
            FakeSession session, OptionalLong restored, int subtask, int parallelism, List<WriterState> states)
            throws Exception {
        SubtaskContext context = new SubtaskContext("orders", subtask, parallelism, 0, new JobRun(JOB, restored));
        return new ExactlyOnceWriter<>(
                new SinkSubtask(context, SinkSettings.defaults("orders"), "table t", TestWording.WORDS),
                session,
                states);
    }

    private static ExactlyOnceWriter<String> writer(
            FakeSession session,
            OptionalLong restored,
            int subtask,
            int parallelism,
            List<WriterState> states,
            RecordingMetricGroup metrics)
            throws Exception {
        return writer(session, restored, subtask, parallelism, states, metrics, SinkSettings.defaults("orders"));
    }

    private static ExactlyOnceWriter<String> writer(
            FakeSession session,
            OptionalLong restored,
            int subtask,
            int parallelism,
            List<WriterState> states,
            RecordingMetricGroup metrics,
            SinkSettings settings)
            throws Exception {
        SubtaskContext context = new SubtaskContext("orders", subtask, parallelism, 0, new JobRun(JOB, restored));
        return new ExactlyOnceWriter<>(
                new SinkSubtask(context, settings, "table t", TestWording.WORDS),
                session,
                states,
                new WriterTask(
                        WriterMetrics.in(
                                metrics.addGroup(WriterMetrics.GROUP), new org.apache.flink.metrics.SimpleCounter()),
                        null,
                        ExactlyOnceWriter.DEFAULT_CHECKPOINT_TIMEOUT,
                        null,
                        System::nanoTime));
    }

    private static final class FakeSession
            implements WriterSession<String>, Recovery, EpochWriter<String>, HeldWrites, CarriedLedger {
        final Set<TransactionId> prepared = new LinkedHashSet<>();
        final List<TransactionId> rolledBack = new ArrayList<>();
        final List<Integer> claimed = new ArrayList<>();
        final List<Integer> released = new ArrayList<>();
        final List<TransactionId> begun = new ArrayList<>();
        final List<Long> askedCommittedAfter = new ArrayList<>();
        final List<CarriedNotice> notices = new ArrayList<>();
        final List<Integer> closedCarried = new ArrayList<>();
        final List<String> applied = new ArrayList<>();
        Optional<Committed> committedAfter = Optional.empty();
        /** Called with the number of each listing, before it answers: another subtask's doing meanwhile. */
        java.util.function.IntConsumer onList = listing -> {};
        /** Called with the number of each listing, after its answer was taken: what happens while it travels back. */
        java.util.function.IntConsumer afterList = listing -> {};

        int listed;
        boolean open;
        boolean closed;
        /** Thrown by the next write; null: writes succeed. */
        IOException writeFailure;

        FakeSession(TransactionId... prepared) {
            this.prepared.addAll(List.of(prepared));
        }

        @Override
        public Recovery recovery() {
            return this;
        }

        @Override
        public EpochWriter<String> epoch() {
            return this;
        }

        @Override
        public Optional<CarriedWrites> carriedWrites() {
            return Optional.of(CarriedWrites.of(this, this));
        }

        @Override
        public Optional<byte[]> carried() {
            return Optional.empty();
        }

        @Override
        public boolean holdsWrites() {
            return false;
        }

        @Override
        public void claim(int subtask, long waitMillis) {
            claimed.add(subtask);
        }

        @Override
        public void release(int subtask) {
            released.add(subtask);
        }

        @Override
        public List<TransactionId> listPrepared() {
            assertThat(open).as("listing while a transaction is open").isFalse();
            listed++;
            onList.accept(listed);
            List<TransactionId> answer = new ArrayList<>(prepared);
            afterList.accept(listed);
            return answer;
        }

        @Override
        public List<CarriedNotice> openCarried() {
            return new ArrayList<>(notices);
        }

        @Override
        public void closeCarried(int subtask) {
            closedCarried.add(subtask);
            notices.removeIf(n -> n.subtask() == subtask);
        }

        @Override
        public void applyCarried(byte[] carried, int subtask, String origin) {
            applied.add(subtask + ":" + java.util.Arrays.toString(carried));
            notices.removeIf(n -> n.subtask() == subtask);
        }

        @Override
        public void rollbackPrepared(TransactionId id) {
            assertThat(open).as("rollback while a transaction is open").isFalse();
            prepared.remove(id);
            rolledBack.add(id);
        }

        @Override
        public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis, Optional<String> takenBy) {
            askedCommittedAfter.add(checkpointId);
            askedCommittedAfter.add(sinceEpochMillis);
            return committedAfter;
        }

        @Override
        public void begin(TransactionId id) {
            assertThat(open).as("begin while a transaction is open").isFalse();
            begun.add(id);
        }

        @Override
        public void write(String record, long positionInEpoch) throws IOException {
            open = true;
            if (writeFailure != null) {
                throw writeFailure;
            }
        }

        @Override
        public void flush() {}

        @Override
        public void prepare(TransactionId id, long rows) {
            prepared.add(id);
            open = false;
        }

        @Override
        public void abortOpen() {
            open = false;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
