package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.postgres.CheckpointDecliner.Observation;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failures around the two-phase commit, each injected at one precise point of the sink's lifecycle
 * (hard cases 1 to 4 of the README's test table). Every test checks, besides exact counts, that the fault
 * fired and what the protocol then did with the very transaction it hit ({@link ProtocolTrace}).
 *
 * <p>Histories in assertions read "what@attempt": {@code COMMIT:COMMITTED@1} is a COMMIT PREPARED
 * that succeeded in the committer's attempt 1 (after one restart of that subtask).
 */
class FailoverITCase extends ExactlyOnceTestBase {

    /** gid hit by the fault, per sink id: written by the fault's action, read by the test. */
    private static final Map<String, String> HIT = new ConcurrentHashMap<>();

    @BeforeEach
    void resetTrace() {
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        HIT.remove(sinkId);
    }

    @AfterEach
    void dropTrace() {
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        HIT.remove(sinkId);
    }

    /** The test's sink, traced, with faults injectable outside the trace. */
    private ExactlyOnceSink<Long> sink() {
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(sinkBuilder(sinkId, table).build()));
    }

    /** An action that remembers the transaction it hit, then fails the task. */
    private static Faults.Action rememberAndFail() {
        return a -> {
            HIT.put(a.sinkId, a.transactionId);
            throw new Faults.InjectedFault(a.sinkId + ": injected fault at " + a.point + " on " + a.transactionId
                    + " (subtask " + a.subtask + ", attempt " + a.attempt + ")");
        };
    }

    private String hit() {
        String gid = HIT.get(sinkId);
        assertThat(gid).as("transaction hit by the fault").isNotNull();
        return gid;
    }

    private long markers(String gid) {
        return db.count("SELECT count(*) FROM " + PostgresSinkBuilder.DEFAULT_MARKER_TABLE + " WHERE gid = ?", gid);
    }

    /**
     * Hard case 1: the task fails right after PREPARE TRANSACTION, before its checkpoint can complete.
     * The prepared transaction never becomes visible (its marker never appears: it was never
     * committed), and the restarted writer of that subtask rolls it back at start, because its
     * checkpoint is after the one the job restored.
     */
    @Test
    void failureAfterPrepareIsRolledBackByTheRestartedWriter() throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3, rememberAndFail());
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(sink());
        env.execute("failure after prepare");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        String gid = hit();
        int subtask = TransactionId.parse(gid).orElseThrow().subtask();
        assertThat(ProtocolTrace.prepared(sinkId, gid).rows).as("rows in the hit transaction").isPositive();
        // Never committed by anyone, rolled back by the restarted writer of its own subtask.
        assertThat(ProtocolTrace.history(sinkId, gid)).containsExactly("PREPARED@0", "ROLLED_BACK@1");
        assertThat(ProtocolTrace.of(sinkId, gid).get(1).subtask).isEqualTo(subtask);
        assertThat(markers(gid)).as("marker of %s (visible only if it committed)", gid).isZero();
        assertThat(Faults.writerAttempts(sinkId, subtask)).contains(0, 1);
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 2, declined and tolerated: checkpoint N is declined by one subtask after both writers
     * prepared their transactions of N, and the job goes on (tolerable failed checkpoints > 0). When
     * Flink notifies the abort, the transactions of N are still prepared and none of their rows or
     * markers is visible; when the next checkpoint completes, N's and then N+1's transactions are
     * committed, in order, by the same committers, without any failover.
     */
    @Test
    void declinedCheckpointIsCommittedByTheNextCompletedOne() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        ids(env, 4_000, 3_000)
                .map(new CheckpointDecliner(sinkId, table, 0, 3, CheckpointDecliner.How.ASYNC_DECLINE))
                .sinkTo(sink());
        env.execute("declined checkpoint, tolerated");

        assertAbortedCheckpointCommittedByTheNextOne();
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 2, timed out: checkpoint N expires (one subtask is stuck in its snapshot past the
     * checkpoint timeout) after both writers prepared N. As with a decline: nothing of N is visible at
     * the abort, the next completed checkpoint commits N, then N+1, with no failover.
     */
    @Test
    void expiredCheckpointIsCommittedByTheNextCompletedOne() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setCheckpointTimeout(1_000);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        ids(env, 4_000, 3_000)
                .map(new CheckpointDecliner(sinkId, table, 0, 3, CheckpointDecliner.How.BLOCK_UNTIL_ABORTED))
                .sinkTo(sink());
        env.execute("expired checkpoint, tolerated");

        assertAbortedCheckpointCommittedByTheNextOne();
        assertExactlyOnce(4_000);
    }

    /**
     * For a checkpoint N that {@link CheckpointDecliner} made fail while the job went on: both
     * subtasks prepared N; at the abort N was still prepared and invisible; the first completed
     * checkpoint after N committed it; no failover; commits in checkpoint order.
     */
    private void assertAbortedCheckpointCommittedByTheNextOne() {
        long n = CheckpointDecliner.failedCheckpoint(sinkId);
        assertThat(n).as("checkpoint failed by the map").isPositive();
        Map<Integer, List<String>> preparedAtN = CheckpointDecliner.preparedAt(sinkId, n);
        assertThat(preparedAtN).as("transactions prepared at the barrier of failed checkpoint %d", n)
                .containsKey(0)
                .allSatisfy((subtask, gids) -> assertThat(gids).hasSizeBetween(subtask == 0 ? 1 : 0, 1));
        List<String> gidsOfN = preparedAtN.values().stream().flatMap(List::stream).collect(Collectors.toList());

        // No failover: the failed checkpoint was tolerated.
        assertThat(Faults.writerAttempts(sinkId, 0)).containsExactly(0);
        assertThat(Faults.writerAttempts(sinkId, 1)).containsExactly(0);

        List<Observation> observations = CheckpointDecliner.observations(sinkId);
        List<Observation> aborted = observations.stream().filter(o -> o.when.equals("aborted")).collect(Collectors.toList());
        List<Observation> completed = observations.stream().filter(o -> o.when.equals("completed")).collect(Collectors.toList());
        assertThat(aborted).as("abort notifications of checkpoint %d, per subtask", n)
                .extracting(o -> o.subtask).containsExactlyInAnyOrder(0, 1);
        for (Observation o : aborted) {
            // The declining subtask 0 wrote in that epoch; under load the other subtask's source may
            // have started late and had nothing to prepare, which is no less a correct run.
            assertThat(o.gids).as("%s", o).hasSizeBetween(o.subtask == 0 ? 1 : 0, 1);
            if (o.gids.isEmpty()) {
                continue;
            }
            assertThat(o.stillPrepared).as("still prepared at abort: %s", o).isEqualTo(o.gids);
            assertThat(o.markersVisible).as("markers visible at abort: %s", o).isZero();
            assertThat(o.rowsVisible).as("rows of checkpoint %d visible at abort: %s", n, o).isZero();
            assertThat(o.rowsPrepared).as("%s", o).isPositive();
            assertThat(o.committedRows).as("%s", o).isLessThan(4_000);
        }
        assertThat(completed).as("first completed checkpoint after %d, per subtask", n)
                .extracting(o -> o.subtask).containsExactlyInAnyOrder(0, 1);
        for (Observation o : completed) {
            assertThat(o.notifiedCheckpointId).as("%s", o).isGreaterThan(n);
            if (o.gids.isEmpty()) {
                continue; // that subtask prepared nothing at checkpoint n (see above)
            }
            assertThat(o.stillPrepared).as("%s", o).isEmpty();
            assertThat(o.markersVisible).as("%s", o).isEqualTo(1);
            assertThat(o.rowsVisible).as("%s", o).isEqualTo(o.rowsPrepared);
        }

        // Each transaction of N: one COMMIT PREPARED that succeeded, by the committer that was
        // running all along; and every subtask committed in checkpoint order (N before N+1).
        for (String gid : gidsOfN) {
            assertThat(ProtocolTrace.history(sinkId, gid)).containsExactly("PREPARED@0", "COMMIT:COMMITTED@0");
        }
        assertCommitsInCheckpointOrder();
    }

    /**
     * Hard case 2, not tolerated: the same decline with tolerable failed checkpoints = 0 fails the job
     * over. The restarted writers roll back both transactions of the declined checkpoint (its number
     * is after the restored one), none of them is ever committed, and the replay writes them once.
     */
    @Test
    void declinedCheckpointWithoutToleranceIsRolledBackAndReplayed() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(0);
        ids(env, 4_000, 3_000)
                .map(new CheckpointDecliner(sinkId, table, 0, 3, CheckpointDecliner.How.ASYNC_DECLINE))
                .sinkTo(sink());
        env.execute("declined checkpoint, not tolerated");

        long n = CheckpointDecliner.failedCheckpoint(sinkId);
        assertThat(n).as("checkpoint declined by the map").isPositive();
        Map<Integer, List<String>> preparedAtN = CheckpointDecliner.preparedAt(sinkId, n);
        // Subtask 0 declines and wrote in that epoch; subtask 1 may have had nothing to prepare under load.
        assertThat(preparedAtN).containsKey(0).allSatisfy((subtask, gids) -> assertThat(gids).hasSizeBetween(subtask == 0 ? 1 : 0, 1));
        for (List<String> gids : preparedAtN.values()) {
            if (gids.isEmpty()) {
                continue;
            }
            String gid = gids.get(0);
            assertThat(ProtocolTrace.history(sinkId, gid)).containsExactly("PREPARED@0", "ROLLED_BACK@1");
            assertThat(markers(gid)).isZero();
        }
        // Exceeding the tolerable number fails the whole job over, not just one region.
        assertThat(Faults.writerAttempts(sinkId, 0)).contains(0, 1);
        assertThat(Faults.writerAttempts(sinkId, 1)).contains(0, 1);
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 2, as Flink really treats a failing {@code snapshotState}: an exception in the
     * synchronous part of a snapshot fails the task even with tolerable failed checkpoints > 0
     * (only asynchronous failures and expiry are "tolerable"). The failing subtask restarts alone
     * (regional failover) and rolls back its transaction of the failed checkpoint; the other subtask
     * keeps running and commits its transaction of that checkpoint with the next completed one.
     */
    @Test
    void snapshotStateFailureFailsTheTaskOverEvenWhenTolerated() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        ids(env, 4_000, 3_000)
                .map(new CheckpointDecliner(sinkId, table, 0, 3, CheckpointDecliner.How.SYNC_THROW))
                .sinkTo(sink());
        env.execute("snapshotState throws");

        long n = CheckpointDecliner.failedCheckpoint(sinkId);
        assertThat(n).isPositive();
        Map<Integer, List<String>> preparedAtN = CheckpointDecliner.preparedAt(sinkId, n);
        assertThat(preparedAtN).containsKey(0).allSatisfy((subtask, gids) -> assertThat(gids).hasSizeBetween(subtask == 0 ? 1 : 0, 1));
        assertThat(Faults.writerAttempts(sinkId, 0)).containsExactly(0, 1);
        assertThat(Faults.writerAttempts(sinkId, 1)).containsExactly(0);
        assertThat(ProtocolTrace.history(sinkId, preparedAtN.get(0).get(0))).containsExactly("PREPARED@0", "ROLLED_BACK@1");
        assertThat(ProtocolTrace.history(sinkId, preparedAtN.get(1).get(0))).containsExactly("PREPARED@0", "COMMIT:COMMITTED@0");
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 3: checkpoint N completed, and the committer fails before it sends COMMIT PREPARED.
     * The restarted subtask's committer finds the transaction in the restored state and commits it
     * (a real COMMIT, not "already committed"); its writer leaves it alone.
     */
    @Test
    void crashBeforeCommitIsCommittedByTheRestoredCommitter() throws Exception {
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 3, rememberAndFail());
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(sink());
        env.execute("crash before commit");

        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        String gid = hit();
        assertThat(ProtocolTrace.history(sinkId, gid)).containsExactly("PREPARED@0", "COMMIT:COMMITTED@1");
        assertThat(markers(gid)).isEqualTo(1);
        assertThat(Faults.writerAttempts(sinkId, TransactionId.parse(gid).orElseThrow().subtask())).containsExactly(0, 1);
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 4, committed: COMMIT PREPARED succeeded, then the task failed before Flink heard of
     * it. The restored committer finds the gid gone, proves from its marker that it committed and
     * signals "already committed"; the job goes on without another failure.
     */
    @Test
    void commitDoneBeforeTheCrashIsProvedByItsMarker() throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_COMMIT, 3, rememberAndFail());
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(sink());
        env.execute("crash after commit");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_COMMIT)).isEqualTo(1);
        String gid = hit();
        assertThat(ProtocolTrace.history(sinkId, gid))
                .containsExactly("PREPARED@0", "COMMIT:COMMITTED@0", "COMMIT:NOT_FOUND@1", "MARKER:true@1");
        // Exactly the one injected restart: proving the commit did not fail the restored task.
        assertThat(Faults.writerAttempts(sinkId, TransactionId.parse(gid).orElseThrow().subtask())).containsExactly(0, 1);
        assertCommitsInCheckpointOrder();
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 4, lost: someone else rolls back a prepared transaction whose checkpoint completed,
     * just before the committer commits it. The committer must not assume success: the job fails,
     * naming the gid, the checkpoint, the subtask and that the rows are LOST; each restored attempt
     * looks again (not found, no marker) and fails the same way.
     *
     * <p>Parallelism 1, and the lost transaction is the job's last one (the epoch holding the last
     * id): then, when the job gives up, no other transaction is in flight, so "nothing prepared left"
     * and "exactly the lost transaction's rows are missing" are exact statements. At parallelism 2
     * the surviving subtask's in-flight transactions would be left prepared by the failed job (as they
     * must: only a restore may decide about them), and which of its epochs committed before the job
     * gave up would be a race.
     */
    @Test
    void transactionRolledBackBySomeoneElseFailsTheJobLoudly() throws Exception {
        long n = 3_000;
        int restarts = 2;
        Faults.armWhen(sinkId, Faults.Point.BEFORE_COMMIT,
                a -> {
                    ProtocolTrace.Event epoch = ProtocolTrace.prepared(a.sinkId, a.transactionId);
                    return epoch != null && epoch.maxId == n - 1;
                },
                a -> {
                    HIT.put(a.sinkId, a.transactionId);
                    db.execute("ROLLBACK PREPARED '" + a.transactionId + "'"); // what an operator might do
                });
        StreamExecutionEnvironment env = env(1, 200, fewRestarts(restarts));
        ids(env, n, 3_000).sinkTo(sink());

        Throwable failure = catchThrowableOf(() -> env.execute("lost transaction"));
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        String gid = hit();
        TransactionId id = TransactionId.parse(gid).orElseThrow();
        String lost = messageContaining(failure, "LOST");
        assertThat(lost)
                .contains(gid)
                .contains("checkpoint " + id.checkpointId())
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("written by subtask 0")
                .contains("LOST");

        // Never assumed committed: every attempt (the first and each restart) found it gone and unmarked.
        List<String> expected = new ArrayList<>(List.of("PREPARED@0"));
        for (int attempt = 0; attempt <= restarts; attempt++) {
            expected.add("COMMIT:NOT_FOUND@" + attempt);
            expected.add("MARKER:false@" + attempt);
        }
        assertThat(ProtocolTrace.history(sinkId, gid)).containsExactlyElementsOf(expected);
        assertThat(markers(gid)).isZero();

        // Exactly the lost transaction's rows are missing. At parallelism 1 the single reader emits
        // ids in order, so the lost epoch is the contiguous range minId..n-1 with `rows` ids, which
        // the trace recorded when the writer prepared it.
        ProtocolTrace.Event epoch = ProtocolTrace.prepared(sinkId, gid);
        assertThat(epoch.maxId).isEqualTo(n - 1);
        assertThat(epoch.maxId - epoch.minId + 1).as("lost epoch is contiguous").isEqualTo(epoch.rows);
        assertThat(preparedLeft()).as("prepared transactions left").isEmpty();
        assertThat(rows()).as("duplicates").isEqualTo(distinctRows());
        assertThat(rows()).isEqualTo(n - epoch.rows);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE id BETWEEN ? AND ?", epoch.minId, epoch.maxId)).isZero();
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ?", epoch.minId))
                .as("every id before the lost epoch").isEqualTo(epoch.minId);
    }

    /** Per subtask, COMMIT PREPARED was sent in ascending checkpoint order (hard case 2: N before N+1). */
    private void assertCommitsInCheckpointOrder() {
        for (int subtask : Set.of(0, 1)) {
            List<Long> order = ProtocolTrace.events(sinkId, ProtocolTrace.Kind.COMMIT).stream()
                    .filter(e -> e.subtask == subtask && e.outcome.equals("COMMITTED"))
                    .map(ProtocolTrace.Event::checkpointOfGid)
                    .collect(Collectors.toList());
            assertThat(order).as("checkpoints of the transactions subtask %d committed, in commit order", subtask)
                    .isSorted()
                    .doesNotHaveDuplicates();
        }
    }

    static Configuration fewRestarts(int attempts) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        return conf;
    }

    private static Throwable catchThrowableOf(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        Throwable[] caught = new Throwable[1];
        assertThatThrownBy(call).satisfies(t -> caught[0] = t);
        return caught[0];
    }

    /** The message of the first throwable in the cause chain that contains {@code text}. */
    static String messageContaining(Throwable failure, String text) {
        List<String> seen = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains(text)) {
                return message;
            }
            seen.add(t.getClass().getName() + ": " + message);
        }
        throw new AssertionError("no cause of the failure mentions '" + text + "'; causes: " + seen);
    }
}
