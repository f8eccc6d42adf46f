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
 *
 * <p>Two modes. {@link #read} replicates into tables that exist and stay as they are: an event must have every
 * target column. {@link #readEvolving} has the sink create a missing table from the first event's schema and add
 * the columns later events bring, in the transaction of the rows that need them (additive only: see {@code
 * TableChanges.evolve}); the existing tables are read as for {@link #read}, so that their foreign keys order the
 * sink's statements.
 */
@PublicEvolving
public final class ReplicaTables implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Map<String, ReplicaTable> bySource;
    /** Every source table's target table, {@code schema.table}, existing or not. */
    private final Map<String, String> targets;

    private final boolean evolving;

    private ReplicaTables(Map<String, ReplicaTable> bySource, Map<String, String> targets, boolean evolving) {
        this.bySource = bySource;
        this.targets = targets;
        this.evolving = evolving;
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
        Map<String, String> targets = new LinkedHashMap<>();
        bySource.forEach((source, t) -> targets.put(source, t.target().name()));
        return new ReplicaTables(bySource, targets, false);
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

    /**
     * Reads, on {@code c}, the target tables in {@code targetSchema} named as the source tables', as {@link #read}
     * does, but for a replication that creates the missing ones and adds columns ({@link ReplicaTables}): a
     * missing target table is no error, and needs events with their schema.
     *
     * @param sourceTables the source tables as Debezium names them, {@code schema.table}
     * @throws IllegalArgumentException when an existing target table has no primary key, naming it and the remedy
     */
    public static ReplicaTables readEvolving(Connection c, String targetSchema, List<String> sourceTables)
            throws SQLException {
        Map<String, ReplicaTable> bySource = new LinkedHashMap<>();
        Map<String, String> targets = new LinkedHashMap<>();
        for (String source : sourceTables) {
            String table = source.substring(source.lastIndexOf('.') + 1);
            if (targets.put(source, targetSchema + "." + table) != null) {
                throw new IllegalArgumentException("source table " + source + " is given twice");
            }
            if (exists(c, targetSchema, table)) {
                bySource.put(source, readOne(c, source, targetSchema, table));
            }
        }
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("give at least one table to replicate");
        }
        return new ReplicaTables(bySource, targets, true);
    }

    private static boolean exists(Connection c, String schema, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM pg_class t JOIN pg_namespace n "
                + "ON n.oid = t.relnamespace WHERE n.nspname = ? AND t.relname = ?")) {
            s.setString(1, schema);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
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

    /** The tables, in the order given; for {@link #readEvolving}, those that existed. */
    public List<ReplicaTable> tables() {
        return List.copyOf(bySource.values());
    }

    /** The source tables, in the order given. */
    public List<String> sources() {
        return List.copyOf(targets.keySet());
    }

    /** Whether the sink creates and widens the target tables ({@link #readEvolving}). */
    public boolean evolving() {
        return evolving;
    }

    /** The name of a source table's target table, {@code schema.table}, as the sink's route names it. */
    public Optional<String> targetOf(String dataCollection) {
        return Optional.ofNullable(targets.get(dataCollection));
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
        return evolving ? tables.evolving() : tables;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof ReplicaTables other
                        && bySource.equals(other.bySource)
                        && targets.equals(other.targets)
                        && evolving == other.evolving;
    }

    @Override
    public int hashCode() {
        return Objects.hash(bySource, targets, evolving);
    }

    @Override
    public String toString() {
        return "ReplicaTables" + bySource.values() + (evolving ? " evolving into " + targets.values() : "");
    }
}
