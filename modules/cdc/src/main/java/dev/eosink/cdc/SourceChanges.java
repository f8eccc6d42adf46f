/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.List;

/**
 * What a sink applies as one unit, in the order of {@link #sequence()}: a whole source transaction
 * ({@link WholeTransaction}), or one change event that belongs to no transaction the assembler can see
 * ({@link SingleChange}: a snapshot read, or any change of a connector run without
 * {@code provide.transaction.metadata=true}). Made by {@code dev.eosink.cdc.flink.TransactionAssembler}. Immutable
 * and serializable, as every type it holds.
 *
 * <p>A sink that commits whole units, in sequence order, commits only states the source had (up to the snapshot
 * reads, which belong to no transaction): never half a source transaction, never a later one before an earlier.
 */
@PublicEvolving
public sealed interface SourceChanges extends Serializable permits WholeTransaction, SingleChange {

    /**
     * The unit's place among the units of its assembler key: 1 for the first, then one more for each, with no gap.
     * Whole transactions are numbered in their commit order; see the assembler for where single changes fall.
     */
    long sequence();

    /** The unit's change events: a transaction's in their {@code total_order}; unmodifiable. */
    List<ChangeEvent> changes();
}
