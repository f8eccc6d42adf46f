/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.postgres.row.TargetColumn;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static dev.eosink.postgres.internal.Catalog.currentRole;
import static dev.eosink.postgres.internal.Catalog.missingPrivileges;

/**
 * The {@link Preflight}'s checks of a routed sink's tables, each as a table of an upsert sink (it exists, may
 * take inserts, updates and deletes, has the columns, and a unique index on exactly the key), and the order
 * its foreign keys ask for ({@link TableOrder}).
 */
final class TablesPreflight {

    private final Preflight<?> checks;
    private final Connection c;
    private final SubtaskContext context;

    TablesPreflight(Preflight<?> checks, Connection c, SubtaskContext context) {
        this.checks = checks;
        this.c = c;
        this.context = context;
    }

    <IN> WritePlan<IN> plan(RoutedTables<IN> routes) throws SQLException, SinkException {
        if (routes.evolving()) {
            return evolving(routes);
        }
        List<WritePlan.RoutedTablePlan> tables = new ArrayList<>();
        TableOrder order = TableOrder.read(c, context, routes.tables());
        for (RoutedTable table : order.order()) {
            tables.add(planOne(table, order.isParent(table)));
        }
        return new WritePlan.Tables<>(routes.route(), tables, WritePlan.Fixed.FIXED);
    }

    /**
     * An evolving sink's plan: only the order its foreign keys ask for, read from the catalog. Each table is checked
     * and planned when first used ({@link TableShapes}): a declared table may be missing (a shape creates it), or be
     * locked by a transaction of an earlier run that altered it, which the restore rolls back only after this check.
     */
    private <IN> WritePlan<IN> evolving(RoutedTables<IN> routes) throws SQLException, SinkException {
        if (context.parallelism() > 1) {
            throw new MisconfigurationException(context + ": routed " + routes.describe() + " are evolving, at "
                    + "parallelism " + context.parallelism() + ". A table's DDL waits for every transaction on the "
                    + "table, the other subtasks' prepared ones among them, whose commits wait for this subtask's "
                    + "barrier: a deadlock PostgreSQL cannot see, met again after every restart. Remedy: run the sink "
                    + "at parallelism 1 (one consistency group), create and widen the tables beforehand and build them "
                    + "without evolving(), or give each subtask tables of its own.");
        }
        List<RoutedTable> existing = new ArrayList<>();
        List<RoutedTable> missing = new ArrayList<>();
        for (RoutedTable t : routes.tables()) {
            (Catalog.exists(c, t.table()) ? existing : missing).add(t);
        }
        TableOrder order = TableOrder.read(c, context, existing);
        List<RoutedTable> ranked = new ArrayList<>(order.order());
        ranked.addAll(missing);
        java.util.Set<String> parents = new java.util.HashSet<>();
        for (RoutedTable t : existing) {
            if (order.isParent(t)) {
                parents.add(t.name());
            }
        }
        return new WritePlan.Tables<>(routes.route(), List.of(), new WritePlan.Evolving(this, ranked, parents));
    }

    /**
     * Checks one table as an upsert sink's and plans its statements: at start, and when an evolving sink created or
     * widened the table (then on the session's connection, inside the epoch's transaction, which sees the change).
     */
    WritePlan.RoutedTablePlan planOne(RoutedTable table, boolean parent) throws SQLException, SinkException {
        checks.checkTable(table.table(), table.columns(), false);
        List<String> missing = missingPrivileges(c, table.table(), "UPDATE", "DELETE");
        if (!missing.isEmpty()) {
            String role = currentRole(c);
            throw new MisconfigurationException(context + ": the role " + role + " lacks " + missing
                    + " on routed table " + table.table() + ", whose changes it upserts and deletes. Remedy: GRANT "
                    + "INSERT, UPDATE, DELETE ON " + table.table() + " TO " + role
                    + " (see sql/02-sink-role.sql).");
        }
        List<TargetColumn> types = checks.columnTypes(table.table(), table.columns(), false);
        List<String> casts = types.stream().map(TargetColumn::cast).collect(Collectors.toList());
        KeyColumns keys = KeyColumns.read(c, table.table(), table.key());
        if (keys.unsupported() != null || keys.databaseDecides()) {
            // The database's own merge runs a run's deletes with its upserts, in one statement, which the
            // order of the foreign keys needs apart.
            throw new MisconfigurationException(context + ": routed table " + table.table() + ": "
                    + (keys.unsupported() != null ? keys.unsupported() : keys.whyDatabaseDecides())
                    + ", so only the database can tell which changes share a key, which a routed table cannot "
                    + "use. Remedy: give the key column a type and collation that compare exactly (text with a "
                    + "deterministic collation instead of citext), or write the table with a sink of its own "
                    + "(upsert(...)).");
        }
        WritePlan.RoutedTablePlan plan = new WritePlan.RoutedTablePlan(table, casts, keys, parent, typeNames(types));
        checks.checkUpsertKey(table.table(), table.key(), plan.newBuffer());
        return plan;
    }

    SubtaskContext context() {
        return context;
    }

    private static List<String> typeNames(List<TargetColumn> types) {
        return types.stream().map(TargetColumn::typeName).collect(Collectors.toList());
    }
}
