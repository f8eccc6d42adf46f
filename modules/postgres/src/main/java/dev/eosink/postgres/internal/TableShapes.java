/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.TableShape;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The route's {@linkplain dev.eosink.jdbc.route.TableChanges#evolve shapes} for a {@link TablesPath}: with a
 * {@link WritePlan.Fixed} sink, a check that the declared table has the shape; with a {@link WritePlan.Evolving} one,
 * the table created or widened ({@link TableEvolution}) and planned anew, its buffered changes moved into the new
 * buffer, which takes the old one's place in the path's run order (a created table goes last: no routed table's key
 * refers to it). A shape that was found in place before costs a comparison.
 */
final class TableShapes {

    /** The path's tables, in run order, and by name: changed in place. */
    private final List<TableBuffer> order;

    private final Map<String, TableBuffer> byName;
    private final WritePlan.Evolution evolution;
    private final Connection connection;
    private final IoWatchdog io;
    private final Map<String, TableShape> found = new HashMap<>();

    TableShapes(
            List<TableBuffer> order,
            Map<String, TableBuffer> byName,
            WritePlan.Evolution evolution,
            Connection connection,
            IoWatchdog io) {
        this.order = order;
        this.byName = byName;
        this.evolution = evolution;
        this.connection = connection;
        this.io = io;
    }

    boolean evolving() {
        return evolution instanceof WritePlan.Evolving;
    }

    /**
     * Gives the shape's table what it lacks, or checks that a fixed one has it.
     *
     * @param preparedThisRun whether the writer prepared a transaction since it started
     */
    void evolve(TableShape shape, OwnCommits ownCommits, boolean preparedThisRun) throws SQLException, IOException {
        if (shape.equals(found.get(shape.name()))) {
            return;
        }
        TableBuffer t = byName.get(shape.name());
        List<String> names =
                shape.columns().stream().map(TableShape.Column::name).collect(Collectors.toList());
        if (evolution instanceof WritePlan.Evolving evolving) {
            TableEvolution tables =
                    new TableEvolution(connection, io, evolving.planner().context());
            List<String> ddl = tables.statements(shape);
            if (!ddl.isEmpty()) {
                // The previous epoch's prepared transaction may hold locks on the table until its commit, which the
                // DDL would wait for: wait for that commit first. When it cannot be waited for (its checkpoint was
                // declined or was a savepoint), it commits only with a later checkpoint, whose barrier this thread
                // would hold up: restart instead, which rolls it back. A restored run that prepared nothing yet has
                // no such transaction (the restore finished the earlier run's), so its DDL goes ahead.
                if (ownCommits.pending() && !ownCommits.await() && preparedThisRun) {
                    throw new SinkException(evolving.planner().context() + ": routed table " + shape.table()
                            + " must change (" + String.join("; ", ddl) + ") while this writer's previous "
                            + "transaction, which may lock the table, cannot commit yet: its checkpoint was declined, "
                            + "or was a savepoint, and it commits only with a later checkpoint, whose barrier this "
                            + "writer would hold up. The job restarts from its last completed checkpoint (that "
                            + "transaction is rolled back, its records replayed) and changes the table then. Nothing of "
                            + "this epoch becomes visible.");
                }
                tables.apply(shape, ddl);
            }
            if (t == null || !t.table().columns().containsAll(names)) {
                replan(shape, t, tables, evolving);
            }
        } else if (t == null
                || !t.table().columns().containsAll(names)
                || !t.table().key().equals(shape.key())) {
            throw new IllegalArgumentException(
                    "the route gives table " + shape.name() + " the shape " + shape
                            + ", which "
                            + (t == null ? "the sink does not declare" : "its declaration " + t.table() + " lacks")
                            + ", and the sink's tables are not evolving. Remedy: declare the table with those columns and key, "
                            + "or build the tables with RoutedTables.Builder.evolving() to have the sink create and widen them");
        }
        found.put(shape.name(), shape);
    }

    /** Plans the table anew with every column it now has; its buffered changes move over. */
    private void replan(TableShape shape, TableBuffer old, TableEvolution tables, WritePlan.Evolving evolving)
            throws SQLException, IOException {
        RoutedTable declared = RoutedTable.of(
                shape.table().schema(), shape.table().name(), tables.columns(shape.table()), shape.key());
        TableBuffer fresh = evolving.planner()
                .planOne(declared, old != null && old.parent())
                .newTableBuffer();
        if (old == null) {
            order.add(fresh);
        } else {
            Optional<byte[]> pending = old.carried();
            if (pending.isPresent()) {
                fresh.loadCarried(pending.get(), true);
            }
            order.set(order.indexOf(old), fresh);
        }
        byName.put(shape.name(), fresh);
    }

    /**
     * For a table the sink does not declare that an evolving sink made before (in the epoch whose carried changes a
     * restore brings, which the restore committed, or in an earlier run, for a truncate): plans it now, its primary
     * key as the key. Empty for a fixed sink, or when no such table exists.
     */
    Optional<TableBuffer> planExisting(String name) throws SQLException, IOException {
        if (!(evolution instanceof WritePlan.Evolving evolving)) {
            return Optional.empty();
        }
        int dot = name.indexOf('.');
        SqlIdentifier id = dot < 0
                ? new SqlIdentifier(null, name)
                : new SqlIdentifier(name.substring(0, dot), name.substring(dot + 1));
        TableEvolution tables =
                new TableEvolution(connection, io, evolving.planner().context());
        List<String> columns = tables.columns(id);
        List<String> key = tables.primaryKey(id);
        if (columns.isEmpty() || key.isEmpty()) {
            return Optional.empty();
        }
        TableBuffer t = evolving.planner()
                .planOne(RoutedTable.of(id.schema(), id.name(), columns, key), false)
                .newTableBuffer();
        order.add(t);
        byName.put(name, t);
        return Optional.of(t);
    }
}
