/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a change event comes from: its table, its position at the source, and its source transaction when the
 * connector provides transaction metadata. Immutable.
 */
@PublicEvolving
public final class EventOrigin implements Serializable {

    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final SourcePosition position;
    /** Null without transaction metadata (and for snapshot reads, which belong to no source transaction). */
    private final SourceTransaction transaction;

    /**
     * The origin of an event of {@code table} at {@code position}, in {@code transaction} (empty without transaction
     * metadata and for snapshot reads). Throws {@link NullPointerException} for a null argument.
     */
    public EventOrigin(TableId table, SourcePosition position, Optional<SourceTransaction> transaction) {
        this.table = Objects.requireNonNull(table, "table");
        this.position = Objects.requireNonNull(position, "position");
        this.transaction = transaction.orElse(null);
    }

    /** The source table the change was made in. */
    public TableId table() {
        return table;
    }

    /** Where and when the change happened at the source. */
    public SourcePosition position() {
        return position;
    }

    /** The source transaction; empty when the connector provides no transaction metadata, and for snapshot reads. */
    public Optional<SourceTransaction> transaction() {
        return Optional.ofNullable(transaction);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EventOrigin other
                && table.equals(other.table)
                && position.equals(other.position)
                && Objects.equals(transaction, other.transaction);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, position, transaction);
    }

    @Override
    public String toString() {
        return table + (transaction == null ? "" : " in " + transaction) + ", " + position;
    }
}
