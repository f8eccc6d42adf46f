/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.CheckpointCounter;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.LogCapture;
import dev.eosink.testing.faults.MaxSampler;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a writer finds when it starts, and what it must do about it: prepared transactions of its
 * sink id left by other jobs or by its own earlier attempts, a second live job under its sink id,
 * another sink in the same job, checkpoints that keep failing, epochs without records.
 */
public interface StartupCases extends HardCaseSupport {

    /**
     * Leftovers under leftoverPolicy(ROLLBACK): a fresh start finds prepared transactions of its own
     * sink id left by another job (of subtask 0, and of subtask 3 of an earlier run at parallelism 4,
     * which subtask 1 adopts) and one of another sink id. It rolls back its own, loudly, and never
     * touches the other sink's; the leftovers' ids (from 1,000,000 on) never become visible.
     */
    @Test
    default void freshStartRollsBackOwnLeftoversOnly() throws Exception {
        String otherSink = sinkId() + "-other";
        TransactionId other = new TransactionId(otherSink, 0, 7, "cccccccc");
        backend().stagePrepared(target(), new TransactionId(sinkId(), 0, 7, "aaaaaaaa"), 1_000_000, 1_000_100);
        backend().stagePrepared(target(), new TransactionId(sinkId(), 3, 2, "bbbbbbbb"), 2_000_000, 2_000_050);
        backend().stagePrepared(target(), other, 3_000_000, 3_000_010);
        try {
            assertThat(prepared()).hasSize(2);
            StreamExecutionEnvironment env = env(2, 200);
            ids(env, 2_000, 4_000).sinkTo(sink(spec().withLeftoverPolicy(LeftoverPolicy.ROLLBACK)));
            env.execute("fresh start with leftovers");

            assertThat(backend().prepared(otherSink))
                    .as("another sink's transaction is never touched")
                    .containsExactly(other);
            assertExactlyOnce(2_000);
        } finally {
            backend().rollbackAllPrepared(otherSink);
        }
        assertThat(rows()).isEqualTo(2_000);
    }

    /**
     * Leftovers under the default leftoverPolicy(FAIL): another job's leftover may be a completed
     * savepoint's, whose records the sources will not replay. A fresh start refuses to start, names it
     * and the remedies, touches nothing, and fails without restarts (a restart would find the same).
     * The leftover stays for the operator, who resolves it by hand: committed (its snapshot completed),
     * its rows become visible at once, with the marker that proves it.
     */
    @Test
    default void freshStartWithLeftoversOfAnotherJobRefusesToStart() throws Exception {
        TransactionId own = new TransactionId(sinkId(), 0, 7, "aaaaaaaa");
        backend().stagePrepared(target(), own, 1_000_000, 1_000_100);
        StreamExecutionEnvironment env = env(1, 200); // restarts on: the refusal suppresses them
        ids(env, 100, 1_000).sinkTo(sink());

        assertThatThrownBy(() -> env.execute("refuses"))
                .rootCause()
                .hasMessageContaining("sink '" + sinkId() + "' subtask 0/1")
                .hasMessageContaining(own.toString())
                .hasMessageContaining("left by other job(s)")
                .hasMessageContaining("restore the job from the checkpoint or savepoint that holds this sink's state")
                .hasMessageContaining(
                        "decide by hand (" + sink().database().wording().manualResolution() + ")")
                .hasMessageContaining("leftoverPolicy(ROLLBACK)");
        assertThat(Faults.writerAttempts(sinkId(), 0)).as("no restart").containsExactly(0);
        // Left exactly as found, for the operator to decide; nothing of the job became visible.
        assertThat(prepared()).containsExactly(own);
        assertThat(rows()).isZero();
        backend().commitPrepared(own);
        assertThat(prepared()).isEmpty();
        assertThat(rows()).isEqualTo(100);
        assertThat(markers(own.toString())).isEqualTo(1);
    }

    /**
     * A failover before the job's first completed checkpoint restarts without state and finds its own
     * earlier attempt's prepared transaction: rolled back (no checkpoint promised it), whatever the
     * leftover policy, leftoverPolicy(FAIL) included; it is not another job's.
     */
    @Test
    default void aFailoverBeforeTheFirstCompletedCheckpointRollsBackItsOwnAttemptUnderFail() throws Exception {
        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 1);
        StreamExecutionEnvironment env = env(1, 200);
        ids(env, 2_000, 4_000).sinkTo(sink(spec().withLeftoverPolicy(LeftoverPolicy.FAIL)));
        env.execute("failover before the first checkpoint");

        assertThat(Faults.fired(sinkId(), Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertThat(Faults.writerAttempts(sinkId(), 0)).as("one restart").containsExactly(0, 1);
        assertExactlyOnce(2_000);
    }

    /**
     * Checkpoints that keep failing: while one subtask fails right after each prepare and restarts
     * alone (regional failover), no checkpoint completes, and the other keeps preparing one transaction
     * per checkpoint attempt. Each holds a slot of the server's prepared transactions (shared by every
     * application) and its row locks: past maxPreparedPerSubtask the healthy subtask fails over too,
     * which rolls them back, instead of exhausting the server. Checked at every moment (sampled), not
     * only at the end. Then the faults stop and the job ends exact.
     */
    @Test
    default void checkpointsThatKeepFailingCannotPileUpPreparedTransactions() throws Exception {
        int bound = 3;
        MaxSampler prepared1;
        try (MaxSampler sampler = new MaxSampler(sinkId(), () ->
                (int) prepared().stream().filter(id -> id.subtask() == 1).count())) {
            prepared1 = sampler;
            StreamExecutionEnvironment env = env(2, 100);
            ids(env, 6_000, 1_500)
                    .sinkTo(sink(spec().withMaxPreparedPerSubtask(bound))
                            .withLifecycleHook(
                                    Faults.failAfterEachPrepare(sinkId(), 0, 10))); // no checkpoint completes meanwhile
            env.execute("checkpoints keep failing on one subtask");
        }
        assertThat(prepared1.samples()).as("samples taken").isPositive();
        assertThat(prepared1.max())
                .as("most prepared transactions of subtask 1 at once")
                .isBetween(1, bound);
        assertThat(Faults.writerAttempts(sinkId(), 1))
                .as("the healthy subtask failed over at the bound")
                .hasSizeGreaterThan(1);
        assertExactlyOnce(6_000);
    }

    /**
     * A second live job with the same sink id would roll back the first one's transactions. It is refused at
     * start and cannot harm the first: its writer waits claimWait for the ownership guard, saying who holds
     * it, and then, the holder being a session of another execution (not a task of its own going away),
     * fails for good, naming the holder and the remedy. It must not restart, although its restart strategy
     * would (Flink's default: for ever): each restart would find the same until the first job ends, and then
     * write a second copy of its input. The first job, held by its valve until the second failed, ends
     * exact, and the second wrote nothing.
     */
    @Test
    default void secondLiveJobWithTheSameSinkIdIsRefused() throws Exception {
        String valve = sinkId() + "-first";
        IdValve.reset(valve);
        IdValve.openTo(valve, 200);
        StreamExecutionEnvironment first = env(1, 200);
        IdValve.ids(first, valve, 4_000).sinkTo(sink());
        JobClient running = first.executeAsync("first");
        try {
            awaitRows(200);
            StreamExecutionEnvironment second = TestJobs.envWithDefaultRestarts(1, 200);
            ids(second, 4_000, 4_000).sinkTo(sink(spec().withClaimWait(Duration.ofSeconds(1))));
            String holder = backend().guardHolder(sinkId(), 0);
            LogCapture logs = LogCapture.attach();
            Throwable refused;
            try {
                refused = TestJobs.failureWithin(second.executeAsync("second"), TestJobs.TIMEOUT);
            } finally {
                logs.detach();
            }
            assertThat(refused)
                    .rootCause()
                    .hasMessageContaining("sink '" + sinkId() + "' subtask 0/1")
                    .hasMessageContaining(
                            "another live session holds the ownership guard of sink id '" + sinkId() + "'")
                    .hasMessageContaining(holder)
                    .hasMessageContaining("a session of another execution")
                    .hasMessageContaining("Remedy: stop the other job, or give this sink a different sink id");
            assertThat(Faults.writerStarts(sinkId(), 0))
                    .as("writer starts: the first job's, then the second's once")
                    .containsExactly(0, 0);
            assertThat(logs.text())
                    .as("the wait is logged, with the holder")
                    .contains("waiting up to")
                    .contains("for the ownership guard of sink id '" + sinkId() + "' subtask 0")
                    .contains(holder);
            IdValve.openFully(valve);
            running.getJobExecutionResult().get();
        } finally {
            IdValve.openFully(valve);
            TestJobs.cancelUnlessDone(running);
        }
        assertExactlyOnce(4_000);
    }

    /**
     * Two sinks in one job, into two targets, never collide, even failing at the same moment: one fails
     * right after a prepare, the other before a commit. Each target ends exact, and neither sink left a
     * prepared transaction.
     */
    @Test
    default void twoSinksInOneJobKeepTheirTransactionsApart() throws Exception {
        String otherTable = target() + "_b";
        String otherSink = sinkId() + "-b";
        backend().createTarget(otherTable);
        Faults.reset(otherSink);
        Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 3);
        Faults.arm(otherSink, Faults.Point.BEFORE_COMMIT, 2);
        try {
            StreamExecutionEnvironment env = env(2, 150);
            // Paced by checkpoints: at least three epochs with records, so sink a prepares a third time
            // (six prepares at least) and sink b commits a second time, however slowly the tasks start.
            DataStream<Long> ids = CheckpointPacedIds.ids(env, 3_000, 500);
            ids.sinkTo(sink()).name("sink a");
            ExactlyOnceSink<Long> b = sink(spec().withSinkId(otherSink).withTable(otherTable));
            ids.sinkTo(b).name("sink b");
            env.execute("two sinks");

            assertThat(Faults.fired(sinkId(), Faults.Point.AFTER_PREPARE)).isEqualTo(1);
            assertThat(Faults.fired(otherSink, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
            assertExactlyOnce(3_000);
            assertThat(backend().rows(otherTable)).isEqualTo(3_000);
            assertThat(backend().idCounts(otherTable)).hasSize(3_000);
            assertThat(backend().prepared(otherSink)).isEmpty();
        } finally {
            backend().rollbackAllPrepared(otherSink);
            Faults.reset(otherSink);
            ProtocolTrace.reset(otherSink);
            backend().dropTarget(otherTable);
        }
    }

    /**
     * Epochs without records: a source of one record per three completed checkpoints, checkpoints every
     * 50 ms. An epoch without records prepares nothing, writes no marker and hands Flink no committable:
     * as many prepares as markers, fewer than half the completed checkpoints.
     */
    @Test
    default void emptyCheckpointsPrepareNothing() throws Exception {
        StreamExecutionEnvironment env = env(1, 50);
        // One id per three completed checkpoints: at least two empty epochs after each with a record, at
        // any speed of the machine.
        CheckpointPacedIds.sparseIds(env, 10, 3)
                .map(new CheckpointCounter<>(sinkId()))
                .sinkTo(sink());
        env.execute("mostly empty epochs");

        long prepares = Faults.hits(sinkId(), Faults.Point.BEFORE_PREPARE);
        long markers = markedGids().size();
        assertThat(prepares).isEqualTo(markers).isBetween(1L, 10L);
        assertThat(CheckpointCounter.completed(sinkId()))
                .as("completed checkpoints")
                .isGreaterThan(2L * prepares);
        assertExactlyOnce(10);
    }
}
