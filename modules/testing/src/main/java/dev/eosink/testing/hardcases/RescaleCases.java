package dev.eosink.testing.hardcases;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.Faults;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static dev.eosink.testing.hardcases.TestJobs.awaitStatus;
import static dev.eosink.testing.hardcases.TestJobs.checkpoint;
import static dev.eosink.testing.hardcases.TestJobs.checkpointIdOf;
import static dev.eosink.testing.hardcases.TestJobs.checkpointUntilFinished;
import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.holdAfterPrepare;
import static dev.eosink.testing.hardcases.TestJobs.manualEnv;
import static dev.eosink.testing.hardcases.TestJobs.restoreFrom;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a restart of a job finds and must get right: savepoints restored at another parallelism while
 * their transactions are still prepared, and transaction names that never repeat across runs and
 * attempts. The jobs' checkpoints happen when the test triggers them.
 */
public interface RescaleCases extends HardCaseSupport {

    /** How many ids the jobs of the rescale cases write. */
    long RESCALED_IDS = 6_000;

    /**
     * What a job left when it was cancelled after a plain savepoint and a checkpoint still pending.
     *
     * @param ofSavepoint prepared at the savepoint's barrier: the restored committers must commit them
     * @param ofPendingCheckpoint prepared for the checkpoint after the savepoint, which never completed:
     *     must be rolled back
     */
    record Leftovers(String savepoint, long savepointId, List<String> ofSavepoint, List<String> ofPendingCheckpoint) {}

    /**
     * Rescale down and up (1 -> 2, 2 -> 1, 4 -> 3) from a plain savepoint whose transactions are still
     * prepared, with the transactions of a later, never completed checkpoint prepared as well. The
     * restored run's committers (Flink redistributes their state round-robin) commit the savepoint's
     * transactions of every old subtask; its writers roll back the later ones, each the ones of the old
     * subtask indices it owns (old index mod new parallelism), so none is rolled back twice or left
     * behind; the replay from the savepoint writes the rest once.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"1, 2", "2, 1", "4, 3"})
    default void rescaleFromSavepointWithPreparedTransactions(
            int from, int to, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        Leftovers leftovers = cancelAfterSavepoint(from, client, dir);

        StreamExecutionEnvironment env = env(to, 200, restoreFrom(leftovers.savepoint()));
        pipeline(env, RESCALED_IDS, 5_000);
        env.execute("restore " + from + " -> " + to);

        assertThat(markedGids())
                .as("committed: the savepoint's transactions, not the pending checkpoint's")
                .containsAll(leftovers.ofSavepoint())
                .doesNotContainAnyElementsOf(leftovers.ofPendingCheckpoint());
        assertExactlyOnce(RESCALED_IDS);
    }

    /**
     * A lost transaction among others of one commit, after a rescale down: the restored committer of
     * the single new subtask holds the savepoint's transactions of all three old subtasks, committed in
     * one call. Someone rolled the middle one back by hand: it is LOST, and the job fails naming it; but
     * only once the other two are committed (Flink's loop over a call's requests stops at the first
     * failure: the others would stay prepared, holding their locks, at every restore).
     */
    @Test
    default void aLostTransactionDoesNotKeepTheOthersOfItsCommitPrepared(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        Leftovers leftovers = cancelAfterSavepoint(3, client, dir);
        String lost = leftovers.ofSavepoint().stream()
                .filter(g -> TransactionId.parse(g).orElseThrow().subtask() == 1).findFirst().orElseThrow();
        backend().rollbackPrepared(TransactionId.parse(lost).orElseThrow()); // as an operator might

        StreamExecutionEnvironment env = env(1, 200, restoreFrom(leftovers.savepoint()));
        pipeline(env, RESCALED_IDS, 5_000);
        assertThatThrownBy(() -> env.execute("restore 3 -> 1, one transaction lost"))
                .rootCause()
                .hasMessageContaining(lost)
                .hasMessageContaining("LOST");

        List<String> others = leftovers.ofSavepoint().stream().filter(g -> !g.equals(lost)).collect(Collectors.toList());
        assertThat(others).hasSize(2);
        assertThat(markedGids()).as("committed in the same call").containsAll(others).doesNotContain(lost);
        assertThat(preparedLeft()).as("still prepared").doesNotContainAnyElementsOf(others);
    }

    /**
     * An upscale that fails before its first checkpoint: a savepoint taken at parallelism 2 is restored
     * at 4, the job dies at its first checkpoint (after every writer prepared it, before it completed)
     * with restarts disabled, leaving prepared transactions of subtasks 0 to 3, and the same savepoint
     * is restored at the old parallelism 2. Subtasks 0 and 1 then own the leftovers of indices 2 and 3
     * and roll them back; the savepoint's transactions, committed by the failed run's restored
     * committers, are re-committed idempotently (their markers prove it). Exact.
     */
    @Test
    default void upscaleThatFailsBeforeItsFirstCheckpointThenRestartsAtTheOldParallelism(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        Leftovers leftovers = cancelAfterSavepoint(2, client, dir);
        long s = leftovers.savepointId();

        StreamExecutionEnvironment up = manualEnv(4, restoreFrom(leftovers.savepoint()));
        pipeline(up, RESCALED_IDS, 400);
        JobClient upscaled = up.executeAsync("upscale 2 -> 4");
        awaitOpenTransactions(4);
        // Every writer processes records only after its task restored: by now the restored committers
        // committed the savepoint's transactions and the writers rolled back the pending checkpoint's.
        assertThat(preparedLeft()).as("prepared once the upscaled run is writing").isEmpty();
        assertThat(markedGids()).containsAll(leftovers.ofSavepoint()).doesNotContainAnyElementsOf(leftovers.ofPendingCheckpoint());
        long committed = rows();

        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 4); // the last of the four prepares kills the job
        client.triggerCheckpoint(upscaled.getJobID(), CheckpointType.CONFIGURED);
        awaitStatus(upscaled, JobStatus.FAILED);
        awaitSessionsClosed();

        List<TransactionId> left = prepared();
        assertThat(Faults.fired(sinkId(), Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertThat(left).as("left by the failed upscale").hasSize(4);
        assertThat(subtasks(left)).isEqualTo(range(4));
        assertThat(left).extracting(TransactionId::checkpointId).as("no checkpoint completed in the upscaled run").containsOnly(s + 1);
        assertThat(rows()).isEqualTo(committed);

        StreamExecutionEnvironment back = env(2, 200, restoreFrom(leftovers.savepoint()));
        pipeline(back, RESCALED_IDS, 5_000);
        back.execute("back to 2");

        assertThat(markedGids()).doesNotContainAnyElementsOf(left.stream().map(TransactionId::toString).collect(Collectors.toList()));
        assertExactlyOnce(RESCALED_IDS);
    }

    /**
     * Two runs of one job never reuse a name: a second, fresh run with the same sink id into the same
     * table numbers its checkpoints from 1 again, so its transactions have the same sink, subtask and
     * checkpoint as the first run's. Only the run token tells them apart; without it the second run
     * would collide with the first run's marker rows (and a committer could take the first run's
     * marker as proof that the second run's transaction committed). Both runs end exact.
     */
    @Test
    default void twoRunsOfOneJobNeverReuseATransactionName() throws Exception {
        long n = 2_000;
        StreamExecutionEnvironment first = env(2, 150);
        pipeline(first, 0, n, 4_000);
        first.execute("first run");
        assertExactlyOnce(n);
        Set<String> firstGids = markedGids();

        StreamExecutionEnvironment second = env(2, 150);
        pipeline(second, n, n, 4_000);
        second.execute("second run");
        assertExactlyOnce(2 * n); // ids 0..2n-1: each run's range once

        Set<String> secondGids = new HashSet<>(markedGids());
        secondGids.removeAll(firstGids);
        assertThat(secondGids).isNotEmpty();
        Set<String> sharedSlots = slots(firstGids);
        sharedSlots.retainAll(slots(secondGids));
        assertThat(sharedSlots).as("(subtask, checkpoint) used by both runs").isNotEmpty();
        assertThat(backend().count("SELECT count(*) FROM " + MARKERS + " WHERE sink_id = ?", sinkId()))
                .isEqualTo(firstGids.size() + secondGids.size());
    }

    /**
     * An attempt restarted from the same checkpoint twice: the same fault (right after a prepare, at the
     * first checkpoint after checkpoint c) fails two consecutive attempts, so the restarted attempt
     * names its transaction exactly like the failed one (sink, subtask, checkpoint c + 1) except for
     * the run token. Each restart rolls back the previous attempt's transaction; the third attempt runs
     * to the end, exact. Parallelism 1 so that both faults hit the same subtask.
     */
    @Test
    default void attemptRestartedFromTheSameCheckpointTwice(@InjectClusterClient ClusterClient<?> client) throws Exception {
        long n = 3_000;
        List<Faults.Arrival> faults = new CopyOnWriteArrayList<>();
        Faults.Action again = a -> {
            faults.add(a);
            throw new Faults.InjectedFault(sinkId() + ": second fault after the prepare of " + a.transactionId);
        };
        // Faults fires one arrival per arming: the first fault arms the second for the next arrival,
        // which (one subtask, no checkpoint in between) is the restarted attempt's first prepare.
        Faults.Action first = a -> {
            faults.add(a);
            Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 1, again);
            throw new Faults.InjectedFault(sinkId() + ": first fault after the prepare of " + a.transactionId);
        };

        StreamExecutionEnvironment env = manualEnv(1); // restarts: fixed delay, as configured by env()
        pipeline(env, n, 500);
        JobClient job = env.executeAsync("restarted twice");
        awaitOpenTransactions(1);
        checkpoint(client, job.getJobID());
        awaitOpenTransactions(1);
        long c = checkpoint(client, job.getJobID());

        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 1, first);
        awaitOpenTransactions(1);
        client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED);
        await(() -> faults.size() == 1 && Faults.writerAttempts(sinkId(), 0).contains(1), "attempt 1");
        // The failed attempt's writer prepared and then failed: it has no open transaction, so this
        // is attempt 1's writer, restored from checkpoint c.
        awaitOpenTransactions(1);
        client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED);
        await(() -> faults.size() == 2 && Faults.writerAttempts(sinkId(), 0).contains(2), "attempt 2");
        checkpointUntilFinished(client, job);

        TransactionId a = TransactionId.parse(faults.get(0).transactionId).orElseThrow();
        TransactionId b = TransactionId.parse(faults.get(1).transactionId).orElseThrow();
        assertThat(List.of(faults.get(0).attempt, faults.get(1).attempt)).containsExactly(0, 1);
        assertThat(List.of(a.subtask(), a.checkpointId())).isEqualTo(List.of(0, c + 1));
        assertThat(List.of(b.subtask(), b.checkpointId())).as("same subtask and checkpoint").isEqualTo(List.of(0, c + 1));
        assertThat(b.run()).as("run token of the restarted attempt").isNotEqualTo(a.run());
        assertThat(markedGids()).doesNotContain(a.toString(), b.toString());
        assertExactlyOnce(n);
    }

    /**
     * Runs the job at {@code parallelism} until it is mid-way, takes a plain savepoint with every writer
     * holding rows in the savepoint's epoch, then lets the next checkpoint prepare on every writer but
     * never complete, and cancels the job. Checks on the way that a plain savepoint commits nothing
     * (Flink does not notify it) and that cancelling leaves prepared transactions alone.
     */
    private Leftovers cancelAfterSavepoint(int parallelism, ClusterClient<?> client, Path dir) throws Exception {
        StreamExecutionEnvironment env = manualEnv(parallelism);
        pipeline(env, RESCALED_IDS, 200);
        JobClient job = env.executeAsync("savepoint at parallelism " + parallelism);

        awaitOpenTransactions(parallelism);
        long first = checkpoint(client, job.getJobID());
        await(() -> preparedLeft().isEmpty() && rows() > 0, "checkpoint " + first + " committed");
        long committed = rows();

        awaitOpenTransactions(parallelism); // so every writer prepares at the savepoint's barrier
        String savepoint = job.triggerSavepoint(dir.toUri().toString(), SavepointFormatType.CANONICAL).get();
        long savepointId = checkpointIdOf(savepoint);
        List<TransactionId> ofSavepoint = prepared();
        assertThat(savepointId).as("savepoint follows checkpoint %s", first).isEqualTo(first + 1);
        // A plain savepoint does not notify: its transactions stay prepared, named with the last
        // snapshotted checkpoint + 1, which is the savepoint's own id here.
        assertThat(ofSavepoint).as("prepared after the savepoint").hasSize(parallelism);
        assertThat(subtasks(ofSavepoint)).isEqualTo(range(parallelism));
        assertThat(ofSavepoint).extracting(TransactionId::checkpointId).containsOnly(savepointId);
        assertThat(rows()).as("rows visible after a plain savepoint").isEqualTo(committed);

        awaitOpenTransactions(parallelism);
        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 1, holdAfterPrepare());
        client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED); // never completes
        awaitPrepared(savepointId + 1, parallelism);

        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        awaitSessionsClosed();

        List<TransactionId> left = prepared();
        List<String> ofPending = left.stream()
                .filter(id -> id.checkpointId() == savepointId + 1).map(TransactionId::toString).collect(Collectors.toList());
        assertThat(left).as("prepared after the savepoint and the cancel").hasSize(2 * parallelism);
        assertThat(left).extracting(TransactionId::checkpointId).containsOnly(savepointId, savepointId + 1);
        assertThat(ofPending).hasSize(parallelism);
        assertThat(rows()).as("rows visible after the cancel").isEqualTo(committed);
        return new Leftovers(savepoint, savepointId,
                ofSavepoint.stream().map(TransactionId::toString).collect(Collectors.toList()), ofPending);
    }

    private static Set<Integer> subtasks(List<TransactionId> ids) {
        return ids.stream().map(TransactionId::subtask).collect(Collectors.toSet());
    }

    private static Set<Integer> range(int n) {
        return IntStream.range(0, n).boxed().collect(Collectors.toSet());
    }

    /** "subtask/checkpoint" of each name. */
    private static Set<String> slots(Set<String> gids) {
        return gids.stream()
                .map(g -> TransactionId.parse(g).orElseThrow())
                .map(id -> id.subtask() + "/" + id.checkpointId())
                .collect(Collectors.toSet());
    }
}
