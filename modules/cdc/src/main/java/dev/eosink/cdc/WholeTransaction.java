/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One source transaction, whole: every change event its END counts, in their {@code total_order}. Immutable.
 *
 * <p>Whole means checked against the END's {@link TransactionBoundary.Totals}: as many events as its
 * {@code event_count}, each {@code total_order} from 1 to that count exactly once, and as many of each table as its
 * {@code data_collections} entry says. A transaction whose END counts no event has no changes.
 */
@PublicEvolving
public final class WholeTransaction implements SourceChanges {

    private static final long serialVersionUID = 1L;

    private final long sequence;
    private final String transactionKey;
    private final String id;
    private final Instant commitTime;
    private final List<ChangeEvent> changes;

    /**
     * @param sequence the unit's {@link #sequence()}, at least 1
     * @param end the transaction's END, which gives its key, id and time
     * @param changes its change events in {@code total_order}, each of the END's transaction
     * @throws IllegalArgumentException when {@code end} is not an END, a change belongs to another transaction or
     *     the changes are not numbered 1, 2, ... in order
     */
    public WholeTransaction(long sequence, TransactionBoundary end, List<ChangeEvent> changes) {
        if (sequence < 1) {
            throw new IllegalArgumentException("a sequence starts at 1, not " + sequence);
        }
        if (end.status() != TransactionBoundary.Status.END) {
            throw new IllegalArgumentException("a whole transaction is told by its END, not by " + end);
        }
        this.sequence = sequence;
        this.transactionKey = end.transactionKey();
        this.id = end.id();
        this.commitTime = end.time();
        this.changes = List.copyOf(changes);
        for (int i = 0; i < this.changes.size(); i++) {
            ChangeEvent change = this.changes.get(i);
            SourceTransaction transaction = change.transaction()
                    .orElseThrow(() -> new IllegalArgumentException(change + " belongs to no transaction"));
            if (!transaction.transactionKey().equals(transactionKey) || transaction.totalOrder() != i + 1) {
                throw new IllegalArgumentException("change " + (i + 1) + " of transaction " + transactionKey + " is "
                        + change + ": changes are the transaction's own, in total_order 1, 2, ...");
            }
        }
    }

    @Override
    public long sequence() {
        return sequence;
    }

    /** What all events of the transaction share ({@link SourceTransaction#transactionKey()}). */
    public String transactionKey() {
        return transactionKey;
    }

    /** The transaction's id as its END gives it ({@link TransactionBoundary#id()}). */
    public String id() {
        return id;
    }

    /** The END's {@code ts_ms}: when the transaction ended at the source, as the connector reports it. */
    public Instant commitTime() {
        return commitTime;
    }

    @Override
    public List<ChangeEvent> changes() {
        return changes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WholeTransaction other
                && sequence == other.sequence
                && transactionKey.equals(other.transactionKey)
                && id.equals(other.id)
                && commitTime.equals(other.commitTime)
                && changes.equals(other.changes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sequence, transactionKey, id, commitTime, changes);
    }

    /** Sequence, id and the number of changes; no rows, which may be many and large. */
    @Override
    public String toString() {
        return "#" + sequence + " transaction " + id + " (" + changes.size() + " changes)";
    }
}
