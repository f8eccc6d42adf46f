/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
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
}
