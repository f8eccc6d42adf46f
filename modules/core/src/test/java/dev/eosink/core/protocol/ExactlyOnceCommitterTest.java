/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.TransactionLostException;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;

import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The committer's three-way decision, against a scripted session (the real database is in the ITs). */
class ExactlyOnceCommitterTest {

    private static final TransactionId ID = new TransactionId("orders", 1, 42, "abcd1234");

    private final SubtaskContext context =
            new SubtaskContext("orders", 1, 2, 0, new JobRun("job", OptionalLong.of(41)));

    @Test
    void commitsAPreparedTransaction() throws Exception {
        ScriptedSession session = new ScriptedSession(Set.of());
        session.script.add(CommitSession.Attempt.COMMITTED);
        FakeRequest request = new FakeRequest(ID);
        committer(session, 3).commit(List.of(request));
        assertThat(request.outcome).isEqualTo("committed");
    }

    @Test
    void aVanishedTransactionWithItsMarkerWasAlreadyCommitted() throws Exception {
        ScriptedSession session = new ScriptedSession(Set.of(ID));
        session.script.add(CommitSession.Attempt.NOT_FOUND);
        FakeRequest request = new FakeRequest(ID);
        committer(session, 3).commit(List.of(request));
        assertThat(request.outcome).isEqualTo("alreadyCommitted");
    }

    @Test
    void aVanishedTransactionWithoutMarkerIsLostAndFailsLoudly() {
        ScriptedSession session = new ScriptedSession(Set.of());
        session.script.add(CommitSession.Attempt.NOT_FOUND);
        FakeRequest request = new FakeRequest(ID);
        assertThatThrownBy(() -> committer(session, 3).commit(List.of(request)))
                .hasCauseInstanceOf(TransactionLostException.class)
                .cause()
                .hasMessageContaining(ID.toString())
                .hasMessageContaining("checkpoint 42")
                .hasMessageContaining("subtask 1")
                .hasMessageContaining("is gone and its marker row is absent")
                .hasMessageContaining("LOST");
        assertThat(request.outcome).isEqualTo("failedUnknown");
    }

    /**
     * Gone and unmarked is all the committer knows: the transaction was rolled back (its rows are lost),
     * or it committed and only its marker was deleted since (by hand, or pruned after markerRetention
     * before an old snapshot was restored), and its rows are in the table, where replaying the input would
     * write them twice. The message says both, how to tell which, and the remedy of each.
     */
    @Test
    void aLostTransactionsMessageSaysWhatIsKnownHowToTellAndTheRemedyOfEachCase() {
        ScriptedSession session = new ScriptedSession(Set.of());
        session.script.add(CommitSession.Attempt.NOT_FOUND);
        FakeRequest request = new FakeRequest(ID);
        assertThatThrownBy(() -> committer(session, 3).commit(List.of(request)))
                .cause()
                .hasMessageContaining(
                        "prepared transaction " + ID + " of checkpoint 42 (written by subtask 1, 10 rows)")
                .hasMessageContaining("Either it was rolled back by someone other than this job")
                .hasMessageContaining("and its rows are LOST")
                .hasMessageContaining("or it committed and only its marker row was deleted since")
                .hasMessageContaining("pruned after markerRetention")
                .hasMessageContaining("and its rows are in table \"orders\"")
                .hasMessageContaining("To tell which: " + TestWording.WORDS.findRows())
                .hasMessageContaining(
                        "If its rows are missing: replay the lost input (restore from a checkpoint before 42)")
                .hasMessageContaining("If they are there, nothing is lost and replaying would write them twice: "
                        + TestWording.WORDS.restoreProof())
                .satisfies(e -> assertThat(e.getMessage())
                        .doesNotContain(
                                "rolled back by someone other than this job, " + "and its rows are LOST, although"));
    }

    @Test
    void unknownOutcomeIsRetriedThenResolvedByTheMarker() throws Exception {
        // The connection broke during COMMIT PREPARED, which had in fact committed.
        ScriptedSession session = new ScriptedSession(Set.of(ID));
        session.script.add(new RetriableCommitException("connection reset", null));
        session.script.add(CommitSession.Attempt.NOT_FOUND);
        FakeRequest request = new FakeRequest(ID);
        committer(session, 3).commit(List.of(request));
        assertThat(request.outcome).isEqualTo("alreadyCommitted");
        assertThat(session.commits).isEqualTo(2);
    }

    @Test
    void unknownOutcomeRetriesAreBoundedThenTheTaskFails() {
        ScriptedSession session = new ScriptedSession(Set.of());
        for (int i = 0; i < 3; i++) {
            session.script.add(new RetriableCommitException("55000 being finished", null));
        }
        FakeRequest request = new FakeRequest(ID);
        assertThatThrownBy(() -> committer(session, 2).commit(List.of(request)))
                .isInstanceOf(SinkException.class)
                .hasMessageContaining(ID.toString())
                .hasMessageContaining("after 3 attempts");
        assertThat(session.commits).isEqualTo(3);
    }

    /**
     * A LOST transaction fails the task, but only once every other transaction of the same commit call
     * (a declined checkpoint's and the next one's, or a restore's) is committed: Flink's loop over the
     * requests would stop at the first failure and leave the others prepared, holding their locks, on
     * every restore.
     */
    @Test
    void aLostTransactionDoesNotKeepTheOthersOfTheSameCallFromCommitting() {
        TransactionId lostA = new TransactionId("orders", 1, 40, "abcd1234");
        TransactionId b = new TransactionId("orders", 1, 41, "abcd1234");
        TransactionId lostC = new TransactionId("orders", 1, 42, "abcd1234");
        TransactionId d = new TransactionId("orders", 1, 43, "abcd1234");
        PerTransactionSession session = new PerTransactionSession();
        session.prepared.add(b);
        session.prepared.add(d);
        List<FakeRequest> requests =
                List.of(new FakeRequest(lostA), new FakeRequest(b), new FakeRequest(lostC), new FakeRequest(d));

        assertThatThrownBy(() -> committer(session, 3).commit(List.copyOf(requests)))
                .hasCauseInstanceOf(TransactionLostException.class)
                .cause()
                .hasMessageContaining("2 prepared transactions of one commit are LOST")
                .hasMessageContaining(lostA.toString())
                .hasMessageContaining(lostC.toString());
        assertThat(session.committed).containsExactly(b, d);
        assertThat(requests)
                .extracting(r -> r.outcome)
                .containsExactly("failedUnknown", "committed", "committed", "committed");
    }

    /**
     * Marker pruning waits for a checkpoint of this run: the commits at restore are of transactions
     * whose markers are dated by their epoch's start, which after a long downtime is older than the
     * retention; pruned at once, a failure before the next checkpoint would restore the same
     * checkpoint again and find them LOST.
     */
    @Test
    void markersAreNotPrunedUntilACheckpointOfThisRunCompleted() throws Exception {
        SubtaskContext subtask0 = new SubtaskContext("orders", 0, 2, 0, new JobRun("job", OptionalLong.of(41)));
        PerTransactionSession session = new PerTransactionSession();
        TransactionId restored = new TransactionId("orders", 0, 41, "abcd1234");
        TransactionId own = new TransactionId("orders", 0, 42, "efgh5678");
        session.prepared.add(restored);
        session.prepared.add(own);
        ExactlyOnceCommitter committer = new ExactlyOnceCommitter(
                new SinkSubtask(subtask0, settings(3), "table \"orders\"", TestWording.WORDS),
                session,
                new UnregisteredMetricsGroup());

        committer.commit(List.of(new FakeRequest(restored)));
        assertThat(session.prunes).as("after the commits at restore").isZero();

        committer.commit(List.of(new FakeRequest(own)));
        assertThat(session.prunes).as("after the first checkpoint of this run").isEqualTo(1);
    }

    /**
     * The committer's metrics: rows and transactions of what this committer made visible (not what was
     * committed before), lost and retried commits, the time from Flink's commit call, and the seconds
     * since the last commit, on a fake clock.
     */
    @Test
    void metricsCountWhatThisCommitterMadeVisible() throws Exception {
        long[] clock = {5_000_000_000L};
        RecordingMetricGroup group = new RecordingMetricGroup();
        PerTransactionSession session = new PerTransactionSession() {
            @Override
            public Attempt commit(TransactionId id) {
                clock[0] += 40_000_000L; // each commit takes 40 ms
                return super.commit(id);
            }
        };
        TransactionId a = new TransactionId("orders", 1, 42, "abcd1234");
        TransactionId b = new TransactionId("orders", 1, 43, "abcd1234");
        TransactionId before = new TransactionId("orders", 1, 41, "abcd1234");
        TransactionId gone = new TransactionId("orders", 1, 44, "abcd1234");
        session.prepared.add(a);
        session.prepared.add(b);
        session.committed.add(before); // its marker proves it committed earlier
        ExactlyOnceCommitter committer = new ExactlyOnceCommitter(
                new SinkSubtask(context, settings(3), "table \"orders\"", TestWording.WORDS),
                session,
                group,
                () -> clock[0]);
        clock[0] += 7_000_000_000L;
        assertThat(group.value("eosink.secondsSinceLastCommit"))
                .as("since it started")
                .isEqualTo(7L);

        committer.commit(List.of(new FakeRequest(before), new FakeRequest(a), new FakeRequest(b)));

        assertThat(group.count("eosink.transactionsCommitted")).isEqualTo(2);
        assertThat(group.count("eosink.transactionsAlreadyCommitted")).isEqualTo(1);
        assertThat(group.count("eosink.recordsCommitted"))
                .as("10 rows each, of the two committed now")
                .isEqualTo(20);
        assertThat(group.count("eosink.checkpointToCommittedMillis")).isEqualTo(2);
        assertThat(group.histogram("eosink.checkpointToCommittedMillis")
                        .getStatistics()
                        .getMax())
                .as("the second one's commit ended 120 ms after the call")
                .isEqualTo(120);
        assertThat(group.value("eosink.secondsSinceLastCommit")).isEqualTo(0L);
        clock[0] += 3_000_000_000L;
        assertThat(group.value("eosink.secondsSinceLastCommit")).isEqualTo(3L);

        assertThatThrownBy(() -> committer.commit(List.of(new FakeRequest(gone))))
                .hasCauseInstanceOf(TransactionLostException.class);
        assertThat(group.count("eosink.transactionsLost")).isEqualTo(1);
        assertThat(group.count("eosink.commitRetries")).isZero();
        assertThat(group.names())
                .contains(
                        "eosink.transactionsCommitted",
                        "eosink.transactionsAlreadyCommitted",
                        "eosink.commitRetries",
                        "eosink.transactionsLost",
                        "eosink.recordsCommitted",
                        "eosink.checkpointToCommittedMillis",
                        "eosink.secondsSinceLastCommit");
    }

    private ExactlyOnceCommitter committer(CommitSession session, int retries) {
        return new ExactlyOnceCommitter(
                new SinkSubtask(context, settings(retries), "table \"orders\"", TestWording.WORDS),
                session,
                new UnregisteredMetricsGroup());
    }

    private static SinkSettings settings(int retries) {
        return SinkSettings.defaults("orders")
                .withCommitRetries(retries, Duration.ofMillis(1))
                .withClaimWait(Duration.ZERO)
                .withMarkerRetention(Duration.ofDays(1), Duration.ofDays(1));
    }

    /** Commits what is prepared; what is not is neither prepared nor marked (lost). */
    private static class PerTransactionSession implements CommitSession {
        final Set<TransactionId> prepared = new java.util.HashSet<>();
        final List<TransactionId> committed = new java.util.ArrayList<>();
        int prunes;

        @Override
        public Attempt commit(TransactionId id) {
            if (prepared.remove(id)) {
                committed.add(id);
                return Attempt.COMMITTED;
            }
            return Attempt.NOT_FOUND;
        }

        @Override
        public boolean isMarked(TransactionId id) {
            return committed.contains(id);
        }

        @Override
        public long pruneMarkers(Duration retention) {
            prunes++;
            return 0;
        }

        @Override
        public void close() {}
    }

    /** Returns or throws the scripted outcomes in order; markers are a fixed set. */
    private static final class ScriptedSession implements CommitSession {
        final Deque<Object> script = new ArrayDeque<>();
        final Set<TransactionId> marked;
        int commits;

        ScriptedSession(Set<TransactionId> marked) {
            this.marked = marked;
        }

        @Override
        public Attempt commit(TransactionId id) throws IOException {
            commits++;
            Object next = script.poll();
            if (next instanceof IOException) {
                throw (IOException) next;
            }
            return (Attempt) next;
        }

        @Override
        public boolean isMarked(TransactionId id) {
            return marked.contains(id);
        }

        @Override
        public long pruneMarkers(Duration retention) {
            return 0;
        }

        @Override
        public void close() {}
    }

    private static final class FakeRequest implements CommitRequest<PreparedTransaction> {
        final PreparedTransaction committable;
        String outcome = "committed";

        FakeRequest(TransactionId id) {
            this.committable = new PreparedTransaction(id, 10, System.currentTimeMillis());
        }

        @Override
        public PreparedTransaction getCommittable() {
            return committable;
        }

        @Override
        public int getNumberOfRetries() {
            return 0;
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            outcome = "failedKnown";
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            outcome = "failedUnknown";
            throw new IllegalStateException("Failed to commit " + committable, t);
        }

        @Override
        public void retryLater() {
            outcome = "retryLater";
        }

        @Override
        public void updateAndRetryLater(PreparedTransaction committable) {
            outcome = "retryLater";
        }

        @Override
        public void signalAlreadyCommitted() {
            outcome = "alreadyCommitted";
        }
    }
}
