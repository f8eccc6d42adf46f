/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import dev.eosink.cdc.ChangeEvent;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The {@link TransactionAssembler}'s reads that must wait: a change without a transaction block (a snapshot read)
 * that comes behind a change of the same row by a transaction not emitted yet (an incremental snapshot reads rows
 * while the connector streams, and a row's events keep their order in its partition: the read holds the row as
 * that change left it). Emitted at once, the read would show the transaction's change of the row before its other
 * changes; it waits instead until every such transaction, and every earlier read of the row held so, is emitted.
 * Keyed state, as all of the assembler's.
 *
 * <p>Rows are told by their table and key (a table without a key gives its events no row: they never wait).
 */
final class HeldReads {

    /** Per row: what a read of it waits for (transaction keys, and ids of reads of it held before). */
    private final MapState<String, List<String>> holders;
    /** Per holder: the ids of the reads that wait for it. */
    private final MapState<String, List<String>> waiting;
    /** Per held read: the read, and how many holders it still waits for. */
    private final MapState<String, ChangeEvent> reads;

    private final MapState<String, Integer> remaining;
    private final ValueState<Long> held;

    HeldReads(RuntimeContext context) {
        this.holders = context.getMapState(
                new MapStateDescriptor<>("read-row-holders", Types.STRING, Types.LIST(Types.STRING)));
        this.waiting = context.getMapState(
                new MapStateDescriptor<>("reads-waiting-for", Types.STRING, Types.LIST(Types.STRING)));
        this.reads = context.getMapState(
                new MapStateDescriptor<>("held-reads", Types.STRING, new ImmutableValueTypeInfo<>(ChangeEvent.class)));
        this.remaining = context.getMapState(new MapStateDescriptor<>("held-read-waits", Types.STRING, Types.INT));
        this.held = context.getState(new ValueStateDescriptor<>("held-read-count", Types.LONG));
    }

    /** A change of {@code transactionKey} came: a later read of its row waits for that transaction. */
    void changed(ChangeEvent change, String transactionKey) throws Exception {
        Optional<String> row = row(change);
        if (row.isPresent()) {
            List<String> of = list(holders.get(row.get()));
            if (!of.contains(transactionKey)) {
                of.add(transactionKey);
                holders.put(row.get(), of);
            }
        }
    }

    /** Holds {@code read} if a transaction not yet emitted (or a held read) changed its row; false: emit it now. */
    boolean hold(ChangeEvent read) throws Exception {
        Optional<String> row = row(read);
        if (row.isEmpty()) {
            return false;
        }
        List<String> of = list(holders.get(row.get()));
        if (of.isEmpty()) {
            return false;
        }
        long n = held.value() == null ? 1 : held.value() + 1;
        held.update(n);
        String id = "read#" + n;
        reads.put(id, read);
        remaining.put(id, of.size());
        for (String holder : of) {
            List<String> w = list(waiting.get(holder));
            w.add(id);
            waiting.put(holder, w);
        }
        of.add(id);
        holders.put(row.get(), of);
        return true;
    }

    /**
     * Transaction {@code transactionKey} with {@code changes} was emitted: the reads it (and, in turn, the reads
     * these release) released, in the order to emit them, right after it.
     */
    List<ChangeEvent> emitted(String transactionKey, List<ChangeEvent> changes) throws Exception {
        for (ChangeEvent change : changes) {
            Optional<String> row = row(change);
            if (row.isPresent()) {
                drop(row.get(), transactionKey);
            }
        }
        List<ChangeEvent> released = new ArrayList<>();
        Deque<String> done = new ArrayDeque<>(List.of(transactionKey));
        while (!done.isEmpty()) {
            String holder = done.poll();
            for (String id : list(waiting.get(holder))) {
                int left = remaining.get(id) - 1;
                if (left > 0) {
                    remaining.put(id, left);
                    continue;
                }
                ChangeEvent read = reads.get(id);
                released.add(read);
                reads.remove(id);
                remaining.remove(id);
                drop(row(read).orElseThrow(), id);
                done.add(id);
            }
            waiting.remove(holder);
        }
        return released;
    }

    private void drop(String row, String holder) throws Exception {
        List<String> of = list(holders.get(row));
        of.remove(holder);
        if (of.isEmpty()) {
            holders.remove(row);
        } else {
            holders.put(row, of);
        }
    }

    private static List<String> list(List<String> stored) {
        return stored == null ? new ArrayList<>() : new ArrayList<>(stored);
    }

    /** The row a change event is of: its table and key (as text); none without a key. */
    private static Optional<String> row(ChangeEvent change) {
        return change.key().map(key -> change.table().dataCollection() + "/" + key);
    }
}
