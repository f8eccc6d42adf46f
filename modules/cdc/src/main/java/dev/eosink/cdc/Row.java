/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A key or a row image of a change event: its columns in the event's order, each with a value. Immutable.
 *
 * <p>Two modes, told apart by {@link #schema()}:
 *
 * <ul>
 *   <li><b>typed</b> (the event embedded its schema): each value is of its column's {@link ColumnType#javaType()},
 *       or null for SQL NULL;
 *   <li><b>schemaless</b>: each value is a {@link JsonScalar}, or null for SQL NULL (JSON null), to be converted
 *       against the target column's type ({@link SchemalessValues}).
 * </ul>
 *
 * A {@code byte[]} value is copied in and out: nobody changes a row through it.
 */
@PublicEvolving
public final class Row implements Serializable {

    private static final long serialVersionUID = 1L;

    private final List<String> columns;
    /** Values in column order; nulls are SQL NULL. */
    private final List<Object> values;
    /** Null in the schemaless mode. */
    private final RowSchema schema;

    /**
     * @param values the columns and their values, in the event's order (a {@link LinkedHashMap} keeps it)
     * @param schema the schema of a typed row, whose columns are exactly those of {@code values} in the same order;
     *     empty for a schemaless row
     * @throws IllegalArgumentException when a value is not of its column's Java type (typed) or not a
     *     {@link JsonScalar} (schemaless), or the columns differ from the schema's
     */
    public Row(LinkedHashMap<String, Object> values, Optional<RowSchema> schema) {
        this.columns = List.copyOf(values.keySet());
        this.schema = schema.orElse(null);
        List<Object> copied = new ArrayList<>(values.size());
        for (Map.Entry<String, Object> entry : values.entrySet()) {
            Object value = entry.getValue();
            check(entry.getKey(), value);
            copied.add(value instanceof byte[] bytes ? bytes.clone() : value);
        }
        this.values = Collections.unmodifiableList(copied);
        if (this.schema != null) {
            List<String> schemaColumns = new ArrayList<>();
            this.schema.columns().forEach(c -> schemaColumns.add(c.name()));
            if (!schemaColumns.equals(columns)) {
                throw new IllegalArgumentException(
                        "the row's columns " + columns + " are not its schema's " + schemaColumns);
            }
        }
    }

    private void check(String column, Object value) {
        if (value == null) {
            return;
        }
        Class<?> expected = schema == null
                ? JsonScalar.class
                : schema.column(column)
                        .orElseThrow(() -> new IllegalArgumentException("no column " + column + " in " + schema))
                        .type()
                        .javaType();
        if (!expected.isInstance(value)) {
            throw new IllegalArgumentException("column " + column + ": a "
                    + value.getClass().getName() + " where a " + expected.getName() + " belongs");
        }
    }

    /** The column names in the event's order; unmodifiable. */
    public List<String> columns() {
        return columns;
    }

    /** The schema of a typed row; empty for a schemaless one. */
    public Optional<RowSchema> schema() {
        return Optional.ofNullable(schema);
    }

    /** Whether the row has the column. */
    public boolean has(String column) {
        return columns.contains(column);
    }

    /**
     * The column's value: of its Java type (typed) or a {@link JsonScalar} (schemaless); null for SQL NULL.
     *
     * @throws IllegalArgumentException when the row has no such column
     */
    public Object value(String column) {
        int index = columns.indexOf(column);
        if (index < 0) {
            throw new IllegalArgumentException("no column " + column + " in " + columns);
        }
        Object value = values.get(index);
        return value instanceof byte[] bytes ? bytes.clone() : value;
    }

    /** {@link #value(String)} as that type; null for SQL NULL. */
    public <T> T value(String column, Class<T> type) {
        return type.cast(value(column));
    }

    /** The values in column order (byte arrays copied); unmodifiable, nulls for SQL NULL. */
    public List<Object> values() {
        List<Object> copy = new ArrayList<>(values.size());
        values.forEach(v -> copy.add(v instanceof byte[] bytes ? bytes.clone() : v));
        return Collections.unmodifiableList(copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Row other
                && columns.equals(other.columns)
                && Objects.equals(schema, other.schema)
                && Arrays.deepEquals(values.toArray(), other.values.toArray());
    }

    @Override
    public int hashCode() {
        return Objects.hash(columns, schema) * 31 + Arrays.deepHashCode(values.toArray());
    }

    /** Columns and values; byte arrays by their length, long texts cut: a row may be large. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i < columns.size(); i++) {
            Object value = values.get(i);
            String shown = value instanceof byte[] bytes ? "<" + bytes.length + " bytes>" : String.valueOf(value);
            text.append(i == 0 ? "" : ", ")
                    .append(columns.get(i))
                    .append('=')
                    .append(shown.length() > 60 ? shown.substring(0, 60) + "..." : shown);
        }
        return text.append('}').toString();
    }
}
