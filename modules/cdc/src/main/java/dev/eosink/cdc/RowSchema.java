/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The embedded schema of a key or of a row: its columns in the event's order, and the name Debezium gave the struct
 * ({@code <topic.prefix>.<schema>.<table>.Key} or {@code .Value}). Immutable.
 */
@PublicEvolving
public final class RowSchema implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Null when the struct has no name. */
    private final String name;

    private final List<ColumnSchema> columns;

    /**
     * @param name the struct's {@code name}; empty when it has none
     * @param columns the columns in the event's order, each name once
     */
    public RowSchema(Optional<String> name, List<ColumnSchema> columns) {
        this.name = name.orElse(null);
        this.columns = List.copyOf(columns);
        List<String> seen = new ArrayList<>();
        for (ColumnSchema column : this.columns) {
            if (seen.contains(column.name())) {
                throw new IllegalArgumentException("column " + column.name() + " twice in schema " + name);
            }
            seen.add(column.name());
        }
    }

    /** The name Debezium gave the struct; empty when the schema names none. */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /** The columns in the event's order; unmodifiable. */
    public List<ColumnSchema> columns() {
        return columns;
    }

    /** The column of that name; empty when there is none. */
    public Optional<ColumnSchema> column(String columnName) {
        for (ColumnSchema column : columns) {
            if (column.name().equals(columnName)) {
                return Optional.of(column);
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowSchema other && Objects.equals(name, other.name) && columns.equals(other.columns);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, columns);
    }

    @Override
    public String toString() {
        return (name == null ? "" : name + " ") + columns;
    }
}
