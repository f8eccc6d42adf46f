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

/**
 * The keys of the last {@code capacity} source transactions the current key emitted, so that their events and ENDs
 * coming again (Debezium sends what followed its last committed offset again after a restart of its own) are known
 * as repeats and dropped. Keyed state. Bounded: the oldest is forgotten when one more is added.
 *
 * <p>Each emitted transaction is numbered; one map finds a key's number, the other the key of a number, so the
 * oldest is found without a scan.
 */
final class RecentTransactions {

    private final int capacity;
    private final MapState<String, Long> numberOf;
    private final MapState<Long, String> keyAt;
    /** How many were ever added: the number of the newest. Null (0) before any. */
    private final ValueState<Long> added;

    RecentTransactions(RuntimeContext context, int capacity) {
        this.capacity = capacity;
        this.numberOf = context.getMapState(new MapStateDescriptor<>("emitted-transactions", Types.STRING, Types.LONG));
        this.keyAt = context.getMapState(new MapStateDescriptor<>("emitted-order", Types.LONG, Types.STRING));
        this.added = context.getState(new ValueStateDescriptor<>("emitted-count", Types.LONG));
    }

    void add(String transactionKey) throws Exception {
        Long before = added.value();
        long number = (before == null ? 0 : before) + 1;
        numberOf.put(transactionKey, number);
        keyAt.put(number, transactionKey);
        added.update(number);
        long forgotten = number - capacity;
        String oldest = forgotten >= 1 ? keyAt.get(forgotten) : null;
        if (oldest != null) {
            keyAt.remove(forgotten);
            // The same key may have been emitted again since (a transaction id the source used again): keep that.
            Long current = numberOf.get(oldest);
            if (current != null && current == forgotten) {
                numberOf.remove(oldest);
            }
        }
    }

    boolean contains(String transactionKey) throws Exception {
        return numberOf.contains(transactionKey);
    }
}
