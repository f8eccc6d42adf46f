/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.sql.CarriedNotices;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Writes what writers carried past a barrier into the sink's table, by hand: every write of the given subtasks in
 * the order the writer would have run it, and the deletion of those subtasks' notices, in one transaction, so that
 * either all of it is visible or none (and a second run finds no notice and writes nothing). The database gives
 * its statements and how it binds a value ({@link Dialect}).
 */
final class CarriedWriting {

    /** How long a write waits for a row lock: a live writer of the same keys means someone else is at work. */
    static final Duration LOCK_TIMEOUT = Duration.ofSeconds(10);

    /** One database's SQL for carried writes. */
    interface Dialect {

        /** The upsert of one row of {@code columns} by {@code keyColumns} into {@code table}. */
        String upsertSql(String table, List<String> columns, List<String> keyColumns) throws AdminException;

        /** The delete of one row by {@code keyColumns} (one parameter each, in their order). */
        String deleteSql(String table, List<String> keyColumns) throws AdminException;

        /** Binds a carried value (text of the PostgreSQL sink, a Java value of the XA sink; null for SQL NULL). */
        void bind(PreparedStatement s, int parameter, Object value) throws SQLException;

        /** What the transaction runs first: bounds its lock waits by {@link #LOCK_TIMEOUT}. */
        void boundLockWaits(Connection c) throws SQLException;
    }

    /** What one run wrote. */
    static final class Written {
        final long upserts;
        final long deletes;
        final int notices;

        Written(long upserts, long deletes, int notices) {
            this.upserts = upserts;
            this.deletes = deletes;
            this.notices = notices;
        }
    }

    private CarriedWriting() {}

    /**
     * Writes {@code writes} (by subtask) into {@code table} and deletes the notices of those subtasks, in one
     * transaction on {@code c}, committed at the end; nothing is committed when anything fails, or when fewer than
     * {@code notices} notices are deleted (someone else wrote or gave them up meanwhile).
     *
     * @return the upserts and deletes written, and the notices deleted
     */
    static Written write(
            Connection c,
            Dialect dialect,
            String table,
            MarkerSql markerTable,
            String sinkId,
            SortedMap<Integer, CarriedWrites> writes,
            int notices,
            Credentials credentials)
            throws AdminException {
        long upserts = 0;
        long deletes = 0;
        int deleted = 0;
        String doing = "starting the transaction";
        try {
            c.setAutoCommit(false);
            try {
                dialect.boundLockWaits(c);
                for (Map.Entry<Integer, CarriedWrites> subtask : writes.entrySet()) {
                    CarriedWrites carried = subtask.getValue();
                    String where = "the writes carried by subtask " + subtask.getKey();
                    List<String> keys = carried.keyColumnsToWrite(where);
                    try (PreparedStatement upsert =
                                    c.prepareStatement(dialect.upsertSql(table, carried.columns(), keys));
                            PreparedStatement delete = c.prepareStatement(dialect.deleteSql(table, keys))) {
                        for (CarriedWrites.Write w : carried.writes()) {
                            doing = "writing " + carried.show(w) + " (" + where + ")";
                            List<Object> values = w.delete() ? w.key() : w.values();
                            PreparedStatement s = w.delete() ? delete : upsert;
                            for (int i = 0; i < values.size(); i++) {
                                dialect.bind(s, i + 1, values.get(i));
                            }
                            s.executeUpdate();
                            if (w.delete()) {
                                deletes++;
                            } else {
                                upserts++;
                            }
                        }
                    }
                    doing = "deleting the notices of subtask " + subtask.getKey();
                    deleted += CarriedNotices.delete(c, markerTable, sinkId, subtask.getKey());
                }
                if (deleted != notices) { // rolled back below
                    throw new AdminException("expected to delete " + notices
                            + " notice(s) of carried writes of sink id '"
                            + sinkId + "' and found " + deleted + ": something else wrote or gave them up meanwhile "
                            + "(a job with sink id '" + sinkId
                            + "' started?). Nothing was written. Remedy: run carried "
                            + "again without --apply and look at what it shows");
                }
                doing = "committing";
                c.commit();
            } catch (SQLException | AdminException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException r) {
                    e.addSuppressed(r);
                }
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new AdminException(
                    "writing the carried writes of sink id '" + sinkId + "' into " + table + " failed "
                            + "while " + doing + ": " + credentials.scrub(e.getMessage()) + " (SQLState "
                            + e.getSQLState()
                            + "). Nothing was written (one transaction) into the database at "
                            + JdbcUrls.redact(credentials.url())
                            + ". Remedy: check --table (the sink's table, with a unique key "
                            + "on the key columns) and that the user may insert, update and delete there"
                            + (isLockTimeout(e)
                                    ? "; a row of one of those keys is locked by another session (a live job, or a "
                                            + "prepared transaction): stop that job or resolve its transactions first"
                                    : ""),
                    e);
        }
        return new Written(upserts, deletes, deleted);
    }

    private static boolean isLockTimeout(SQLException e) {
        return "55P03".equals(e.getSQLState()) || e.getErrorCode() == 1205;
    }
}
