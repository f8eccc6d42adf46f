/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.types.RowKind;

import java.io.Serializable;

/**
 * Tells a changelog record's kind, for a sink that upserts by key ({@code upsert(keys)} of {@code
 * PostgresSink.builder()} and {@code XaSink.builder()}): INSERT and UPDATE_AFTER upsert the row,
 * DELETE deletes it by key, and so does UPDATE_BEFORE (Flink's planner sends one without its
 * UPDATE_AFTER when a key leaves a query's result). The last record of a key wins: an UPDATE_BEFORE
 * followed by an INSERT or UPDATE_AFTER of its key ends as that record, and when a checkpoint's
 * barrier falls between the two, that checkpoint commits the key deleted.
 */
@PublicEvolving
@FunctionalInterface
public interface RowKindFunction<IN> extends Serializable {
    /**
     * The changelog kind of {@code record}: INSERT, UPDATE_BEFORE, UPDATE_AFTER or DELETE (see the class comment for
     * what each does); never null.
     */
    RowKind kindOf(IN record);
}
