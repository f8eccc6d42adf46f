/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.RecordText;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * JDBC batches that keep the records the database refuses for their data (and those the row mapper
 * cannot map) in the dead-letter table, in the epoch's own transaction, while the rest of the epoch
 * goes on: see {@link DeadLetters}. Anything else (a lost connection, a missing privilege) fails the
 * epoch as on {@link BatchPath}.
 *
 * <p>Why batches and never COPY: a refused row aborts a COPY and everything it streamed so far; only
 * statements of a batch can be undone one by one (savepoints).
 */
final class DeadLetterBatchPath<IN> extends BatchPath<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterBatchPath.class);

    private final SubtaskContext context;
    private final DeadLetters deadLetters;

    DeadLetterBatchPath(WritePlan.Resources session, RecordBinder<IN> binder, String sql, DeadLetters deadLetters) {
        super(session, binder, sql);
        this.context = session.context();
        this.deadLetters = deadLetters;
    }

    @Override
    public void begin() throws SQLException {
        super.begin();
        deadLetters.clear();
    }

    /** A record the row mapper or binder cannot bind is kept; a lost connection still fails the epoch. */
    @Override
    void notBound(long position, IN record, Exception e) throws SinkException {
        if (e instanceof SQLException sql && PostgresErrors.isTransient(sql)) {
            super.notBound(position, record, e);
            return;
        }
        keep(position, record, e); // nothing was sent for it
    }

    /**
     * The batch goes out after a savepoint. When the database refuses a record of it, the batch is
     * undone back to the savepoint and sent again record by record, each after a savepoint of its own,
     * so that a refused record is undone alone and kept for the dead-letter table while the others stay
     * in the epoch. Only records the database refuses for their data are kept ({@link
     * PostgresErrors#rejectsRecord}); anything else fails the epoch as always.
     */
    @Override
    void send() throws SQLException, SinkException {
        Savepoint beforeBatch = connection.setSavepoint();
        try {
            io.call("sending a batch", insert::executeBatch);
        } catch (SQLException e) {
            if (!PostgresErrors.rejectsRecord(e)) {
                throw e;
            }
            connection.rollback(beforeBatch);
            insert.clearBatch();
            for (int i = 0; i < batch.size(); i++) {
                sendOne(batchFirstPosition + i, batch.get(i));
            }
        }
        connection.releaseSavepoint(beforeBatch);
    }

    private void sendOne(long position, IN record) throws SQLException, SinkException {
        Savepoint beforeRecord = connection.setSavepoint();
        try {
            binder.bind(insert, record);
            io.call("sending a record", insert::executeUpdate);
        } catch (SQLException e) {
            if (!PostgresErrors.rejectsRecord(e)) {
                throw e;
            }
            connection.rollback(beforeRecord);
            keep(position, record, e);
        } catch (Exception e) { // the binder threw this time (it did not when the record was batched)
            keep(position, record, e);
        }
        connection.releaseSavepoint(beforeRecord);
    }

    /** Keeps a refused record for the dead-letter table, or fails the epoch when it has kept too many. */
    private void keep(long position, IN record, Exception e) throws SinkException {
        String state = e instanceof SQLException ? ((SQLException) e).getSQLState() : null;
        Object shown = binder.shown(record);
        if (!deadLetters.add(position, RecordText.plain(shown), state, WriteErrors.refusal(e))) {
            throw errors.tooManyRefused(position, shown, e);
        }
    }

    @Override
    public void writeKept(TransactionId id) throws SQLException {
        int kept = deadLetters.size();
        if (kept > 0) {
            io.call("writing the dead letters", () -> {
                deadLetters.write(connection, id);
                return null;
            });
            LOG.warn(
                    "{}: {} kept {} refused records of the epoch in dead-letter table {}",
                    context,
                    id,
                    kept,
                    deadLetters.table());
        }
    }

    @Override
    public boolean abort() {
        deadLetters.clear();
        return super.abort();
    }
}
