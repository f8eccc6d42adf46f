/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.WriterState;
import dev.eosink.core.protocol.WriterState.Lineage;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code resolve} says of each prepared transaction: only what the checkpoint it read can tell. */
class SinkStateTest {

    private static final SinkState CHECKPOINT_5 = new SinkState(
            "orders",
            5,
            List.of(
                    new WriterState("orders", 0, 5, new Lineage("x4ndz0ahabcd", 2, 1_000L)),
                    new WriterState("orders", 1, 5, new Lineage("x4ndrqcfabcd", 2, 1_000L))),
            List.of(),
            Optional.empty());

    /**
     * A transaction named after the checkpoint read is not promised by it; whether its own checkpoint completed
     * that checkpoint cannot tell: a plain savepoint taken after it does not notify the sink, so the savepoint's
     * transactions stay prepared, and a job restored from that savepoint would commit them.
     */
    @Test
    void aTransactionNamedAfterTheCheckpointIsNotCalledNeverCompleted() {
        TransactionId later = new TransactionId("orders", 1, 6, "x4ndrqcfabcd");
        assertThat(CHECKPOINT_5.promises(later)).isFalse();
        assertThat(CHECKPOINT_5.why(later))
                .startsWith("not promised by checkpoint 5: prepared for checkpoint 6, after it")
                .contains("a later savepoint or checkpoint, if one was taken, may have promised it")
                .contains("a plain savepoint does not notify the sink")
                .doesNotContain("never completed");
    }

    @Test
    void aPromisedTransactionSaysWhy() {
        TransactionId promised = new TransactionId("orders", 0, 5, "x4ndz0ahabcd");
        assertThat(CHECKPOINT_5.promises(promised)).isTrue();
        assertThat(CHECKPOINT_5.why(promised))
                .isEqualTo("promised: the writer state of subtask 0 names run x4ndz0ahabcd, and checkpoint 5 <= 5");
    }

    /**
     * A checkpoint taken after the sink's writers finished (the end of a bounded input) holds no writer state: Flink
     * keeps none of a finished operator. The committer state's committables are then all it promised.
     */
    @Test
    void afterTheWritersFinishedTheCommittablesAreThePromise() {
        TransactionId committable = new TransactionId("orders", 1, 7, "x4ndrqcfabcd");
        TransactionId other = new TransactionId("orders", 0, 7, "x4ndz0ahabcd");
        SinkState finished = new SinkState(
                "orders", 8, List.of(), List.of(new PreparedTransaction(committable, 40, 1_000L)), Optional.empty());
        assertThat(finished.writersFinished()).isTrue();
        assertThat(finished.withLineage()).isFalse();
        assertThat(finished.decidable()).isTrue();
        assertThat(finished.promises(committable)).isTrue();
        assertThat(finished.promises(other)).isFalse();
        assertThat(finished.why(committable))
                .startsWith("promised: a committable of the committer state (the sink's "
                        + "writers had finished before checkpoint 8");
        assertThat(finished.why(other)).startsWith("not promised: not a committable of the committer state");
        assertThat(finished.committablesNotPromised()).isEmpty();
        assertThat(CHECKPOINT_5.writersFinished()).isFalse();
    }
}
