/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.jdbc.sql.CarriedNotices;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Optional;

/**
 * The SQL of one marker table: one row per prepared transaction, written inside it, so that the row is visible
 * exactly when the transaction committed. Every dialect's table holds the same columns: {@code gid} (the
 * transaction's full name, the key), {@code sink_id}, {@code subtask}, {@code checkpoint_id}, {@code row_count} and
 * {@code created_at} (set by the database when the row is written), with an index on {@code (sink_id, created_at)}.
 * Only the DDL, the date arithmetic and the quoting differ, so the reads are written here once.
 */
@PublicEvolving
public interface MarkerSql {

    /** The marker table as this database's SQL names it (quoted). */
    String table();

    /** Creates the table and its index when missing; one statement, or several separated by {@code "; "}. */
    String createSql();

    /** Deletes a sink's ({@code ?1}) markers older than {@code ?2} seconds, by the database's clock. */
    String pruneSql();

    /**
     * Count, rows, lowest and highest checkpoint of a sink's ({@code ?1}) markers named after checkpoint {@code ?2}
     * or not matching the name pattern {@code ?3} ({@code MarkerTable.namedBy}), whose epoch began after the time
     * bound to {@code ?4} ({@link #committedAfterTime}); empty where the dialect cannot compare a marker's time with
     * a checkpoint's (the rewind check is then skipped, with a warning).
     */
    Optional<String> committedAfterSql();

    /**
     * The value bound to {@code ?4} of {@link #committedAfterSql} for a checkpoint taken at {@code sinceEpochMillis}
     * (by the job's clock), computed when the statement runs. By default those epoch milliseconds, for a table whose
     * {@code created_at} the database can compare with them. A database that keeps only its local time and tells
     * no offset (Firebird 3) binds the checkpoint's age instead, by the caller's clock, and its SQL subtracts that
     * age from the database's own clock: so no time zone enters, only the clocks' drift, as with epoch milliseconds.
     */
    default long committedAfterTime(long sinceEpochMillis) {
        return sinceEpochMillis;
    }

    /** The marker row's insert: gid, sink id, subtask, checkpoint, row count. */
    default String insertSql() {
        return "INSERT INTO " + table() + " (gid, sink_id, subtask, checkpoint_id, row_count) VALUES (?, ?, ?, ?, ?)";
    }

    /** One row (any value) when the marker named {@code ?1} is visible. */
    default String existsSql() {
        return "SELECT 1 FROM " + table() + " WHERE gid = ?";
    }

    /** The row count of the marker named {@code ?1}. */
    default String rowCountSql() {
        return "SELECT row_count FROM " + table() + " WHERE gid = ?";
    }

    /**
     * Per sink id: count, lowest and highest checkpoint, oldest and newest {@code created_at}; of sink {@code ?1}
     * when {@code oneSink}, else of every sink (the notices of carried writes, which share the table under their own
     * sink id, left out).
     */
    default String bySinkSql(boolean oneSink) {
        return "SELECT sink_id, COUNT(*), MIN(checkpoint_id), MAX(checkpoint_id), MIN(created_at), MAX(created_at) FROM "
                + table()
                + (oneSink ? " WHERE sink_id = ?" : " WHERE sink_id NOT LIKE '%" + CarriedNotices.SUFFIX + "'")
                + " GROUP BY sink_id ORDER BY sink_id";
    }

    /** The rows of sink id {@code ?1} as gid and row count, by subtask and checkpoint: the notices of carried writes. */
    default String noticesSql() {
        return "SELECT gid, row_count FROM " + table() + " WHERE sink_id = ? ORDER BY subtask, checkpoint_id";
    }

    /**
     * Deletes the row named {@code ?1}: by the primary key, so that a writer deleting its own notices never touches
     * (nor, under InnoDB, waits for the row locks of) another subtask's, which a still prepared transaction may have
     * inserted.
     */
    default String deleteSql() {
        return "DELETE FROM " + table() + " WHERE gid = ?";
    }

    /** The rows of sink id {@code ?1} as gid, row count and {@code created_at}, by subtask and checkpoint. */
    default String rowsOfSql() {
        return "SELECT gid, row_count, created_at FROM " + table()
                + " WHERE sink_id = ? ORDER BY subtask, checkpoint_id";
    }
}
