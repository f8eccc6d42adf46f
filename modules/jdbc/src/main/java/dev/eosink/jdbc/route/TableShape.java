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
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a table must have for a record's changes, as its source describes it (a change event's schema): columns with
 * their SQL types and the key. A route of an {@linkplain RoutedTables.Builder#evolving() evolving} sink gives it to
 * {@link TableChanges#evolve} before the record's changes, and the sink makes the table so: it creates a missing
 * table, adds a missing column, and refuses a column whose type cannot hold the shape's or a key that differs.
 * Immutable; equal when table, columns and key are.
 */
@PublicEvolving
public final class TableShape implements Serializable {

    private static final long serialVersionUID = 1L;

    private final SqlIdentifier table;
    private final List<Column> columns;
    private final List<String> key;

    private TableShape(SqlIdentifier table, List<Column> columns, List<String> key) {
        this.table = table;
        this.columns = columns;
        this.key = key;
    }

    /**
     * A table in {@code schema} (null: the connection's default) with {@code columns}, keyed by {@code key}
     * (among the columns).
     *
     * @throws IllegalArgumentException when a list is empty, a column is given twice, or a key column is not
     *     among the columns
     */
    public static TableShape of(String schema, String table, List<Column> columns, List<String> key) {
        SqlIdentifier id = new SqlIdentifier(schema, table);
        List<Column> cols = List.copyOf(columns);
        List<String> keys = List.copyOf(key);
        List<String> names = cols.stream().map(Column::name).collect(Collectors.toList());
        if (cols.isEmpty() || keys.isEmpty()) {
            throw new IllegalArgumentException("table " + id + ": a shape needs at least one column and one key "
                    + "column (a table without a key cannot take upserts and deletes); columns " + names + ", key "
                    + keys);
        }
        if (new HashSet<>(names).size() != names.size() || new HashSet<>(keys).size() != keys.size()) {
            throw new IllegalArgumentException("table " + id + ": a column is given twice: " + names + ", key " + keys);
        }
        if (!names.containsAll(keys)) {
            throw new IllegalArgumentException(
                    "table " + id + ": the key " + keys + " must be among the columns " + names);
        }
        return new TableShape(id, cols, keys);
    }

    /** The name a {@link TableRoute} gives it: {@code schema.table}, or {@code table} without a schema. */
    public String name() {
        return table.schema() == null ? table.name() : table.schema() + "." + table.name();
    }

    /** The table's schema (null: the connection's default) and name. */
    public SqlIdentifier table() {
        return table;
    }

    /** The columns, in the source's order; unmodifiable. */
    public List<Column> columns() {
        return columns;
    }

    /** The key columns, in the key's order; unmodifiable. */
    public List<String> key() {
        return key;
    }

    /** The column of that name; empty when there is none. */
    public Optional<Column> column(String name) {
        return columns.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof TableShape other
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

    /**
     * One column of a shape: its name (case-sensitive), the SQL type that holds its values ({@code bigint},
     * {@code numeric(12,2)}, {@code timestamp(6)}) and whether it may hold null. Immutable.
     */
    @PublicEvolving
    public static final class Column implements Serializable {

        private static final long serialVersionUID = 1L;

        private final String name;
        private final String type;
        private final boolean nullable;

        /**
         * @param type the SQL type as the database would write it; pasted into {@code CREATE TABLE} and
         *     {@code ALTER TABLE}, so it must come from a mapping of source types, never from a record's data
         */
        public Column(String name, String type, boolean nullable) {
            this.name = Objects.requireNonNull(name, "name");
            this.type = Objects.requireNonNull(type, "type");
            new SqlIdentifier(null, name); // validates the name
            if (type.isBlank() || type.indexOf(';') >= 0 || type.indexOf('\0') >= 0 || type.contains("--")) {
                throw new IllegalArgumentException("column " + name + ": not a SQL type: " + type);
            }
            this.nullable = nullable;
        }

        /** The column's name, as given (case-sensitive). */
        public String name() {
            return name;
        }

        /** The column's SQL type, as the database would write it. */
        public String type() {
            return type;
        }

        /** Whether the column takes NULL. */
        public boolean nullable() {
            return nullable;
        }

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Column other
                            && name.equals(other.name)
                            && type.equals(other.type)
                            && nullable == other.nullable;
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, type, nullable);
        }

        @Override
        public String toString() {
            return name + " " + type + (nullable ? "" : " NOT NULL");
        }
    }
}
