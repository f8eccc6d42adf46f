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
 * A source table as Debezium names it in an event's {@code source} block: the table, within a schema and a database
 * when the connector gives them (PostgreSQL gives all three, MySQL a database and no schema). Immutable.
 */
@PublicEvolving
public final class TableId implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Null when the connector gives none. */
    private final String database;
    /** Null when the connector gives none. */
    private final String schema;

    private final String table;

    /**
     * @param database the source's {@code db}, empty when the connector has none
     * @param schema the source's {@code schema}, empty when the connector has none
     * @param table the source's {@code table}, never empty
     */
    public TableId(Optional<String> database, Optional<String> schema, String table) {
        this.database = database.orElse(null);
        this.schema = schema.orElse(null);
        this.table = Objects.requireNonNull(table, "table");
        if (table.isEmpty()) {
            throw new IllegalArgumentException("a table name is never empty");
        }
    }

    /** The source database, when the connector names one. */
    public Optional<String> database() {
        return Optional.ofNullable(database);
    }

    /** The source schema, when the connector names one (PostgreSQL does, MySQL does not). */
    public Optional<String> schema() {
        return Optional.ofNullable(schema);
    }

    /** The table's name, without schema or database. */
    public String table() {
        return table;
    }

    /**
     * The name Debezium's transaction metadata uses for this table, its {@code data_collection}: schema and table for
     * a connector with schemas ({@code public.orders}), else database and table ({@code shop.orders}).
     */
    public String dataCollection() {
        String qualifier = schema != null ? schema : database;
        return qualifier == null ? table : qualifier + "." + table;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableId other
                && Objects.equals(database, other.database)
                && Objects.equals(schema, other.schema)
                && table.equals(other.table);
    }

    @Override
    public int hashCode() {
        return Objects.hash(database, schema, table);
    }

    /** Database, schema and table joined by dots, those absent left out. */
    @Override
    public String toString() {
        return (database == null ? "" : database + ".") + (schema == null ? "" : schema + ".") + table;
    }
}
