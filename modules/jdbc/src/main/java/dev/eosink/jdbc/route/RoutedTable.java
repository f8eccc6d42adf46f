/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.route;

import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * One table a routed sink writes: its name, the columns an upsert gives values for, and the key that
 * upserts and deletes go by (the columns of a primary key or unique index of the table, which the sink
 * checks at start). Immutable.
 */
@PublicEvolving
public final class RoutedTable implements Serializable {

    private static final long serialVersionUID = 1L;

    private final SqlIdentifier table;
    private final List<String> columns;
    private final List<String> key;

    private RoutedTable(SqlIdentifier table, List<String> columns, List<String> key) {
        this.table = table;
        this.columns = columns;
        this.key = key;
    }

    /**
     * A table in {@code schema} (null: the connection's default, through the search_path) with {@code
     * columns}, keyed by {@code key} (among the columns). Case-sensitive: quoted as given.
     *
     * @throws IllegalArgumentException when a list is empty, a column is listed twice, or a key column is
     *     not among the columns
     */
    public static RoutedTable of(String schema, String table, List<String> columns, List<String> key) {
        SqlIdentifier id = new SqlIdentifier(schema, table);
        List<String> cols = List.copyOf(columns);
        List<String> keys = List.copyOf(key);
        if (cols.isEmpty() || keys.isEmpty()) {
            throw new IllegalArgumentException("table " + id + ": give at least one column and one key column; "
                    + "a table without a key cannot take upserts and deletes");
        }
        if (new HashSet<>(cols).size() != cols.size() || new HashSet<>(keys).size() != keys.size()) {
            throw new IllegalArgumentException("table " + id + ": a column is listed twice: " + cols + ", key " + keys);
        }
        if (!cols.containsAll(keys)) {
            throw new IllegalArgumentException(
                    "table " + id + ": the key " + keys + " must be among the columns " + cols);
        }
        cols.forEach(c -> new SqlIdentifier(null, c)); // validates each
        return new RoutedTable(id, cols, keys);
    }

    /** The name a {@link TableRoute} gives it: {@code schema.table}, or {@code table} without a schema. */
    public String name() {
        return table.schema() == null ? table.name() : table.schema() + "." + table.name();
    }

    /** The table's schema (null: the connection's default) and name. */
    public SqlIdentifier table() {
        return table;
    }

    /** The columns the route writes, in the order of the route's values; unmodifiable. */
    public List<String> columns() {
        return columns;
    }

    /** The key columns, by which a change upserts or deletes a row; each among {@link #columns()}, unmodifiable. */
    public List<String> key() {
        return key;
    }

    /** Where each key column is among the columns. */
    public int[] keyIndexes() {
        return key.stream().mapToInt(columns::indexOf).toArray();
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof RoutedTable other
                        && table.equals(other.table)
                        && columns.equals(other.columns)
                        && key.equals(other.key);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, columns, key);
    }

    @Override
    public String toString() {
        return table + " " + columns + " key " + key;
    }
}
