/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The JDBC batch of the insert paths ({@link XaInsertPath}, {@link XaDeadLetterInsertPath}): one
 * prepared statement per epoch connection, table mode's INSERT in the database's dialect or the user's
 * statement, both bound by position, as the PostgreSQL sink's are.
 *
 * <p>Invariant: {@link #records()} holds the records bound into the statement's batch and not yet
 * executed, in order, so that entry i of the JDBC batch is {@code records().get(i)}, the record at
 * position {@code firstPosition() + i} of the epoch: what a message names when the batch fails.
 *
 * @param <IN> the records the sink writes
 */
final class XaInsertBatch<IN> {

    private final InsertStatement<IN> statement;
    private final String sql;
    private final int batchSize;

    /** Prepared on each epoch connection. */
    private PreparedStatement insert;

    private final List<IN> records = new ArrayList<>();
    private long firstPosition;

    private XaInsertBatch(InsertStatement<IN> statement, String sql, int batchSize) {
        this.statement = statement;
        this.sql = sql;
        this.batchSize = batchSize;
    }

    /** The batch of {@code statement}: table mode's INSERT in {@code dialect}, or the user's statement as given. */
    static <IN> XaInsertBatch<IN> of(InsertStatement<IN> statement, JdbcDialect dialect, int batchSize) {
        if (statement instanceof InsertStatement.Columns<IN> insert) {
            return new XaInsertBatch<>(
                    statement,
                    dialect.writes()
                            .insertSql(
                                    new SqlIdentifier(
                                            insert.table().schema(),
                                            insert.table().name()),
                                    insert.columns(),
                                    1),
                    batchSize);
        }
        return new XaInsertBatch<>(statement, ((InsertStatement.UserSql<IN>) statement).sql(), batchSize);
    }

    /** Prepares the statement on a new epoch connection. */
    void prepare(Connection c) throws SQLException {
        insert = c.prepareStatement(sql);
    }

    /**
     * Binds {@code record} and adds it to the batch.
     *
     * @throws Exception what the row mapper, the statement builder or the driver threw; the record is
     *     then not in the batch
     */
    void add(IN record, long position) throws Exception {
        statement.bind(insert, record);
        insert.addBatch();
        if (records.isEmpty()) {
            firstPosition = position;
        }
        records.add(record);
    }

    /** Whether the batch holds {@code batchSize} records, and is due to be sent. */
    boolean full() {
        return records.size() >= batchSize;
    }

    boolean isEmpty() {
        return records.isEmpty();
    }

    PreparedStatement insert() {
        return insert;
    }

    List<IN> records() {
        return records;
    }

    long firstPosition() {
        return firstPosition;
    }

    /** The record as messages and the dead-letter table show it ({@link InsertStatement#shown}). */
    Object shown(IN record) {
        return statement.shown(record);
    }

    /** Which record of the batch the database refused, as far as the driver tells ({@link XaWriteErrors#failedEntry}). */
    String failedEntry(SQLException e) {
        return XaWriteErrors.failedEntry(e, records, firstPosition, statement::shown);
    }

    /** The batch was sent, or the epoch is forgotten. */
    void clear() {
        records.clear();
    }
}
