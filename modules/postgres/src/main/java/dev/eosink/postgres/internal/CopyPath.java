package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.sql.InsertStatement;

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
 * two batches: the server's error usually falls within the last chunk or two.
 */
final class CopyPath<IN> implements WritePath<IN> {

    private final InsertStatement.Columns<IN> statement;
    private final CopyStream copy;
    private final WriteErrors errors;
    private final int recentMax;

    /** The latest records sent, newest last: positions {@code rowsInEpoch - recent.size()} on. */
    private final ArrayDeque<IN> recent = new ArrayDeque<>();
    private long rowsInEpoch;

    CopyPath(WritePlan.Resources session, InsertStatement.Columns<IN> statement, CopyStream copy) {
        this.statement = statement;
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
            copy.add(statement.toRow(record));
            recent.addLast(record);
            if (recent.size() > recentMax) {
                recent.removeFirst();
            }
            rowsInEpoch++;
        } catch (SQLException e) {
            // The server refused a row sent earlier (COPY streams ahead of its answers).
            throw errors.writeFailed(e, copyPosition(e));
        } catch (Exception e) {
            throw errors.writeFailed(e, FailurePosition.exact(positionInEpoch, record));
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
            return FailurePosition.exact(position, it.next());
        }
        return FailurePosition.row(position, e);
    }
}
