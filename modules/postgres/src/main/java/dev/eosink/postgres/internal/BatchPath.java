/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.io.IoWatchdog;

import org.postgresql.core.BaseConnection;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Records as JDBC batches of one prepared statement, {@code batchSize} per round trip: the generated
 * INSERT, or the user's SQL. A refused record fails the epoch; {@link DeadLetterBatchPath} keeps it
 * instead.
 *
 * <p>Invariant: {@link #batch} holds the records bound into the statement's batch and not yet
 * executed ({@linkplain RecordBinder#retain retained}), in order, so that entry i of the JDBC batch is {@code batch.get(i)}, the record at
 * position {@code batchFirstPosition + i}.
 */
sealed class BatchPath<IN> implements WritePath<IN> permits DeadLetterBatchPath {

    private static final Pattern BATCH_ENTRY = Pattern.compile("Batch entry (\\d+)");

    final Connection connection;
    final IoWatchdog io;
    final RecordBinder<IN> binder;
    final WriteErrors errors;
    private final String sql;
    private final int batchSize;

    /** Prepared at the first epoch and reused across the session's transactions. */
    PreparedStatement insert;

    final List<IN> batch = new ArrayList<>();
    long batchFirstPosition;

    BatchPath(WritePlan.Resources session, RecordBinder<IN> binder, String sql) {
        this.connection = session.connection();
        this.io = session.io();
        this.errors = session.errors();
        this.batchSize = session.batchSize();
        this.binder = binder;
        this.sql = sql;
    }

    @Override
    public void begin() throws SQLException {
        if (insert == null) {
            insert = connection.prepareStatement(sql);
        }
    }

    @Override
    public void write(IN record, long positionInEpoch) throws SinkException {
        try {
            binder.bind(insert, record);
            insert.addBatch();
        } catch (Exception e) {
            notBound(positionInEpoch, record, e);
            return;
        }
        if (batch.isEmpty()) {
            batchFirstPosition = positionInEpoch;
        }
        batch.add(binder.retain(record));
        if (batch.size() >= batchSize) {
            flush();
        }
    }

    /** The row mapper or binder threw, or the driver refused a value: nothing was sent for the record. */
    void notBound(long position, IN record, Exception e) throws SinkException {
        throw errors.writeFailed(e, FailurePosition.exact(position, binder.shown(record)));
    }

    @Override
    public void flush() throws SinkException {
        if (batch.isEmpty()) {
            return;
        }
        try {
            send();
        } catch (SQLException e) {
            throw errors.writeFailed(e, failedEntry(e));
        } catch (AssertionError e) {
            SQLException lost = batchAssertion(e);
            throw errors.writeFailed(lost, failedEntry(lost));
        }
        batch.clear();
    }

    /** Executes the batch. */
    void send() throws SQLException, SinkException {
        io.call("sending a batch", insert::executeBatch);
    }

    @Override
    public void end(TransactionId id, long rows) throws SinkException {
        flush(); // not counted: the user's statement may write any number of rows per record
    }

    @Override
    public boolean abort() {
        batch.clear();
        return true;
    }

    /**
     * pgjdbc before 42.7.13, on a JVM with assertions enabled ({@code -ea}), throws an {@link
     * AssertionError} ("pgStatement.getConnection().getAutoCommit() should not throw") instead of a
     * {@link BatchUpdateException} when the session dies during a batch: it asks the closed connection
     * for its autocommit mode. Left alone, that Error escapes every handler of the sink, and the task
     * fails with the driver's message instead of one that names the sink, subtask and epoch. It is the
     * same event as an I/O error, so it is reported as one; any other assertion from the driver is
     * reported as what it is.
     */
    private SQLException batchAssertion(AssertionError e) {
        boolean closed;
        try {
            closed = connection.isClosed();
        } catch (SQLException ignored) {
            closed = true;
        }
        if (closed) {
            return new SQLException(
                    "the connection was lost during the batch (pgjdbc reported only: " + e.getMessage() + ")",
                    "08006",
                    e);
        }
        return new SQLException("the JDBC driver failed during the batch: " + e, null, e);
    }

    /**
     * Which record of the batch the database refused, as far as it can honestly be told. pgjdbc sends
     * each batch entry as its own statement and reports the first that failed as "Batch entry N"
     * (N counts from 0); that N is the record. With reWriteBatchedInserts it merges entries into
     * multi-row INSERTs and N counts those, so N says nothing about the record. A lost connection, or
     * a driver speaking another language, names no entry at all.
     */
    private FailurePosition failedEntry(SQLException e) {
        long last = batchFirstPosition + batch.size() - 1;
        if (batch.size() == 1) {
            return FailurePosition.exact(batchFirstPosition, binder.shown(batch.get(0)));
        }
        if (!(e instanceof BatchUpdateException)) {
            return FailurePosition.batch(batchFirstPosition, last, "the failure was not about one entry of the batch");
        }
        if (rewritesBatches()) {
            return FailurePosition.batch(
                    batchFirstPosition,
                    last,
                    "reWriteBatchedInserts=true sends the batch as multi-row INSERTs, so PostgreSQL's error "
                            + "cannot be traced to one record; set reWriteBatchedInserts=false or batchSize(1) "
                            + "to see the record");
        }
        Matcher m = BATCH_ENTRY.matcher(String.valueOf(e.getMessage()));
        if (m.find()) {
            int entry = Integer.parseInt(m.group(1));
            if (entry < batch.size()) {
                return FailurePosition.exact(batchFirstPosition + entry, binder.shown(batch.get(entry)));
            }
        }
        return FailurePosition.batch(batchFirstPosition, last, "the driver did not name the failing batch entry");
    }

    private boolean rewritesBatches() {
        try {
            return connection.unwrap(BaseConnection.class).getQueryExecutor().isReWriteBatchedInsertsEnabled();
        } catch (SQLException | RuntimeException e) {
            return true; // cannot tell: do not trust an entry number
        }
    }
}
