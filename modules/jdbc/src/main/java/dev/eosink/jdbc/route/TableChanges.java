/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.route;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a {@link TableRoute} emits a record's changes. Tables are named as they were declared ({@link
 * RoutedTable#name()}); values are given as {@code PreparedStatement.setObject} would take them (Long,
 * String, BigDecimal, java.time types, byte[], ...), null for SQL NULL. A table the sink does not know, or
 * a row of the wrong width, fails the record with a message naming the table and what it expects.
 */
@PublicEvolving
public interface TableChanges {

    /**
     * Inserts {@code row} into {@code table}, or updates the row of its key: one value per declared column,
     * in their order.
     */
    void upsert(String table, Object... row);

    /** Deletes the row of {@code table} whose key columns hold {@code key}: one value per key column, in order. */
    void delete(String table, Object... key);
}
