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
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.eosink.cdc.flink.Events.end;
import static dev.eosink.cdc.flink.Events.insert;
import static dev.eosink.cdc.flink.Events.read;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A snapshot read that comes after a streamed change of the same row (an incremental snapshot reads rows while the
 * connector streams: the read is behind the change in the row's partition, and holds the row as the change left it).
 * Emitted at once, ahead of the transaction of that change (which still waits for an event of another table), the
 * read would show the transaction's change of this row before its other changes: it waits, and comes right after.
 */
@SuppressWarnings("try")
class SnapshotReadAfterAStreamedChangeTest {

    @Test
    void aReadBehindAWaitingTransactionsChangeOfTheSameRowWaitsForThatTransaction() throws Exception {
        ChangeEvent itemOfA = insert("items", 1, "749", 1, 1);
        ChangeEvent orderOfA = insert("orders", 2, "749", 2, 1);
        TransactionBoundary endA = end("749", "items", 1, "orders", 1);
        ChangeEvent readOfTheItem = read("items", 1); // behind itemOfA in the items topic's partition
        TransactionAssembler<String> assembler = new TransactionAssembler<>();
        try (var harness = new KeyedOneInputStreamOperatorTestHarness<String, CdcEvent, SourceChanges>(
                new KeyedProcessOperator<>(assembler), event -> "shop", Types.STRING, 128, 1, 0)) {
            harness.setup(assembler.getProducedType().createSerializer(new ExecutionConfig().getSerializerConfig()));
            harness.open();
            for (CdcEvent event : new CdcEvent[] {itemOfA, endA, readOfTheItem}) {
                harness.processElement(new StreamRecord<>(event));
            }
            assertThat(harness.extractOutputValues())
                    .as("emitted while 749, whose change of items#1 came before the read, waits for its order")
                    .isEmpty();
            harness.processElement(new StreamRecord<>(orderOfA));
            assertThat(harness.extractOutputValues())
                    .as("749 whole, then the read that came behind its change of items#1")
                    .containsExactly(
                            new WholeTransaction(1, endA, List.of(itemOfA, orderOfA)),
                            new SingleChange(2, readOfTheItem));
        }
    }
}
