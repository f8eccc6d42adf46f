/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.copy.BinaryCopyEncoder;
import dev.eosink.postgres.row.RowEncoder;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One epoch's rows as a binary {@code COPY ... FROM STDIN}, streamed to the server as they arrive:
 * rows are encoded into a small buffer that is sent whenever it fills, so memory stays at one buffer
 * whatever the checkpoint interval. The COPY is ended at the barrier, before the marker row and
 * PREPARE, all inside the epoch's transaction.
 *
 * @param <R> the rows, which its {@link RowEncoder} writes into the stream
 */
final class CopyStream<R> {

    /** Sent to the server whenever this much is buffered. */
    static final int SEND_BYTES = 64 * 1024;

    private static final Pattern COPY_LINE = Pattern.compile("COPY [^,]*, line (\\d+)");

    private final Connection connection;
    private final IoWatchdog io;
    private final String sql;
    private final RowEncoder<R> encoder;
    /** Keeps what the server has received and not yet read small: see {@link CopyBacklog}. */
    private final CopyBacklog backlog;

    private final BinaryCopyEncoder.Buffer buffer = new BinaryCopyEncoder.Buffer(SEND_BYTES + 4096);
    private CopyIn copy;
    /** A COPY could not be cancelled: the connection must not be used again. */
    private boolean unusable;

    /** Rows held before they are sent, whatever their size: the builder's batchSize. */
    private final int maxRows;

    private int rowsBuffered;
    /** Bytes handed to the driver since the COPY started. */
    private long bytesSent;

    /**
     * @param on the connection the COPY runs on, its IO watchdog and its backlog
     * @param table the table the COPY writes
     * @param columns the columns it writes, in the rows' order
     * @param encoder writes each row into the stream
     * @param maxRows rows held before they are sent, whatever their size
     */
    CopyStream(
            WatchedConnection on,
            SqlIdentifier table,
            java.util.List<String> columns,
            RowEncoder<R> encoder,
            int maxRows) {
        this.connection = on.connection();
        this.backlog = on.backlog();
        this.io = on.io();
        this.maxRows = maxRows;
        this.encoder = encoder;
        this.sql = "COPY " + table.sql() + " ("
                + columns.stream().map(SqlIdentifier::quote).collect(java.util.stream.Collectors.joining(", "))
                + ") FROM STDIN (FORMAT binary)";
    }

    boolean active() {
        return copy != null;
    }

    /** Starts the COPY (in the open transaction: autocommit is off). */
    void start() throws SQLException {
        unusable = false;
        copy = io.call(
                "starting COPY",
                () -> connection.unwrap(PGConnection.class).getCopyAPI().copyIn(sql));
        backlog.started(connection.unwrap(PGConnection.class).getBackendPID());
        buffer.clear();
        bytesSent = 0;
        BinaryCopyEncoder.header(buffer);
    }

    /** Bytes handed to the driver since this COPY started. */
    long bytesSent() {
        return bytesSent;
    }

    /** Encodes one row; refuses a value that does not fit its column before anything is sent. */
    void add(R row) throws SQLException {
        encoder.copy(row, buffer);
        if (++rowsBuffered >= maxRows || buffer.size() >= SEND_BYTES) {
            send();
        }
    }

    /**
     * Sends what is buffered, then waits while the server is too far behind. A server error about an
     * earlier row may surface here.
     */
    void send() throws SQLException {
        if (sendBuffered() > 0) {
            backlog.sent(bytesSent);
            if (Thread.currentThread().isInterrupted()) {
                // Cancelled while waiting for the server to catch up. Had the writer been blocked in
                // the socket instead, its watchdog would abort the connection; do the same, or the
                // cancelled task's cleanup may wait on this COPY for the whole network timeout.
                SQLException e = io.abortInterrupted("waiting for the server to read the COPY data");
                cancel();
                throw e;
            }
        }
    }

    private int sendBuffered() throws SQLException {
        int size = buffer.size();
        if (size > 0) {
            try {
                // The one place where a stalled network blocks a write for good: watched.
                io.call("sending COPY data", () -> {
                    copy.writeToCopy(buffer.array(), 0, buffer.size());
                    copy.flushCopy(); // pgjdbc buffers until flushed: rows must reach the server as they come
                    return null;
                });
                rowsBuffered = 0;
                bytesSent += size;
            } catch (SQLException e) {
                cancel(); // a failed COPY must release the connection, or every later statement waits forever
                throw e;
            }
            buffer.clear();
        }
        return size;
    }

    /** Ends the COPY; returns the rows the server stored. Constraint violations surface here at the latest. */
    long end() throws SQLException {
        BinaryCopyEncoder.trailer(buffer);
        sendBuffered(); // no waiting for the backlog here: ending the COPY waits for all of it anyway
        try {
            long rows = io.call("ending COPY", copy::endCopy);
            copy = null;
            return rows;
        } catch (SQLException e) {
            cancel();
            throw e;
        } finally {
            backlog.ended();
        }
    }

    /**
     * Abandons the COPY (the transaction is rolled back next). pgjdbc holds the connection for an
     * active COPY until it is ended or cancelled; any other statement, a ROLLBACK included, waits for
     * it. Returns false when the COPY could not be cancelled, so the connection must be closed (which
     * ends the session and its transaction) rather than used again.
     */
    boolean cancel() {
        CopyIn active = copy;
        copy = null;
        buffer.clear();
        backlog.ended();
        if (active != null) {
            try {
                if (active.isActive()) {
                    io.call("cancelling COPY", () -> {
                        active.cancelCopy();
                        return null;
                    });
                }
                unusable |= active.isActive();
            } catch (SQLException e) {
                unusable = true;
            }
        }
        return !unusable;
    }

    /**
     * The 0-based position in the epoch of the row a COPY error is about: PostgreSQL names it as
     * "COPY table, line N" (for binary COPY, N counts rows from 1), and each epoch has its own COPY.
     */
    static OptionalLong failedRow(SQLException e) {
        if (e instanceof PSQLException) {
            ServerErrorMessage m = ((PSQLException) e).getServerErrorMessage();
            if (m != null && m.getWhere() != null) {
                Matcher line = COPY_LINE.matcher(m.getWhere());
                if (line.find()) {
                    return OptionalLong.of(Long.parseLong(line.group(1)) - 1);
                }
            }
        }
        return OptionalLong.empty();
    }
}
