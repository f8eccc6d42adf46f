/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Objects;

/**
 * The source transaction a change belongs to, from the envelope's {@code transaction} block (present when the
 * connector runs with {@code provide.transaction.metadata=true}). Immutable.
 *
 * <p>Events of one transaction are told by their {@link #transactionKey()}, not their {@link #id()}: Debezium's
 * PostgreSQL connector puts each event's own LSN into the id. Within one transaction, {@link #totalOrder()} numbers its change events 1, 2, ... across all tables, and
 * {@link #dataCollectionOrder()} numbers them 1, 2, ... within this event's table; the transaction's END event
 * ({@link TransactionBoundary}) gives the totals to check them against.
 */
@PublicEvolving
public final class SourceTransaction implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String id;
    private final long totalOrder;
    private final long dataCollectionOrder;

    /**
     * @param id the transaction's id as the connector writes it (PostgreSQL: {@code "<txId>:<lsn>"})
     * @param totalOrder this event's position among all events of the transaction, from 1
     * @param dataCollectionOrder this event's position among the transaction's events of its table, from 1
     */
    public SourceTransaction(String id, long totalOrder, long dataCollectionOrder) {
        this.id = Objects.requireNonNull(id, "id");
        if (totalOrder < 1 || dataCollectionOrder < 1 || dataCollectionOrder > totalOrder) {
            throw new IllegalArgumentException("transaction " + id + ": total_order " + totalOrder
                    + " and data_collection_order " + dataCollectionOrder
                    + " must be at least 1, the second no greater than the first");
        }
        this.totalOrder = totalOrder;
        this.dataCollectionOrder = dataCollectionOrder;
    }

    /** The id exactly as the event gives it; for PostgreSQL it differs between events of one transaction. */
    public String id() {
        return id;
    }

    /**
     * What every event of this transaction shares, its BEGIN and END included: the id, except for Debezium's
     * PostgreSQL ids ({@code <txId>:<lsn>}, the LSN the carrying event's own), whose txId it is. Group events by it.
     */
    public String transactionKey() {
        return TransactionKeys.of(id);
    }

    /** The event's place among all change events of its transaction, from 1. */
    public long totalOrder() {
        return totalOrder;
    }

    /** The event's place among its transaction's change events of its table, from 1; at most {@link #totalOrder()}. */
    public long dataCollectionOrder() {
        return dataCollectionOrder;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SourceTransaction other
                && id.equals(other.id)
                && totalOrder == other.totalOrder
                && dataCollectionOrder == other.dataCollectionOrder;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, totalOrder, dataCollectionOrder);
    }

    @Override
    public String toString() {
        return "transaction " + id + " #" + totalOrder + " (#" + dataCollectionOrder + " of its table)";
    }
}
