/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;

import java.util.Optional;

/**
 * The source transactions of the current key whose END came and which are not emitted yet, first in, first out:
 * the order of their ENDs, which is their commit order. Keyed state, so it is checkpointed, restored and moved with
 * its key when the job is rescaled.
 *
 * <p>A map from position to transaction key between a head and a tail, rather than a list: taking the first is one
 * removal, where a {@code ListState} would be rewritten whole.
 */
final class EndedTransactions {

    private final MapState<Long, String> byPosition;
    /** The position of the first; null (0) before any. */
    private final ValueState<Long> head;
    /** The position after the last; null (0) before any. */
    private final ValueState<Long> tail;

    EndedTransactions(RuntimeContext context) {
        this.byPosition = context.getMapState(new MapStateDescriptor<>("ended-transactions", Types.LONG, Types.STRING));
        this.head = context.getState(new ValueStateDescriptor<>("ended-transactions-head", Types.LONG));
        this.tail = context.getState(new ValueStateDescriptor<>("ended-transactions-tail", Types.LONG));
    }

    /** Appends a transaction whose END came. */
    void add(String transactionKey) throws Exception {
        long position = valueOf(tail);
        byPosition.put(position, transactionKey);
        tail.update(position + 1);
    }

    /** The transaction that ended first of those not emitted. */
    Optional<String> first() throws Exception {
        long position = valueOf(head);
        return position == valueOf(tail) ? Optional.empty() : Optional.of(byPosition.get(position));
    }

    /** Removes {@link #first()}, which must be there. */
    void removeFirst() throws Exception {
        long position = valueOf(head);
        if (position == valueOf(tail)) {
            throw new IllegalStateException("no ended transaction to remove");
        }
        byPosition.remove(position);
        head.update(position + 1);
    }

    long size() throws Exception {
        return valueOf(tail) - valueOf(head);
    }

    private static long valueOf(ValueState<Long> state) throws Exception {
        Long value = state.value();
        return value == null ? 0 : value;
    }
}
