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
 * The tables of a {@link TablesPath} as the route's {@linkplain dev.eosink.jdbc.route.TableChanges#evolve shapes}
 * make them. With a {@link WritePlan.Fixed} sink, a check that the declared table has the shape. With a {@link
 * WritePlan.Evolving} one, every table is planned when first used, from the catalog as it is then (after the restore
 * finished earlier runs' transactions, so never blocked by one of their locks): its every column, the declared key or
 * its primary key, its place in the run order and its parent flag from the foreign keys read at start; a shape creates
 * or widens it first ({@link TableEvolution}), and a widened table is planned anew, its buffered changes moved into
 * the new buffer. A shape that was found in place before costs a comparison.
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
            // The previous epoch's prepared transaction may have made the table or its columns, which this epoch's
            // transaction sees only once it is committed, and holds locks that the DDL would wait for: wait for
            // that commit first, then read the catalog.
            boolean committed = !ownCommits.pending() || ownCommits.await();
            TableEvolution.Existing is = tables.existing(shape.table());
            List<String> ddl = tables.statements(shape, is);
            if (!ddl.isEmpty()) {
                // When that commit cannot be waited for (its checkpoint was declined or was a savepoint), it comes
                // only with a later checkpoint, whose barrier this thread would hold up: restart instead, which rolls
                // it back. A restored run that prepared nothing yet has no such transaction (the restore finished
                // the earlier run's), so its DDL goes ahead.
                if (!committed && preparedThisRun) {
                    throw new SinkException(evolving.planner().context() + ": routed table " + shape.table()
                            + " must change (" + String.join("; ", ddl) + ") while this writer's previous "
                            + "transaction, which may lock the table, cannot commit yet: its checkpoint was declined, "
                            + "or was a savepoint, and it commits only with a later checkpoint, whose barrier this "
                            + "writer would hold up. The job restarts from its last completed checkpoint (that "
                            + "transaction is rolled back, its records replayed) and changes the table then. Nothing of "
                            + "this epoch becomes visible.");
                }
                tables.apply(shape, ddl);
                is = tables.existing(shape.table());
            }
            if (t == null || !t.table().columns().containsAll(names)) {
                plan(shape.table(), is.columns(), shape.key(), t, evolving);
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

    /**
     * An evolving sink's table that the route names before any shape of this run (a change after a restart, a
     * restored state's carried changes, a truncate), planned from the catalog: declared, or made by an earlier run.
     * Empty for a fixed sink, or when no such table exists.
     */
    Optional<TableBuffer> planExisting(String name) throws SQLException, IOException {
        if (!(evolution instanceof WritePlan.Evolving evolving)) {
            return Optional.empty();
        }
        Optional<RoutedTable> declared =
                evolving.declared().stream().filter(t -> t.name().equals(name)).findFirst();
        int dot = name.indexOf('.');
        SqlIdentifier id = declared.map(RoutedTable::table)
                .orElseGet(() -> dot < 0
                        ? new SqlIdentifier(null, name)
                        : new SqlIdentifier(name.substring(0, dot), name.substring(dot + 1)));
        TableEvolution.Existing is =
                new TableEvolution(connection, io, evolving.planner().context()).existing(id);
        List<String> key = declared.map(RoutedTable::key).orElse(is.key());
        if (is.types().isEmpty() || key.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(plan(id, is.columns(), key, null, evolving));
    }

    /**
     * Plans the table with {@code columns}, every column the catalog shows it has now, in its place in the run order;
     * the buffered changes of {@code old}, its previous plan, move over.
     */
    private TableBuffer plan(
            SqlIdentifier id, List<String> columns, List<String> key, TableBuffer old, WritePlan.Evolving evolving)
            throws SQLException, IOException {
        RoutedTable table = RoutedTable.of(id.schema(), id.name(), columns, key);
        TableBuffer fresh = evolving.planner()
                .planOne(table, evolving.parents().contains(table.name()))
                .newTableBuffer();
        if (old == null) {
            int rank = evolving.rank(table.name());
            int at = 0;
            while (at < order.size() && evolving.rank(order.get(at).table().name()) <= rank) {
                at++;
            }
            order.add(at, fresh);
        } else {
            Optional<byte[]> pending = old.carried();
            if (pending.isPresent()) {
                fresh.loadCarried(pending.get(), true);
            }
            order.set(order.indexOf(old), fresh);
        }
        byName.put(table.name(), fresh);
        return fresh;
    }
}
