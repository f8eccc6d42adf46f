/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.SingleChange;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.TransactionBoundary;
import dev.eosink.cdc.WholeTransaction;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.eosink.cdc.flink.Events.begin;
import static dev.eosink.cdc.flink.Events.end;
import static dev.eosink.cdc.flink.Events.endCounting;
import static dev.eosink.cdc.flink.Events.insert;
import static dev.eosink.cdc.flink.Events.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The assembler in Flink's operator harness (keyed state on the heap backend, snapshots and restores as a job takes
 * them), all events of one consistency group, {@value #GROUP}. Outputs are compared whole: the units, their order,
 * their sequence numbers and their events.
 */
// "try": javac warns that the harness's close() may throw InterruptedException; closing it is what the tests want.
@SuppressWarnings("try")
class TransactionAssemblerTest {

    private static final String GROUP = "shop";
    private static final int MAX_PARALLELISM = 128;

    /** The same words in every message of a count that does not fit. */
    private static final String COUNT_REMEDY = " Each (transaction, total_order) is kept once and repeats are"
            + " dropped, so more events than the END counts come from another transaction under the same key, or"
            + " from events added or renumbered after Debezium counted them: key the assembler so that one key"
            + " holds the events of one source database (transaction ids are unique within one database only),"
            + " take the END from Debezium's transaction topic (provide.transaction.metadata=true) as it wrote it,"
            + " and leave no transform (SMT) that adds, splits or renumbers change events.";

    @Test
    void interleavedTransactionsComeOutWholeInTheOrderOfTheirEnds() throws Exception {
        ChangeEvent a1 = insert("items", 1, "749", 1, 1);
        ChangeEvent a2 = insert("orders", 2, "749", 2, 1);
        ChangeEvent b1 = insert("orders", 10, "750", 1, 1);
        ChangeEvent b2 = insert("orders", 11, "750", 2, 2);
        TransactionBoundary endA = end("749", "items", 1, "orders", 1);
        TransactionBoundary endB = end("750", "orders", 2);
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, begin("749"), a1, begin("750"), b1, a2, b2);
            assertThat(harness.extractOutputValues()).isEmpty();
            feed(harness, endA, endB);
            assertThat(harness.extractOutputValues())
                    .containsExactly(
                            new WholeTransaction(1, endA, List.of(a1, a2)),
                            new WholeTransaction(2, endB, List.of(b1, b2)));
        }
    }

    @Test
    void eventsBeforeAndAfterTheirEndAreSortedByTotalOrder() throws Exception {
        ChangeEvent a1 = insert("items", 1, "749", 1, 1);
        ChangeEvent a2 = insert("orders", 2, "749", 2, 1);
        ChangeEvent a3 = insert("items", 3, "749", 3, 2);
        TransactionBoundary endA = end("749", "items", 2, "orders", 1);
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, a2, endA, a3);
            assertThat(harness.extractOutputValues()).isEmpty();
            feed(harness, a1);
            assertThat(harness.extractOutputValues())
                    .containsExactly(new WholeTransaction(1, endA, List.of(a1, a2, a3)));
        }
    }

    @Test
    void aTransactionCompleteFirstWaitsForTheOneThatEndedBefore() throws Exception {
        ChangeEvent a1 = insert("items", 1, "749", 1, 1);
        ChangeEvent a2 = insert("items", 2, "749", 2, 2);
        ChangeEvent b1 = insert("orders", 10, "750", 1, 1);
        TransactionBoundary endA = end("749", "items", 2);
        TransactionBoundary endB = end("750", "orders", 1);
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, a1, endA, b1, endB);
            assertThat(harness.extractOutputValues())
                    .as("750 is whole, 749 ended before it")
                    .isEmpty();
            feed(harness, a2);
            assertThat(harness.extractOutputValues())
                    .containsExactly(
                            new WholeTransaction(1, endA, List.of(a1, a2)), new WholeTransaction(2, endB, List.of(b1)));
        }
    }

    @Test
    void repeatsOfHeldAndOfEmittedTransactionsAreDroppedAndCounted() throws Exception {
        ChangeEvent a1 = insert("items", 1, "749", 1, 1);
        ChangeEvent a2 = insert("items", 2, "749", 2, 2);
        ChangeEvent b1 = insert("orders", 10, "750", 1, 1);
        TransactionBoundary endA = end("749", "items", 2);
        TransactionBoundary endB = end("750", "orders", 1);
        TransactionAssembler<String> assembler = new TransactionAssembler<>();
        try (var harness = started(assembler)) {
            feed(harness, a1, a1, endA, endA, a2);
            assertThat(assembler.duplicatesDropped()).isEqualTo(2);
            // Debezium restarted and sends 749 again, which the key emitted.
            feed(harness, begin("749"), a1, a2, endA, b1, endB);
            assertThat(assembler.duplicatesDropped()).isEqualTo(5);
            assertThat(harness.extractOutputValues())
                    .containsExactly(
                            new WholeTransaction(1, endA, List.of(a1, a2)), new WholeTransaction(2, endB, List.of(b1)));
        }
    }

    @Test
    void onlyTheLastRememberedTransactionsAreKnownAsEmitted() throws Exception {
        ChangeEvent a1 = insert("items", 1, "749", 1, 1);
        ChangeEvent b1 = insert("items", 2, "750", 1, 1);
        ChangeEvent c1 = insert("items", 3, "751", 1, 1);
        TransactionBoundary endA = end("749", "items", 1);
        TransactionBoundary endB = end("750", "items", 1);
        TransactionBoundary endC = end("751", "items", 1);
        TransactionAssembler<String> assembler = new TransactionAssembler<>(100, 2);
        try (var harness = started(assembler)) {
            feed(harness, a1, endA, b1, endB, c1, endC);
            feed(harness, b1, endB, c1, endC);
            assertThat(assembler.duplicatesDropped()).isEqualTo(4);
            assertThat(harness.extractOutputValues())
                    .containsExactly(
                            new WholeTransaction(1, endA, List.of(a1)),
                            new WholeTransaction(2, endB, List.of(b1)),
                            new WholeTransaction(3, endC, List.of(c1)));
            // 749 is forgotten: its END's position (PostgreSQL's LSN) is behind the last one's, so its repeat is
            // refused rather than applied again out of order.
            assertThatThrownBy(() -> feed(harness, a1, endA))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessageContaining("came after an END at position")
                    .hasMessageContaining("raise rememberedTransactions");
        }
    }

    @Test
    void snapshotReadsPassAloneTheMomentTheyComeAheadOfWaitingTransactions() throws Exception {
        ChangeEvent r1 = read("items", 1);
        ChangeEvent r2 = read("items", 2);
        ChangeEvent a1 = insert("items", 1, "749", 1, 1);
        TransactionBoundary endA = end("749", "items", 1);
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, r1, endA);
            assertThat(harness.extractOutputValues()).containsExactly(new SingleChange(1, r1));
            feed(harness, r2, a1, r1);
            assertThat(harness.extractOutputValues())
                    .containsExactly(
                            new SingleChange(1, r1),
                            new SingleChange(2, r2),
                            new WholeTransaction(3, endA, List.of(a1)),
                            new SingleChange(4, r1));
        }
    }

    @Test
    void anEndThatCountsNoEventsIsAnEmptyTransaction() throws Exception {
        TransactionBoundary empty = end("749");
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, begin("749"), empty);
            assertThat(harness.extractOutputValues()).containsExactly(new WholeTransaction(1, empty, List.of()));
        }
    }

    @Test
    void aTransactionHalfArrivedSurvivesASnapshotAndItsRestore() throws Exception {
        ChangeEvent c1 = insert("orders", 7, "748", 1, 1);
        TransactionBoundary endC = end("748", "orders", 1);
        ChangeEvent r1 = read("items", 9);
        ChangeEvent a1 = insert("items", 1, "749", 1, 1);
        ChangeEvent a2 = insert("orders", 2, "749", 2, 1);
        ChangeEvent a3 = insert("items", 3, "749", 3, 2);
        TransactionBoundary endA = end("749", "items", 2, "orders", 1);
        OperatorSubtaskState snapshot;
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, c1, endC, r1, a1, endA);
            assertThat(harness.extractOutputValues())
                    .containsExactly(new WholeTransaction(1, endC, List.of(c1)), new SingleChange(2, r1));
            snapshot = harness.snapshot(1, 1);
        }
        TransactionAssembler<String> restored = new TransactionAssembler<>();
        try (var harness = started(restored, snapshot, 1, 0)) {
            // What Debezium sends again after its own restart: an emitted transaction and a held event.
            feed(harness, c1, endC, a1);
            assertThat(restored.duplicatesDropped()).isEqualTo(3);
            feed(harness, a3, a2);
            assertThat(harness.extractOutputValues())
                    .containsExactly(new WholeTransaction(3, endA, List.of(a1, a2, a3)));
        }
    }

    /**
     * A read held behind a waiting transaction's change of its row (an incremental snapshot) survives a snapshot and
     * its restore, and a second read of the row waits behind the first: once the transaction completes, it comes
     * out whole, then both reads in their order.
     */
    @Test
    void aReadHeldBehindAWaitingTransactionSurvivesARestoreAndKeepsItsRowsOrder() throws Exception {
        ChangeEvent item = insert("items", 1, "749", 1, 1);
        ChangeEvent order = insert("orders", 2, "749", 2, 1);
        TransactionBoundary endA = end("749", "items", 1, "orders", 1);
        ChangeEvent read = read("items", 1);
        ChangeEvent other = read("items", 5); // a row no waiting transaction changed: out at once
        OperatorSubtaskState snapshot;
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, item, endA, read, other);
            assertThat(harness.extractOutputValues()).containsExactly(new SingleChange(1, other));
            snapshot = harness.snapshot(1, 1);
        }
        try (var harness = started(new TransactionAssembler<>(), snapshot, 1, 0)) {
            feed(harness, read, order);
            assertThat(harness.extractOutputValues())
                    .containsExactly(
                            new WholeTransaction(2, endA, List.of(item, order)),
                            new SingleChange(3, read),
                            new SingleChange(4, read));
        }
    }

    @Test
    void theStateMovesWithItsKeyWhenTheJobIsRescaled() throws Exception {
        ChangeEvent a1 = insert("items", 1, "751", 1, 1);
        ChangeEvent a2 = insert("items", 2, "751", 2, 2);
        ChangeEvent b1 = insert("orders", 10, "750", 1, 1);
        TransactionBoundary endA = end("751", "items", 2);
        TransactionBoundary endB = end("750", "orders", 1);
        OperatorSubtaskState snapshot;
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, b1, endB, a1, endA);
            assertThat(harness.extractOutputValues()).containsExactly(new WholeTransaction(1, endB, List.of(b1)));
            snapshot = harness.snapshot(1, 1);
        }
        int owner = KeyGroupRangeAssignment.assignKeyToParallelOperator(GROUP, MAX_PARALLELISM, 3);
        for (int subtask = 0; subtask < 3; subtask++) {
            OperatorSubtaskState part = AbstractStreamOperatorTestHarness.repartitionOperatorState(
                    snapshot, MAX_PARALLELISM, 1, 3, subtask);
            try (var harness = started(new TransactionAssembler<>(), part, 3, subtask)) {
                if (subtask == owner) {
                    // 750's END again: known as emitted; 749 completes with the event it lacked.
                    feed(harness, endB, a2);
                    assertThat(harness.extractOutputValues())
                            .containsExactly(new WholeTransaction(2, endA, List.of(a1, a2)));
                } else {
                    assertThat(harness.numKeyedStateEntries())
                            .as("subtask %s", subtask)
                            .isZero();
                }
            }
        }
    }

    @Test
    void aTransactionThatNeverEndsFailsTheBoundNamingIt() throws Exception {
        try (var harness = started(new TransactionAssembler<>(3, 10))) {
            feed(harness, insert("orders", 10, "750", 1, 1), insert("items", 1, "749", 1, 1));
            feed(harness, insert("items", 2, "749", 2, 2));
            assertThatThrownBy(() -> feed(harness, insert("items", 3, "749", 3, 3)))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessage("the TransactionAssembler of key shop holds 4 change events and 0 ENDs waiting, 4 in"
                            + " all, more than its maxBufferedEvents of 3. The oldest incomplete transaction: source"
                            + " transaction 750 has 1 event {public.orders=1} and no END. Its END has not come: does the"
                            + " job read Debezium's transaction topic (<topic.prefix>.transaction,"
                            + " provide.transaction.metadata=true) and send its records to this key? Transactions are"
                            + " emitted whole and in commit order, so one that never completes holds back all later"
                            + " ones. If transactions are that large, raise maxBufferedEvents.");
        }
    }

    /**
     * ENDs whose positions (PostgreSQL's LSNs) go back: the transaction topic's order was lost before the assembler
     * (a rebalance, several partitions), and emitting in that order would apply transactions out of commit order.
     */
    @Test
    void endsOutOfCommitOrderFailNamingTheRemedy() throws Exception {
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, insert("items", 1, "750", 1, 1), end("750", "items", 1));
            assertThatThrownBy(() -> feed(harness, end("749", "items", 1)))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessageContaining("the END of transaction 749:22074900 (position 22074900) came after an END "
                            + "at position 22075000")
                    .hasMessageContaining("keep the transaction topic's order into the assembler");
        }
    }

    @Test
    void anEndedTransactionThatLacksEventsFailsTheBoundNamingWhatItWaitsFor() throws Exception {
        try (var harness = started(new TransactionAssembler<>(3, 10))) {
            feed(harness, end("749", "items", 2, "orders", 2), insert("items", 1, "749", 1, 1));
            feed(harness, insert("items", 2, "749", 2, 2));
            assertThatThrownBy(() -> feed(harness, insert("orders", 10, "750", 1, 1)))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessage("the TransactionAssembler of key shop holds 3 change events and 1 END waiting, 4 in"
                            + " all, more than its maxBufferedEvents of 3. The oldest incomplete transaction: source"
                            + " transaction 749 (END 749:22074900 at 2026-01-01T00:12:29Z) has 2 of the 4 events its"
                            + " END counts, and waits for public.orders: 0 of 2. Its events have not all come: does the"
                            + " job read every topic of the tables it waits for and send their records to this key?"
                            + " Transactions are emitted whole and in commit order, so one that never completes holds"
                            + " back all later ones. If transactions are that large, raise maxBufferedEvents.");
        }
    }

    @Test
    void moreEventsThanTheEndCountsFailNamingTheTransactionAndTheCounts() throws Exception {
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, end("749", "items", 2), insert("items", 1, "749", 1, 1));
            assertThatThrownBy(() -> feed(harness, insert("items", 3, "749", 3, 2)))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessage("source transaction 749: its event #3 (of public.items) came, but its END counts 2"
                            + " events {public.items=2}." + COUNT_REMEDY);
        }
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, end("749", "items", 1, "orders", 1), insert("items", 1, "749", 1, 1));
            assertThatThrownBy(() -> feed(harness, insert("items", 2, "749", 2, 2)))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessage("source transaction 749: 2 events of public.items came, but its END counts 1 of that"
                            + " table (2 events {public.items=1, public.orders=1})." + COUNT_REMEDY);
        }
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, insert("items", 1, "749", 1, 1), insert("items", 2, "749", 3, 2));
            assertThatThrownBy(() -> feed(harness, end("749", "items", 2)))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessage("source transaction 749: its event #3 came, but its END counts 2 events"
                            + " {public.items=2}." + COUNT_REMEDY);
        }
        try (var harness = started(new TransactionAssembler<>())) {
            feed(harness, insert("orders", 1, "749", 1, 1));
            assertThatThrownBy(() -> feed(harness, end("749", "items", 1)))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessage("source transaction 749: 1 event of public.orders came, but its END counts 0 of that"
                            + " table (1 events {public.items=1})." + COUNT_REMEDY);
        }
    }

    @Test
    void anEndWhoseCountsDoNotAddUpFails() throws Exception {
        try (var harness = started(new TransactionAssembler<>())) {
            assertThatThrownBy(() -> feed(harness, endCounting("749", 3, Map.of())))
                    .isInstanceOf(TransactionAssemblyException.class)
                    .hasMessage("source transaction 749: its END counts 3 events in all but 0 in its data_collections"
                            + " {}, so the END's counts are missing or altered and no one can tell when the"
                            + " transaction is whole. Read the END from Debezium's transaction topic"
                            + " (provide.transaction.metadata=true) as Debezium wrote it, with no transform (SMT) on"
                            + " that topic.");
        }
    }

    @Test
    void itsBoundsAreAtLeastOne() {
        assertThatThrownBy(() -> new TransactionAssembler<String>(0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBufferedEvents (0) and rememberedTransactions (1) must be at least 1");
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, CdcEvent, SourceChanges> started(
            TransactionAssembler<String> assembler) throws Exception {
        return started(assembler, null, 1, 0);
    }

    /** A harness of one subtask of {@code parallelism}, restored from {@code state} unless that is null. */
    private static KeyedOneInputStreamOperatorTestHarness<String, CdcEvent, SourceChanges> started(
            TransactionAssembler<String> assembler, OperatorSubtaskState state, int parallelism, int subtask)
            throws Exception {
        KeyedOneInputStreamOperatorTestHarness<String, CdcEvent, SourceChanges> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(assembler),
                        event -> GROUP,
                        Types.STRING,
                        MAX_PARALLELISM,
                        parallelism,
                        subtask);
        // The harness copies each output by the output's serializer, as a chained operator does: the type the
        // assembler declares, not Kryo, which cannot copy these values.
        harness.setup(assembler.getProducedType().createSerializer(new ExecutionConfig().getSerializerConfig()));
        if (state != null) {
            harness.initializeState(state);
        }
        harness.open();
        return harness;
    }

    private static void feed(
            KeyedOneInputStreamOperatorTestHarness<String, CdcEvent, SourceChanges> harness, CdcEvent... events)
            throws Exception {
        for (CdcEvent event : events) {
            harness.processElement(new StreamRecord<>(event));
        }
    }
}
