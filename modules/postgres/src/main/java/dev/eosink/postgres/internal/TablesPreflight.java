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
        List<WritePlan.RoutedTablePlan> tables = new ArrayList<>();
        for (RoutedTable table : TableOrder.of(c, context, routes.tables())) {
            checks.checkTable(table.table(), table.columns(), false);
            List<String> missing = missingPrivileges(c, table.table(), "UPDATE", "DELETE");
            if (!missing.isEmpty()) {
                String role = currentRole(c);
                throw new MisconfigurationException(context + ": the role " + role + " lacks " + missing
                        + " on routed table " + table.table() + ", whose changes it upserts and deletes. Remedy: GRANT "
                        + "INSERT, UPDATE, DELETE ON " + table.table() + " TO " + role
                        + " (see sql/02-sink-role.sql).");
            }
            List<String> casts = checks.columnTypes(table.table(), table.columns(), false).stream()
                    .map(TargetColumn::cast)
                    .collect(Collectors.toList());
            KeyColumns keys = KeyColumns.read(c, table.table(), table.key());
            if (keys.unsupported() != null) {
                throw new MisconfigurationException(context + ": routed table " + table.table() + ": "
                        + keys.unsupported() + ". Remedy: give the key column a deterministic collation.");
            }
            WritePlan.RoutedTablePlan plan = new WritePlan.RoutedTablePlan(table, casts, keys);
            checks.checkUpsertKey(table.table(), table.key(), plan.newBuffer());
            tables.add(plan);
        }
        return new WritePlan.Tables<>(routes.route(), tables);
    }
}
