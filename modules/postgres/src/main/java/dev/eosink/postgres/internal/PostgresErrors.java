/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import org.apache.flink.annotation.Internal;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * The one table that sorts PostgreSQL errors (by SQLSTATE) for the protocol. Commit paths ask
 * {@link #onCommit}; write paths ask {@link #onWrite} to phrase what happened to the epoch.
 *
 * <pre>
 * SQLSTATE        meaning                                      on COMMIT/ROLLBACK PREPARED
 * 42704           no prepared transaction of that gid           NOT_FOUND: check the marker
 * 55000           gid is being finished by another session      RETRY
 * 08xxx           connection failure (lost, refused, broken)    RETRY
 * 57P01..57P03    admin/crash shutdown, server starting up      RETRY
 * 53xxx           out of resources (connections, memory)        RETRY
 * 40001, 40P01    serialization failure, deadlock               RETRY
 * 0A000           prepared in another database                  FATAL (connect to the same database)
 * 42501           prepared by another role                      FATAL (same role, or a superuser)
 * anything else                                                 FATAL
 * </pre>
 */
@Internal
public final class PostgresErrors {

    /** What an error on COMMIT PREPARED or ROLLBACK PREPARED means for the protocol. */
    public enum OnCommit {
        NOT_FOUND,
        RETRY,
        FATAL
    }

    /** What every message about a refused record ends with: the failure repeats until the data changes. */
    public static final String SAME_AFTER_RESTART =
            "Nothing of this epoch becomes visible; the job will fail the same way after every restart until "
                    + "the record is fixed or filtered upstream";

    private PostgresErrors() {}

    public static OnCommit onCommit(SQLException e) {
        String state = e.getSQLState();
        if ("42704".equals(state)) {
            return OnCommit.NOT_FOUND;
        }
        if (isTransient(e)) {
            return OnCommit.RETRY;
        }
        return OnCommit.FATAL;
    }

    /** Connection-level or momentary: the same statement may succeed later, perhaps on a new connection. */
    public static boolean isTransient(SQLException e) {
        if (e instanceof SQLTransientException || e instanceof SQLRecoverableException) {
            return true;
        }
        String state = e.getSQLState();
        if (state == null) {
            // pgjdbc reports some I/O failures without a state; treat them as a lost connection.
            return e.getCause() instanceof java.io.IOException;
        }
        return state.startsWith("08")
                || state.startsWith("53")
                || state.equals("55000")
                || state.equals("57P01")
                || state.equals("57P02")
                || state.equals("57P03")
                || state.equals("40001")
                || state.equals("40P01");
    }

    /**
     * The database refused a record for its data (data exception 22xxx, constraint violation 23xxx,
     * datatype mismatch 42804): another record may well pass, so it may go to a dead-letter table.
     */
    public static boolean rejectsRecord(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.startsWith("22") || state.startsWith("23") || state.equals("42804");
    }

    /** The remedy to print for a fatal commit error, or empty. */
    public static String commitRemedy(SQLException e) {
        String state = e.getSQLState();
        if ("0A000".equals(state)) {
            return " Remedy: the committer must connect to the same database as the writer that prepared "
                    + "the transaction.";
        }
        if ("42501".equals(state)) {
            return " Remedy: commit with the role that prepared the transaction, or a superuser "
                    + "(PostgreSQL allows nobody else to finish a prepared transaction).";
        }
        return "";
    }

    /** How to phrase a failed write: bad data, a lost connection, or something else. */
    public static String onWrite(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("22") || state.startsWith("23")) {
            return "The database rejected a record (SQLSTATE " + state + "). " + SAME_AFTER_RESTART;
        }
        if ("42804".equals(state)) {
            // datatype_mismatch: the bound Java value has a type the column does not accept (a String
            // for a bigint). It comes from the row mapper or statement builder, per record or for all.
            return "A bound value has a type that its column does not accept (SQLSTATE 42804): the row mapper or "
                    + "statement builder must bind a value of the column's type, or the statement must cast it. "
                    + SAME_AFTER_RESTART;
        }
        if ("55P03".equals(state)) {
            return "A write waited longer than lock_timeout for a row lock (SQLSTATE 55P03), usually one held by a "
                    + "prepared transaction that is not committed yet (a declined checkpoint's, or another job's or "
                    + "sink's writing the same keys: give each key one sink). The task fails over; the restored job "
                    + "commits or rolls back that transaction first";
        }
        if (isTransient(e)) {
            return "The connection of the open transaction was lost (SQLSTATE "
                    + state
                    + "): the rows of this epoch are gone with it and will be replayed from the last checkpoint "
                    + "after the restart";
        }
        return "The statement failed (SQLSTATE " + state + "); nothing of this epoch becomes visible";
    }
}
