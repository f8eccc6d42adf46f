/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableRoute;
import dev.eosink.jdbc.route.TableShape;
import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.jdbc.sql.RecordText;
import dev.eosink.postgres.carried.RoutedCarried;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Upserts and deletes of many tables in the session's one transaction, as a {@link TableRoute} makes them of
 * each record. Each table keeps the last change of each key ({@link TableBuffer}); a run goes through the tables
 * parents first, in the order {@link TableOrder} found for the foreign keys that cannot wait, each table deleting
 * then upserting, except a table such a key refers to, which only upserts there and deletes at the end, children
 * first (see {@code run}); the other constraints wait for PREPARE ({@code SET CONSTRAINTS ALL DEFERRED} at the
 * epoch's begin).
 *
 * <p>Invariants:
 *
 * <ol>
 *   <li>A run happens only between records, so it takes the tables from their state after one whole record to
 *       their state after a later one: when each record is a whole source transaction, both are states the
 *       source had, whose foreign keys hold, and the order keeps them between the statements of the run.
 *   <li>Statements may touch rows of this subtask's previous, still prepared transaction: they run only after
 *       {@link OwnCommits#await()} (see there). When it says no, every change stays buffered (a later change of
 *       a key replaces it) and, if still held at the barrier, is carried past it in checkpoint state ({@link
 *       #carried()}) and run in a later epoch, after the commit, all tables together as ever.
 *   <li>Memory: the buffers run every {@code batchSize} changes once the previous commit is known, and at most
 *       {@link #DEFER_BATCHES} times that while it is pending; while held, they grow by the keys touched.
 *   <li>Shapes ({@link TableChanges#evolve}) come before a record's changes, so a table is created or widened
 *       between records, in the epoch's transaction ({@link TableEvolution}), after the wait for the previous
 *       commit (whose locks the DDL would wait for). The widened table's buffered changes move into its new
 *       buffer, the columns they lack null, and run with the others as ever.
 * </ol>
 *
 * @param <IN> the records the sink writes
 */
final class TablesPath<IN> implements WritePath<IN> {

    /** Changes wait for the previous commit, while records go on, for at most this many batches. */
    static final int DEFER_BATCHES = 8;

    /** Foreign key, unique and exclusion violations: what the order of a run's statements can cause. */
    private static final java.util.Set<String> CONSTRAINTS = java.util.Set.of("23503", "23505", "23P01");

    private final TableRoute<IN> route;
    /**
     * Parents before children, where a foreign key that cannot wait says so; else as declared; tables an evolving
     * sink created last (no routed table's key refers to them).
     */
    private final List<TableBuffer> order;

    /** Creates and widens the tables as the route's shapes ask, or checks them against fixed ones. */
    private final TableShapes shapes;
    /** Whether the record being routed made a change yet: its shapes must come first. */
    private boolean changed;
    /** Whether this writer prepared a transaction since it started (see {@link #evolve}). */
    private boolean preparedThisRun;

    private final Map<String, TableBuffer> byName = new LinkedHashMap<>();
    private final Connection connection;
    private final IoWatchdog io;
    private final int batchSize;
    private final Changes changes = new Changes();
    private OwnCommits ownCommits = OwnCommits.NONE;
    /** The wait for the previous commit said no in this epoch: see {@link UpsertWriter}'s field of that name. */
    private boolean held;
    /** Changes routed since the last run: at least the keys buffered. */
    private long routed;

    TablesPath(
            WritePlan.Resources session, TableRoute<IN> route, List<TableBuffer> order, WritePlan.Evolution evolution) {
        this.route = route;
        this.order = new ArrayList<>(order);
        order.forEach(t -> byName.put(t.table().name(), t));
        this.shapes = new TableShapes(this.order, byName, evolution, session.connection(), session.io());
        this.connection = session.connection();
        this.io = session.io();
        this.batchSize = session.batchSize();
    }

    @Override
    public void begin() throws SQLException {
        deferConstraints();
    }

    /** Constraints declared DEFERRABLE are checked at PREPARE, not statement by statement. */
    private void deferConstraints() throws SQLException {
        try (Statement s = connection.createStatement()) {
            io.call("deferring the deferrable constraints", () -> s.execute("SET CONSTRAINTS ALL DEFERRED"));
        }
    }

    @Override
    public void write(IN record, long positionInEpoch) throws IOException {
        changes.position = positionInEpoch;
        changed = false;
        try {
            route.route(record, changes);
        } catch (EvolutionFailed e) {
            throw e.failure; // names table, column and remedy: the record's text adds nothing
        } catch (Exception e) {
            // What the record routed so far stays buffered: the epoch fails, and abort() forgets it.
            throw new SinkException(
                    "routing record #" + positionInEpoch + " of the epoch (counting from 0) "
                            + RecordText.bracketed(route.shown(record)) + " failed: "
                            + e.getClass().getName() + ": " + e.getMessage() + ". "
                            + PostgresErrors.SAME_AFTER_RESTART + ".",
                    e);
        }
        if (routed >= batchSize) {
            boolean mayRun = held
                    ? !ownCommits.pending() || ownCommits.lookDue() && ownCommits.await()
                    : routed >= (long) DEFER_BATCHES * batchSize || !ownCommits.pending();
            if (mayRun) {
                run();
            }
        }
    }

    @Override
    public void flush() throws IOException {
        run();
    }

    @Override
    public void end(TransactionId id, long rows) throws IOException {
        run();
    }

    /** Runs every table's buffered changes, once the previous commit is done; else holds them. */
    private void run() throws IOException {
        try {
            run(false);
        } catch (SQLException e) {
            throw new IllegalStateException("a run of records reports through its tables", e); // see runOne
        }
    }

    /**
     * The order of a run: each table parents first, a table no foreign key refers to deleting before it upserts (a
     * unique value its delete frees may be taken by its upsert), a parent only upserting; then the parents'
     * deletes, children first (a child may have moved away from a row its parent deletes).
     *
     * @param carried whether the changes are a restored state's: a failure is then about no record of the epoch,
     *     and goes to the caller as it is
     */
    private void run(boolean carried) throws IOException, SQLException {
        if (heldWrites() == 0) {
            routed = 0;
            return;
        }
        if (!ownCommits.await()) {
            held = true; // past the barrier if need be: see the class's invariants
            return;
        }
        held = false;
        // Truncations first, children first: the rows they delete are those before the run's changes.
        for (int i = order.size() - 1; i >= 0; i--) {
            truncate(order.get(i), carried);
        }
        for (TableBuffer t : order) {
            if (!t.parent()) {
                runOne(t, false, carried);
            }
            runOne(t, true, carried);
        }
        for (int i = order.size() - 1; i >= 0; i--) {
            if (order.get(i).parent()) {
                runOne(order.get(i), false, carried);
            }
        }
        order.forEach(TableBuffer::clear);
        routed = 0;
    }

    private void truncate(TableBuffer t, boolean carried) throws IOException, SQLException {
        if (!t.truncated()) {
            return;
        }
        try {
            io.call("deleting every row of a truncated routed table", () -> {
                t.executeTruncate(connection);
                return null;
            });
        } catch (SQLException e) {
            if (carried) {
                throw e;
            }
            throw new SinkException(
                    "emptying " + t.errors().target() + " (a truncate routed to it) failed: " + Catalog.oneLine(e)
                            + " (SQLSTATE " + e.getSQLState() + "). When another table's NOT DEFERRABLE foreign key "
                            + "refers to it, truncate that table too (the source's TRUNCATE ... CASCADE does), or "
                            + "make the key DEFERRABLE. Nothing of this epoch becomes visible",
                    e);
        }
    }

    private void runOne(TableBuffer t, boolean upserts, boolean carried) throws IOException, SQLException {
        if (t.size() == 0) {
            return;
        }
        long first = t.firstPosition();
        long last = t.lastPosition();
        try {
            io.call(upserts ? "upserting a routed table's rows" : "deleting a routed table's rows", () -> {
                if (upserts) {
                    t.executeUpserts(connection);
                } else {
                    t.executeDeletes(connection);
                }
                return null;
            });
        } catch (SQLException e) {
            if (carried) {
                throw e;
            }
            if (CONSTRAINTS.contains(e.getSQLState())) {
                // The records may be right: a constraint checked statement by statement can refuse a run whose
                // every whole-record state satisfies it (see docs/tables.md).
                throw new SinkException(
                        "writing into " + t.errors().target() + " failed in the run of records #" + first + " to #"
                                + last + " of the epoch (counting from 0): " + Catalog.oneLine(e) + " (SQLSTATE "
                                + e.getSQLState() + "). The sink runs a table's changes of a run in one statement per "
                                + "kind, parents' upserts first and their deletes last: a NOT DEFERRABLE constraint "
                                + "that rows of one run must satisfy in another order (a unique value moved between "
                                + "rows, or freed and taken in a table that others refer to) refuses that, although "
                                + "the source's states satisfy it. Remedy: make the constraint DEFERRABLE (the sink "
                                + "defers it to the commit), or, if the records do violate it, fix them upstream. "
                                + "Nothing of this epoch becomes visible",
                        e);
            }
            throw t.errors()
                    .writeFailed(
                            e,
                            FailurePosition.batch(
                                    first,
                                    last,
                                    "one statement " + (upserts ? "upserts" : "deletes") + " the table's keys of "
                                            + "the records since the last run (each key's last change)"));
        }
    }

    @Override
    public Optional<String> prepared() {
        held = false; // the next epoch waits for this one's commit, asking afresh
        preparedThisRun = true;
        order.forEach(TableBuffer::carriedIntoNextEpoch);
        return Optional.empty();
    }

    @Override
    public void ownCommits(OwnCommits ownCommits) {
        this.ownCommits = ownCommits;
    }

    @Override
    public int heldWrites() {
        int n = 0;
        for (TableBuffer t : order) {
            n += t.size() + (t.truncated() ? 1 : 0);
        }
        return n;
    }

    /** Every table's held changes, by table name ({@link RoutedCarried}); the tables keep them until they run. */
    @Override
    public Optional<byte[]> carried() {
        if (heldWrites() == 0) {
            return Optional.empty();
        }
        Map<String, byte[]> tables = new LinkedHashMap<>();
        for (TableBuffer t : order) {
            t.carried().ifPresent(statements -> tables.put(t.table().name(), statements));
        }
        return Optional.of(RoutedCarried.encode(tables));
    }

    /** Runs what a restored state carried, before any record, all tables together in the usual order. */
    @Override
    public void writeCarried(byte[] carried) throws SQLException, IOException {
        deferConstraints();
        for (Map.Entry<String, byte[]> table : RoutedCarried.decode(carried).entrySet()) {
            TableBuffer t = byName.get(table.getKey());
            if (t == null) {
                t = shapes.planExisting(table.getKey()).orElse(null);
            }
            if (t == null) {
                throw new CarriedStatementsRefused("the restored state carries upserts and deletes of table "
                        + table.getKey() + ", which this sink no longer declares (it declares " + byName.keySet()
                        + "). Remedy: declare the table again for this restore, or restore without the sink's state");
            }
            t.loadCarried(table.getValue(), shapes.evolving());
        }
        OwnCommits live = ownCommits;
        ownCommits = OwnCommits.NONE; // they run before any record, once nothing of their writer is prepared
        try {
            run(true);
        } finally {
            ownCommits = live;
        }
    }

    @Override
    public boolean abort() {
        order.forEach(TableBuffer::clear);
        routed = 0;
        return true;
    }

    /** The route's view of the path: each change goes to its table's buffer. */
    private final class Changes implements TableChanges {
        long position;

        @Override
        public void upsert(String table, Object... row) {
            buffer(table).upsert(row, position);
            routed++;
            changed = true;
        }

        @Override
        public void delete(String table, Object... key) {
            buffer(table).delete(key, position);
            routed++;
            changed = true;
        }

        @Override
        public void truncate(String table) {
            if (!byName.containsKey(table) && shapes.evolving() && find(table) == null) {
                return; // an evolving sink's table that was never made: nothing to empty
            }
            buffer(table).truncate();
            routed++;
            changed = true;
        }

        @Override
        public List<String> columns(String table) {
            return buffer(table).table().columns();
        }

        @Override
        public void evolve(TableShape shape) {
            if (changed) {
                throw new IllegalStateException("the route gave the shape of table " + shape.name() + " after a "
                        + "change of the same record: give every shape of a record before its changes (a table "
                        + "created or widened within a record would split it)");
            }
            try {
                shapes.evolve(shape, ownCommits, preparedThisRun);
            } catch (SinkException e) {
                throw new EvolutionFailed(e);
            } catch (SQLException | IOException e) {
                throw new EvolutionFailed(new SinkException(
                        "evolving routed table " + shape.table() + " failed: " + e.getMessage()
                                + ". Nothing of this epoch becomes visible; the job restarts and tries again",
                        e));
            }
        }

        private TableBuffer buffer(String table) {
            TableBuffer t = find(table);
            if (t == null) {
                throw new IllegalArgumentException(
                        "the route names table " + table + ", which the sink does not declare: it writes "
                                + byName.keySet() + " (names as declared, schema.table)"
                                + (shapes.evolving() ? "; an evolving sink's table exists once a shape made it" : ""));
            }
            return t;
        }

        /** The table of that name, planned now if an evolving sink's; null when there is none. */
        private TableBuffer find(String table) {
            TableBuffer t = byName.get(table);
            if (t == null && shapes.evolving()) {
                try {
                    // An evolving sink plans a table when first used: declared, or made by an earlier run.
                    t = shapes.planExisting(table).orElse(null);
                } catch (SQLException | IOException e) {
                    throw new EvolutionFailed(new SinkException(
                            "reading routed table " + table + " failed: " + e.getMessage()
                                    + ". Nothing of this epoch becomes visible; the job restarts and tries again",
                            e));
                }
            }
            return t;
        }
    }

    /** Carries a failure to evolve a table through the route, which may only throw unchecked from {@code evolve}. */
    private static final class EvolutionFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        final transient SinkException failure;

        EvolutionFailed(SinkException failure) {
            super(failure.getMessage(), failure);
            this.failure = failure;
        }
    }
}
