/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.PublicEvolving;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The SQL of the JDBC write paths that do not speak a protocol of their own: inserts, upserts and deletes by key,
 * the dead-letter table, and the bounds they need. The defaults are standard SQL with the dialect's quoting.
 */
@PublicEvolving
public interface WriteSql {

    /** Quotes one identifier as the dialect does ({@link JdbcDialect#quote}). */
    String quote(String identifier);

    /** {@code table} quoted. */
    default String qualified(SqlIdentifier table) {
        return table.schema() == null ? quote(table.name()) : quote(table.schema()) + "." + quote(table.name());
    }

    /**
     * The insert of {@code rows} rows in one statement: one parameter per column and row, row by row; {@code rows}
     * at most {@link #maxRowsPerStatement()}.
     */
    default String insertSql(SqlIdentifier table, List<String> columns, int rows) {
        String row = "(" + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ")";
        return "INSERT INTO " + qualified(table) + " ("
                + columns.stream().map(this::quote).collect(Collectors.joining(", ")) + ") VALUES "
                + String.join(", ", Collections.nCopies(rows, row));
    }

    /**
     * The upsert of {@code rows} rows by {@code key} in one statement, with the parameters of {@link #insertSql},
     * applied in row order, every column updated from the row (the key's too, so that a key the database takes as
     * equal ends in the row's spelling); empty where the dialect has none, and an upsert sink is refused at start.
     * {@code rows} at most {@link #maxRowsPerStatement()}.
     */
    default Optional<String> upsertSql(SqlIdentifier table, List<String> columns, List<String> key, int rows) {
        return Optional.empty();
    }

    /**
     * The delete of one row by {@code key}: one parameter per key column, in its order. One key per statement, each
     * a lookup by the unique key: a DELETE of many keys ({@code k IN (...)}) may scan the table instead, and wait for
     * the lock of every row it reads, rows of another subtask's prepared transaction included.
     */
    default String deleteSql(SqlIdentifier table, List<String> key) {
        return "DELETE FROM " + qualified(table) + " WHERE "
                + key.stream().map(c -> quote(c) + " = ?").collect(Collectors.joining(" AND "));
    }

    /** A query that reads no row but fails unless {@code columns} of {@code table} exist and may be read. */
    default String probeSql(SqlIdentifier table, List<String> columns) {
        return "SELECT " + columns.stream().map(this::quote).collect(Collectors.joining(", ")) + " FROM "
                + qualified(table) + " WHERE 1 = 0";
    }

    /** Sets savepoint {@code name} in the open transaction. */
    default String savepointSql(String name) {
        return "SAVEPOINT " + name;
    }

    /** Undoes the open transaction's work since savepoint {@code name}, which stays set. */
    default String rollbackToSavepointSql(String name) {
        return "ROLLBACK TO SAVEPOINT " + name;
    }

    /** Forgets savepoint {@code name}, keeping the work done since. */
    default String releaseSavepointSql(String name) {
        return "RELEASE SAVEPOINT " + name;
    }

    /**
     * The DDL that adds a unique key on {@code key} to {@code table}: the remedy the sink names at start for an upsert
     * key that is no unique key of the table. Standard SQL's {@code ALTER TABLE t ADD UNIQUE (k, ...)} by default.
     */
    default String addUniqueKeySql(SqlIdentifier table, List<String> key) {
        return "ALTER TABLE " + qualified(table) + " ADD UNIQUE ("
                + key.stream().map(this::quote).collect(Collectors.joining(", ")) + ")";
    }

    /**
     * What {@link #upsertSql} does with a record whose row another unique key of the table matches than its upsert
     * key: a sentence of the warning the sink logs at start for a table of several unique keys.
     */
    default String upsertOnOtherUniqueKeys() {
        return "A record that matches another unique key's row may update that row or fail, as the database's upsert "
                + "does.";
    }

    /** The column lists of the table's PRIMARY and UNIQUE keys, each in index order; asked where upserts are. */
    default List<List<String>> uniqueKeys(Connection c, SqlIdentifier table) throws SQLException {
        return List.of();
    }

    /**
     * The dead-letter table's DDL (gid, sink_id, subtask, checkpoint_id, position, record, sqlstate, error,
     * created_at), run when the table is missing; empty where the dialect knows none, and a dead-letter table is
     * refused at start.
     */
    default Optional<String> deadLetterDdl(SqlIdentifier table) {
        return Optional.empty();
    }

    /**
     * The most bytes one statement may take on the wire: the server refuses a larger one (MariaDB's and MySQL's
     * {@code max_allowed_packet}). A statement of many rows is cut below it; {@link Long#MAX_VALUE} where the dialect
     * knows no bound.
     */
    default long maxStatementBytes(Connection c) throws SQLException {
        return Long.MAX_VALUE;
    }

    /**
     * The most rows one statement of {@link #insertSql} or {@link #upsertSql} may take, whatever their bytes: a
     * statement of many rows is cut there too ({@link #maxStatementBytes} bounds its bytes). {@link
     * Integer#MAX_VALUE} (the default) where the dialect knows no bound.
     */
    default int maxRowsPerStatement() {
        return Integer.MAX_VALUE;
    }
}
