/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableChanges;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the routed tables must hold: the route's changes applied in record order, one table at a time, as
 * text (each table: its rows by key, sorted), and the same read back from the database.
 */
final class TablesModel implements TableChanges {

    private final Map<String, RoutedTable> tables = new HashMap<>();
    private final Map<String, Map<String, String>> rows = new TreeMap<>();

    TablesModel(RoutedTables<?> declared, Map<String, List<String>> initial) {
        declared.tables().forEach(t -> {
            tables.put(t.name(), t);
            rows.put(t.name(), new TreeMap<>());
        });
        initial.forEach((table, values) -> values.forEach(v -> {
            String[] parts = v.split(",");
            upsert(table, (Object[]) parts);
        }));
    }

    static <IN> TablesModel replay(RoutedTables<IN> declared, Map<String, List<String>> initial, Iterable<IN> records)
            throws Exception {
        TablesModel model = new TablesModel(declared, initial);
        for (IN record : records) {
            declared.route().route(record, model);
        }
        return model;
    }

    @Override
    public void upsert(String table, Object... row) {
        rows.get(table).put(key(table, row), text(row));
    }

    @Override
    public void delete(String table, Object... key) {
        rows.get(table).remove(text(key));
    }

    private String key(String table, Object[] row) {
        int[] keys = tables.get(table).keyIndexes();
        Object[] key = new Object[keys.length];
        for (int k = 0; k < keys.length; k++) {
            key[k] = row[keys[k]];
        }
        return text(key);
    }

    private static String text(Object[] values) {
        List<String> text = new ArrayList<>();
        for (Object v : values) {
            text.add(String.valueOf(v));
        }
        return String.join(",", text);
    }

    /** Every table's rows, keyed by table name then key. */
    Map<String, Map<String, String>> rows() {
        return rows;
    }

    /** The same tables as the database holds them now. */
    Map<String, Map<String, String>> read(Connection c) throws SQLException {
        Map<String, Map<String, String>> read = new TreeMap<>();
        for (RoutedTable t : tables.values()) {
            Map<String, String> table = new TreeMap<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT " + String.join(", ", t.columns()) + " FROM "
                            + t.table().sql())) {
                while (rs.next()) {
                    Object[] row = new Object[t.columns().size()];
                    for (int col = 0; col < row.length; col++) {
                        row[col] = rs.getString(col + 1);
                    }
                    table.put(key(t.name(), row), text(row));
                }
            }
            read.put(t.name(), table);
        }
        return read;
    }

    @Override
    public List<String> columns(String table) {
        return tables.get(table).columns();
    }

    @Override
    public void truncate(String table) {
        rows.get(table).clear();
    }

    @Override
    public void evolve(dev.eosink.jdbc.route.TableShape shape) {
        throw new UnsupportedOperationException("the model's tables are fixed");
    }
}
