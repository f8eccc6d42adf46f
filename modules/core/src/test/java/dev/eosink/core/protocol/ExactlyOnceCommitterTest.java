package dev.eosink.core.protocol;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.TransactionLostException;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.core.spi.SubtaskContext;

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

    private final SubtaskContext context = new SubtaskContext("orders", 1, 2, 0, "job", OptionalLong.of(41));

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
                .hasMessageContaining("LOST");
        assertThat(request.outcome).isEqualTo("failedUnknown");
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

    private ExactlyOnceCommitter committer(CommitSession session, int retries) {
        SinkSettings settings =
                new SinkSettings(
                        "orders",
                        LeftoverPolicy.ROLLBACK,
                        retries,
                        Duration.ofMillis(1),
                        Duration.ZERO,
                        Duration.ofDays(1),
                        Duration.ofDays(1));
        return new ExactlyOnceCommitter(context, settings, "table \"orders\"", session, new UnregisteredMetricsGroup());
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
