/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.JdbcDialect;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Inserts as JDBC batches of {@code batchSize} records into the open branch ({@link XaInsertBatch}). A
 * record the database refuses, or that the row mapper cannot map, fails the epoch with a message that
 * names it; {@link XaDeadLetterInsertPath} keeps such records instead.
 */
final class XaInsertPath<IN> implements XaWritePath<IN> {

    private final XaWriteErrors errors;
    private final XaInsertBatch<IN> batch;
    /** The epoch connection's, set with its statement. */
    private XaIo io;

    XaInsertPath(XaDatabase<IN> database, JdbcDialect dialect, XaInsertBatch<IN> batch) {
        this.errors = new XaWriteErrors(database, dialect);
        this.batch = batch;
    }

    @Override
    public void prepareStatements(Connection c, XaIo io) throws SQLException {
        batch.prepare(c);
        this.io = io;
    }

    @Override
    public void write(IN record, long positionInEpoch, TransactionId branch) throws IOException {
        try {
            batch.add(record, positionInEpoch);
        } catch (Exception e) {
            throw errors.writeFailed(e, XaWriteErrors.atRecord(positionInEpoch, batch.shown(record)), branch);
        }
        if (batch.full()) {
            flush(branch);
        }
    }

    @Override
    public void flush(TransactionId branch) throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        try {
            io.sql("sending a batch of " + batch.records().size() + " rows", batch.insert()::executeBatch);
        } catch (SQLException e) {
            throw errors.writeFailed(e, batch.failedEntry(e), branch);
        }
        batch.clear();
    }

    @Override
    public void abort() {
        batch.clear();
    }
}
