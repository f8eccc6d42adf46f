/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.OptionalLong;

/**
 * Inserts as one binary COPY per epoch ({@link CopyStream}), streamed as records arrive and ended
 * before PREPARE, where the rows the server stored must be the epoch's.
 *
 * <p>COPY streams ahead of the server's answers, so a refused row surfaces later, naming its line
 * (its position in the epoch). To show the record, the path keeps the latest records it sent, at most
 * two batches: the server's error usually falls within the last chunk or two, retained as the
 * table's rows retain them (copies where the records' producer may reuse them).
 *
 * @param <R> the records' rows, written into COPY as they come
 */
final class CopyPath<IN, R> implements WritePath<IN> {

    private final TableRows<IN, R> rows;
    private final CopyStream<R> copy;
    private final WriteErrors errors;
    private final int recentMax;

    /** The latest records sent, newest last: positions {@code rowsInEpoch - recent.size()} on. */
    private final ArrayDeque<IN> recent = new ArrayDeque<>();

    private long rowsInEpoch;

    CopyPath(WritePlan.Resources session, TableRows<IN, R> rows, CopyStream<R> copy) {
        this.rows = rows;
        this.copy = copy;
        this.errors = session.errors();
        this.recentMax = 2 * session.batchSize();
    }

    @Override
    public void begin() throws SQLException {
        copy.start();
        rowsInEpoch = 0;
        recent.clear();
    }

    @Override
    public void write(IN record, long positionInEpoch) throws SinkException {
        try {
            copy.add(rows.row(record));
            recent.addLast(rows.retain(record));
            if (recent.size() > recentMax) {
                recent.removeFirst();
            }
            rowsInEpoch++;
        } catch (SQLException e) {
            // The server refused a row sent earlier (COPY streams ahead of its answers).
            throw errors.writeFailed(e, copyPosition(e));
        } catch (Exception e) {
            throw errors.writeFailed(e, FailurePosition.exact(positionInEpoch, rows.shown(record)));
        }
    }

    @Override
    public void flush() throws SinkException {
        if (copy.active()) {
            try {
                copy.send();
            } catch (SQLException e) {
                throw errors.writeFailed(e, copyPosition(e));
            }
        }
    }

    @Override
    public void end(TransactionId id, long rows) throws SinkException {
        flush();
        if (!copy.active()) {
            return;
        }
        long stored;
        try {
            stored = copy.end();
        } catch (SQLException e) {
            throw errors.writeFailed(e, copyPosition(e));
        }
        if (stored != rows) {
            // Never prepare what does not match what Flink handed over.
            throw errors.copyCountMismatch(id, stored, rows);
        }
    }

    @Override
    public boolean abort() {
        return copy.cancel();
    }

    private FailurePosition copyPosition(SQLException e) {
        OptionalLong row = CopyStream.failedRow(e);
        if (row.isEmpty()) {
            return FailurePosition.batch(0, Math.max(0, rowsInEpoch - 1), "the database did not name the row");
        }
        long position = row.getAsLong();
        long oldestKept = rowsInEpoch - recent.size();
        if (position >= oldestKept && position < rowsInEpoch) {
            Iterator<IN> it = recent.iterator();
            for (long i = oldestKept; i < position; i++) {
                it.next();
            }
            return FailurePosition.exact(position, rows.shown(it.next()));
        }
        return FailurePosition.row(position, e);
    }
}
