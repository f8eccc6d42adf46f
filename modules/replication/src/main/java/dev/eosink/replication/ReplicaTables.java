/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableRoute;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.java.functions.KeySelector;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The tables a replication writes, each a source table and the target table of the same name in one target
 * schema, as the target database's catalog describes them: every column, in the table's order, with its type,
 * and the primary key as the key. Read once, when the job is built; immutable.
 */
@PublicEvolving
public final class ReplicaTables implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Map<String, ReplicaTable> bySource;

    private ReplicaTables(Map<String, ReplicaTable> bySource) {
        this.bySource = bySource;
    }

    /** The tables as given, each found by its {@link ReplicaTable#source()}. */
    public static ReplicaTables of(List<ReplicaTable> tables) {
        Map<String, ReplicaTable> bySource = new LinkedHashMap<>();
        for (ReplicaTable t : tables) {
            if (bySource.putIfAbsent(t.source(), t) != null) {
                throw new IllegalArgumentException("source table " + t.source() + " is given twice");
            }
        }
        if (bySource.isEmpty()) {
            throw new IllegalArgumentException("give at least one table to replicate");
        }
        return new ReplicaTables(bySource);
    }

    /**
     * Reads, on {@code c}, the target tables in {@code targetSchema} named as the source tables' ({@code
     * public.accounts} goes to {@code targetSchema.accounts}).
     *
     * @param sourceTables the source tables as Debezium names them, {@code schema.table}
     * @throws IllegalArgumentException when a target table is missing or has no primary key, naming it and the
     *     remedy
     */
    public static ReplicaTables read(Connection c, String targetSchema, List<String> sourceTables) throws SQLException {
        List<ReplicaTable> tables = new ArrayList<>();
        for (String source : sourceTables) {
            String table = source.substring(source.lastIndexOf('.') + 1);
            tables.add(readOne(c, source, targetSchema, table));
        }
        return of(tables);
    }

    private static ReplicaTable readOne(Connection c, String source, String schema, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        List<String> types = new ArrayList<>();
        List<String> key = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod), "
                // indkey is an int2vector, whose array starts at 0 (a position of 0 is a key column): hence + 1.
                + "coalesce(array_position(i.indkey::int2[], a.attnum) + 1, 0) FROM pg_class t "
                + "JOIN pg_namespace n ON n.oid = t.relnamespace "
                + "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped "
                + "LEFT JOIN pg_index i ON i.indrelid = t.oid AND i.indisprimary "
                + "WHERE n.nspname = ? AND t.relname = ? ORDER BY a.attnum")) {
            s.setString(1, schema);
            s.setString(2, table);
            Map<Integer, String> keyByPosition = new java.util.TreeMap<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.add(rs.getString(1));
                    types.add(rs.getString(2));
                    if (rs.getInt(3) > 0) {
                        keyByPosition.put(rs.getInt(3), rs.getString(1));
                    }
                }
            }
            key.addAll(keyByPosition.values());
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("target table " + schema + "." + table + " of source table " + source
                    + " does not exist. Remedy: create it (its columns named as the source's), or leave the source "
                    + "table out");
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("target table " + schema + "." + table + " has no primary key, which "
                    + "replication upserts and deletes by. Remedy: ALTER TABLE " + schema + "." + table
                    + " ADD PRIMARY KEY (the source's key columns)");
        }
        return new ReplicaTable(source, RoutedTable.of(schema, table, columns, key), types);
    }

    /** The tables, in the order given. */
    public List<ReplicaTable> tables() {
        return List.copyOf(bySource.values());
    }

    /** The replica of the source table Debezium names {@code dataCollection} ({@code schema.table}). */
    public Optional<ReplicaTable> forSource(String dataCollection) {
        return Optional.ofNullable(bySource.get(dataCollection));
    }

    /** The target tables, for a sink, with {@code route}: the job distributes the records (see RoutedTables). */
    public <IN> RoutedTables<IN> routed(TableRoute<IN> route) {
        return builder(route).build();
    }

    /**
     * The target tables, for a sink, with {@code route}, the sink distributing its input by {@code group}
     * ({@code RoutedTables.Builder.groupedBy}): {@link ChangeEventRoute#byKey()} for per-key mode.
     */
    public <IN> RoutedTables<IN> routed(TableRoute<IN> route, KeySelector<IN, ?> group) {
        return builder(route).groupedBy(group).build();
    }

    private <IN> RoutedTables.Builder<IN> builder(TableRoute<IN> route) {
        RoutedTables.Builder<IN> tables = RoutedTables.route(route);
        bySource.values().forEach(t -> tables.table(t.target()));
        return tables;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof ReplicaTables other && bySource.equals(other.bySource);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bySource);
    }

    @Override
    public String toString() {
        return "ReplicaTables" + bySource.values();
    }
}
