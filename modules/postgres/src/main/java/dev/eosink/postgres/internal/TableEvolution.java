/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.route.TableShape;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What an evolving routed table lacks for a {@link TableShape}, and the statements that add it, run in the
 * session's open transaction: {@code CREATE TABLE} for a missing table (the shape's columns and primary key),
 * {@code ALTER TABLE ... ADD COLUMN IF NOT EXISTS} for missing columns (always nullable: the table's rows have no
 * value for them). Both are repeatable: a restarted job that replays the shape finds them done, or, when the epoch
 * that made them was rolled back, makes them again. An existing column must {@linkplain TypeWidening hold} the
 * shape's type and the primary key must be the shape's key, else it refuses, naming table, column, both types and the
 * remedy: the sink never narrows, retypes or drops.
 *
 * <p>Why in the epoch's transaction: the new table or column becomes visible with the first rows that need it,
 * never before or without them, and a rolled-back epoch takes it back. The DDL's ACCESS EXCLUSIVE lock waits for
 * every transaction that touched the table, prepared ones included; the caller first waits for its own previous
 * commit, and the session's {@code lock_timeout} bounds a wait on other writers' transactions (the epoch then fails
 * and the job restarts, as for any lock timeout).
 */
final class TableEvolution {

    private final Connection c;
    private final IoWatchdog io;
    private final SubtaskContext context;

    TableEvolution(Connection c, IoWatchdog io, SubtaskContext context) {
        this.c = c;
        this.io = io;
        this.context = context;
    }

    /**
     * The statements that give the table the shape's columns, none when it has them.
     *
     * @throws SinkException when a column cannot hold the shape's type, or the key differs
     */
    List<String> statements(TableShape shape) throws SQLException, IOException {
        SqlIdentifier table = shape.table();
        Map<String, String> types = new LinkedHashMap<>();
        List<String> key = new ArrayList<>();
        java.util.Set<String> notNull = new java.util.HashSet<>();
        io.call("reading the columns of routed table " + table, () -> {
            read(table, types, key, notNull);
            return null;
        });
        if (types.isEmpty()) {
            return List.of("CREATE TABLE IF NOT EXISTS " + table.sql() + " ("
                    + shape.columns().stream()
                            .map(col -> SqlIdentifier.quote(col.name()) + " " + col.type()
                                    + (col.nullable() ? "" : " NOT NULL"))
                            .collect(Collectors.joining(", "))
                    + ", PRIMARY KEY ("
                    + shape.key().stream().map(SqlIdentifier::quote).collect(Collectors.joining(", ")) + "))");
        }
        if (!key.equals(shape.key())) {
            throw new SinkException(context + ": routed table " + table + " has "
                    + (key.isEmpty() ? "no primary key" : "the primary key " + key)
                    + ", but the changes routed to it are now keyed by " + shape.key()
                    + " (the source's key changed, or the table is another's). The sink adds columns only and never "
                    + "changes a key. Remedy: make the table's primary key " + shape.key()
                    + " (or replicate into a new "
                    + "table), then restart the job. " + PostgresErrors.SAME_AFTER_RESTART + ".");
        }
        List<String> added = new ArrayList<>();
        for (TableShape.Column col : shape.columns()) {
            String existing = types.get(col.name());
            if (existing == null) {
                added.add("ADD COLUMN IF NOT EXISTS " + SqlIdentifier.quote(col.name()) + " " + col.type());
                continue;
            }
            if (col.nullable() && notNull.contains(col.name()) && !key.contains(col.name())) {
                // The source now allows null where the column does not: relaxing it takes nothing from anyone.
                added.add("ALTER COLUMN " + SqlIdentifier.quote(col.name()) + " DROP NOT NULL");
            }
            if (!TypeWidening.holds(existing, col.type())) {
                throw new SinkException(context + ": routed table " + table + ", column " + col.name() + ": the "
                        + "column is " + existing + ", but the changes routed to it now carry " + col.type()
                        + ", which " + existing + " cannot hold every value of (the source's type changed). The sink "
                        + "adds columns only and never retypes one. Remedy: ALTER TABLE " + table + " ALTER COLUMN "
                        + SqlIdentifier.quote(col.name()) + " TYPE " + col.type() + " (or a type that holds it), then "
                        + "restart the job. " + PostgresErrors.SAME_AFTER_RESTART + ".");
            }
        }
        return added.isEmpty() ? List.of() : List.of("ALTER TABLE " + table.sql() + " " + String.join(", ", added));
    }

    /** Runs {@code statements} in the session's open transaction. */
    void apply(TableShape shape, List<String> statements) throws IOException {
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                io.call("evolving routed table " + shape.table(), () -> s.execute(sql));
            }
        } catch (SQLException e) {
            String remedy;
            if ("42501".equals(e.getSQLState())) {
                remedy = "Remedy: let the sink's role create tables in the schema and own the tables it widens "
                        + "(GRANT CREATE ON SCHEMA ...; ALTER TABLE ... OWNER TO the role: see sql/02-sink-role.sql), "
                        + "or create the table or column yourself";
            } else if ("55P03".equals(e.getSQLState())) {
                remedy = "Another transaction holds the table (a writer's prepared transaction waiting for its "
                        + "checkpoint, or a reader): the job restarts and tries again";
            } else {
                remedy = "Remedy: check the statement against the table";
            }
            throw new SinkException(
                    context + ": evolving routed table " + shape.table() + " to " + shape + " failed: "
                            + Catalog.oneLine(e) + " (SQLSTATE " + e.getSQLState() + "; statement " + statements
                            + "). " + remedy + ". Nothing of this epoch becomes visible.",
                    e);
        }
    }

    private void read(SqlIdentifier table, Map<String, String> types, List<String> key) throws SQLException {
        read(table, types, key, new java.util.HashSet<>());
    }

    private void read(SqlIdentifier table, Map<String, String> types, List<String> key, java.util.Set<String> notNull)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod), "
                // indkey is an int2vector, whose array starts at 0 (a position of 0 is a key column): hence + 1.
                + "coalesce(array_position(i.indkey::int2[], a.attnum) + 1, 0), a.attnotnull FROM pg_attribute a "
                + "LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
                + "WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            s.setString(1, table.sql());
            Map<Integer, String> keyByPosition = new TreeMap<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    types.put(rs.getString(1), rs.getString(2));
                    if (rs.getBoolean(4)) {
                        notNull.add(rs.getString(1));
                    }
                    if (rs.getInt(3) > 0) {
                        keyByPosition.put(rs.getInt(3), rs.getString(1));
                    }
                }
            }
            key.addAll(keyByPosition.values());
        }
    }

    /** The table's columns in their order, none when it does not exist. */
    List<String> columns(SqlIdentifier table) throws SQLException, IOException {
        Map<String, String> types = new LinkedHashMap<>();
        io.call("reading the columns of routed table " + table, () -> {
            read(table, types, new ArrayList<>());
            return null;
        });
        return new ArrayList<>(types.keySet());
    }

    /** The table's primary key columns in the key's order, none when it has none. */
    List<String> primaryKey(SqlIdentifier table) throws SQLException, IOException {
        List<String> key = new ArrayList<>();
        io.call("reading the key of routed table " + table, () -> {
            read(table, new LinkedHashMap<>(), key);
            return null;
        });
        return key;
    }
}
