/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.util.List;
import java.util.Objects;

/**
 * One change event that is a unit of its own: it carries no transaction block, so no END says what it belongs with.
 * Snapshot reads are such events, and so is every change of a connector run without
 * {@code provide.transaction.metadata=true}. Immutable.
 */
@PublicEvolving
public final class SingleChange implements SourceChanges {

    private static final long serialVersionUID = 1L;

    private final long sequence;
    private final ChangeEvent change;

    /**
     * @param sequence the unit's {@link #sequence()}, at least 1
     * @param change an event without a transaction block
     * @throws IllegalArgumentException when the event has a transaction block: it belongs in a
     *     {@link WholeTransaction}
     */
    public SingleChange(long sequence, ChangeEvent change) {
        if (sequence < 1) {
            throw new IllegalArgumentException("a sequence starts at 1, not " + sequence);
        }
        if (change.transaction().isPresent()) {
            throw new IllegalArgumentException(change + " belongs to a source transaction, not alone");
        }
        this.sequence = sequence;
        this.change = change;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    /** The event. */
    public ChangeEvent change() {
        return change;
    }

    /** The one event, as a list. */
    @Override
    public List<ChangeEvent> changes() {
        return List.of(change);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SingleChange other && sequence == other.sequence && change.equals(other.change);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sequence, change);
    }

    @Override
    public String toString() {
        return "#" + sequence + " " + change;
    }
}
