/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.JdbcDialect;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Inserts as JDBC batches ({@link XaInsertBatch}) that keep the records the database refuses for
 * their data, and those the row mapper cannot map, for the dead-letter table, in the epoch's own
 * branch, while the rest of the epoch goes on: see {@link XaDeadLetters}, which sends each batch under
 * a savepoint. Anything else (a lost connection, a missing privilege) fails the epoch as on {@link
 * XaInsertPath}, and so does one refused record more than the table takes in an epoch.
 */
final class XaDeadLetterInsertPath<IN> implements XaWritePath<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(XaDeadLetterInsertPath.class);

    private final SubtaskContext context;
    private final JdbcDialect dialect;
    private final XaWriteErrors errors;
    private final XaInsertBatch<IN> batch;
    private final XaDeadLetters<IN> deadLetters;
    /** The epoch connection and its watchdog, set with its statement: savepoints go on it. */
    private Connection connection;

    private XaIo io;

    XaDeadLetterInsertPath(
            SubtaskContext context,
            XaDatabase<IN> database,
            JdbcDialect dialect,
            XaInsertBatch<IN> batch,
            XaDeadLetters<IN> deadLetters) {
        this.context = context;
        this.dialect = dialect;
        this.errors = new XaWriteErrors(database, dialect);
        this.batch = batch;
        this.deadLetters = deadLetters;
    }

    @Override
    public void prepareStatements(Connection c, XaIo io) throws SQLException {
        batch.prepare(c);
        this.connection = c;
        this.io = io;
    }

    @Override
    public void begin() {
        deadLetters.clear();
    }

    /** A record the row mapper or binder cannot bind is kept; a driver's failure that is no refusal still fails the epoch. */
    @Override
    public void write(IN record, long positionInEpoch, TransactionId branch) throws IOException {
        try {
            batch.add(record, positionInEpoch);
        } catch (Exception e) {
            if (e instanceof SQLException sql && !dialect.errors().rejectsRecord(sql)) {
                throw errors.writeFailed(e, XaWriteErrors.atRecord(positionInEpoch, batch.shown(record)), branch);
            }
            flush(branch); // the batch's positions stay contiguous
            try {
                deadLetters.notBound(positionInEpoch, record, e);
            } catch (XaDeadLetters.TooMany t) {
                throw errors.tooManyRefused(t, branch);
            }
            return;
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
            deadLetters.send(connection, io, batch.insert(), batch.records(), batch.firstPosition());
        } catch (XaDeadLetters.TooMany t) {
            throw errors.tooManyRefused(t, branch);
        } catch (SQLException e) {
            throw errors.writeFailed(e, batch.failedEntry(e), branch);
        }
        batch.clear();
    }

    @Override
    public void writeKept(TransactionId id) throws SinkException {
        int kept = deadLetters.size();
        if (kept == 0) {
            return;
        }
        try {
            deadLetters.writeKept(connection, io, id);
        } catch (SQLException e) {
            throw errors.writeFailed(
                    e, "writing " + kept + " refused record(s) into dead-letter table " + deadLetters.table(), id);
        }
        LOG.warn(
                "{}: {} kept {} refused records of the epoch in dead-letter table {}",
                context,
                id,
                kept,
                deadLetters.table());
    }

    @Override
    public void abort() {
        batch.clear();
        deadLetters.clear();
    }
}
