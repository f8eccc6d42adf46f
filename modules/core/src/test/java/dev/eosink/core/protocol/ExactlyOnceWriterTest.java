package dev.eosink.core.protocol;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The writer's recovery decisions over time, against a fake session (the real database is in the ITs). */
class ExactlyOnceWriterTest {

    private static TransactionId tx(int subtask, long checkpoint, String run) {
        return new TransactionId("orders", subtask, checkpoint, run);
    }

    /**
     * Restored from checkpoint 4 at parallelism 1: the restored state holds 0/4/aaaa (the restored
     * committer commits it); 0/3/bbbb and 1/2/bbbb were prepared by another run (restored from an older
     * savepoint) that died. All three are named at or before 4, so at start none may be touched; once
     * a checkpoint of the new run begins, the two still prepared are orphans and are rolled back.
     */
    @Test
    void orphansNamedAtOrBeforeTheRestoredCheckpointAreRolledBackAtTheFirstCheckpoint() throws Exception {
        TransactionId held = tx(0, 4, "aaaaaaaa");
        TransactionId orphan = tx(0, 3, "bbbbbbbb");
        TransactionId adoptedOrphan = tx(1, 2, "bbbbbbbb");
        TransactionId newer = tx(0, 5, "bbbbbbbb");
        FakeSession session = new FakeSession(held, orphan, adoptedOrphan, newer);

        ExactlyOnceWriter<String> writer = writer(session, OptionalLong.of(4));
        assertThat(session.rolledBack).as("at start").containsExactly(newer);

        session.prepared.remove(held); // the restored committer commits what its state holds
        writer.write("x", null);
        writer.prepareCommit(); // also runs at the end of input, before every task may have restored
        assertThat(session.rolledBack).as("at prepareCommit").containsExactly(newer);

        writer.snapshotState(5);
        assertThat(session.rolledBack).as("orphans, oldest first").containsExactly(newer, adoptedOrphan, orphan);
        assertThat(session.claimed).as("guards taken").containsExactly(0, 1);
        assertThat(session.released).as("adopted guards released").containsExactly(1);
        assertThat(session.prepared).as("still prepared: this run's epoch of checkpoint 5").hasSize(1)
                .allMatch(id -> id.checkpointId() == 5 && id.subtask() == 0);

        session.prepared.add(tx(0, 1, "cccccccc")); // cannot happen (guards), but: looked at once only
        writer.snapshotState(6);
        assertThat(session.rolledBack).hasSize(3);
    }

    @Test
    void aFreshStartHasNoOrphanPhase() throws Exception {
        FakeSession session = new FakeSession(tx(0, 3, "bbbbbbbb"));
        ExactlyOnceWriter<String> writer = writer(session, OptionalLong.empty());
        assertThat(session.rolledBack).containsExactly(tx(0, 3, "bbbbbbbb"));
        int listed = session.listed;
        writer.snapshotState(1);
        assertThat(session.listed).as("no second look").isEqualTo(listed);
    }

    /** XA names a transaction when it starts: the name given at the epoch's first record is the one prepared. */
    @Test
    void anEpochIsNamedWhenItBeginsExactlyAsItIsPrepared() throws Exception {
        FakeSession session = new FakeSession();
        ExactlyOnceWriter<String> writer = writer(session, OptionalLong.of(7));
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
        assertThat(session.prepared).containsExactlyElementsOf(session.begun);
    }

    private static ExactlyOnceWriter<String> writer(FakeSession session, OptionalLong restored) throws Exception {
        SubtaskContext context = new SubtaskContext("orders", 0, 1, 0, "job", restored);
        return new ExactlyOnceWriter<>(context, SinkSettings.defaults("orders"), "table t", session, List.of());
    }

    private static final class FakeSession implements WriterSession<String> {
        final Set<TransactionId> prepared = new LinkedHashSet<>();
        final List<TransactionId> rolledBack = new ArrayList<>();
        final List<Integer> claimed = new ArrayList<>();
        final List<Integer> released = new ArrayList<>();
        final List<TransactionId> begun = new ArrayList<>();
        int listed;
        boolean open;

        FakeSession(TransactionId... prepared) {
            this.prepared.addAll(List.of(prepared));
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
            listed++;
            return new ArrayList<>(prepared);
        }

        @Override
        public void rollbackPrepared(TransactionId id) {
            assertThat(open).as("rollback while a transaction is open").isFalse();
            prepared.remove(id);
            rolledBack.add(id);
        }

        @Override
        public void begin(TransactionId id) {
            assertThat(open).as("begin while a transaction is open").isFalse();
            begun.add(id);
        }

        @Override
        public void write(String record, long positionInEpoch) {
            open = true;
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
        public void close() {}
    }
}
