/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

/**
 * Gets the demo's table ready for a run, and never destroys results unless asked. A restored run
 * keeps the table as it is: its rows belong to the snapshot's past. A fresh run wants an empty table
 * and no prepared transaction of its sink id: what an earlier run committed or prepared is refused,
 * with the ways forward, unless {@code --reset} asks to delete it. A missing table is created when the
 * role may; otherwise sql/04-example-tables.sql is what an administrator runs.
 */
final class DemoTable {

    private final Connection c;
    private final DemoDatabase db;
    private final DemoOptions o;

    DemoTable(Connection c, DemoOptions o) throws SQLException {
        this.c = c;
        this.db = DemoDatabase.of(c);
        this.o = o;
    }

    /** Empty when the run may go on; else why not, with the remedy, for the command line. */
    Optional<String> prepare(boolean restoring) throws SQLException {
        if (o.reset && restoring) {
            return Optional.of("--reset starts over from an empty table, and this run restores a snapshot: choose one");
        }
        if (o.reset) {
            reset();
        }
        if (db.tableMissing(c, o.table)) {
            return create();
        }
        if (restoring) {
            return Optional.empty();
        }
        long rows = rows();
        List<String> prepared = db.prepared(c, o.sinkId);
        if (rows > 0 || !prepared.isEmpty()) {
            return Optional.of(String.format(
                    "table %s holds %,d rows and sink id '%s' has %d prepared transaction(s) "
                            + "from an earlier run, and this run starts fresh. Resume that run instead (on a cluster: flink run "
                            + "-s <savepoint> ...; locally: --resume), or start over with --reset, which deletes the rows and "
                            + "rolls back the prepared transactions.",
                    o.table, rows, o.sinkId, prepared.size()));
        }
        return Optional.empty();
    }

    /** Rolls back the sink id's prepared transactions (they hold locks on the table), then deletes the rows. */
    private void reset() throws SQLException {
        for (String prepared : db.prepared(c, o.sinkId)) {
            db.rollback(c, prepared);
            System.out.println("--reset: rolled back prepared transaction " + prepared);
        }
        if (!db.tableMissing(c, o.table)) {
            try (Statement s = c.createStatement()) {
                int deleted = s.executeUpdate("DELETE FROM " + db.quote(o.table));
                System.out.printf("--reset: deleted %,d rows of %s%n", deleted, o.table);
            }
        }
    }

    private Optional<String> create() {
        try (Statement s = c.createStatement()) {
            s.execute(db.createTableSql(o.job, o.table));
            System.out.println("created table " + o.table);
            return Optional.empty();
        } catch (SQLException e) {
            return Optional.of("table " + o.table + " does not exist, and creating it failed: "
                    + e.getMessage().trim()
                    + ". Remedy: have its owner run sql/04-example-tables.sql (which also grants the sink's role what "
                    + "the demo needs), or run as a role that may create tables.");
        }
    }

    private long rows() throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + db.quote(o.table))) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
