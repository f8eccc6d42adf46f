/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.route;

import org.apache.flink.annotation.PublicEvolving;

import java.util.List;

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

    /**
     * Deletes every row of {@code table}, as a {@code TRUNCATE} at the source did: the changes routed to it before
     * are dropped, those after it apply to the emptied table. The rows go by {@code DELETE} in the epoch's
     * transaction, so readers see them go with the commit, as any other change; tables that others refer to are
     * emptied after them (children first). A table an {@linkplain RoutedTables.Builder#evolving() evolving} sink
     * never made is left alone.
     */
    void truncate(String table);

    /**
     * The columns {@code table} has now, in the order {@link #upsert} takes their values: the declared ones, and
     * for an {@linkplain RoutedTables.Builder#evolving() evolving} sink the table's columns as {@link #evolve} left
     * them (a column the source no longer has stays; give it null).
     *
     * @throws IllegalArgumentException when the sink neither declares the table nor made it in {@link #evolve}
     */
    List<String> columns(String table);

    /**
     * Makes the shape's table hold the record's changes, before any of them: an evolving sink creates a missing
     * table (the shape's columns and primary key) and adds the columns it lacks (nullable), in the epoch's
     * transaction, so they become visible with the record's rows; repeating a shape costs a comparison. Additive
     * only: a column whose type cannot hold the shape's (narrower, or another kind), or a key other than the
     * shape's, fails the record naming table, column, both types and the remedy. A sink that is not evolving
     * accepts a shape its declared table already has and refuses any other, naming {@code evolving()}.
     *
     * @throws IllegalStateException when the record already made a change (shapes come first)
     */
    void evolve(TableShape shape);
}
