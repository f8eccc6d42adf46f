/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedLedger;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.HeldWrites;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One writer subtask's PostgreSQL session: a dedicated connection (it carries the open transaction
 * and the {@link OwnershipGuard}, so it is never shared, and never handed back to a pool alive: see
 * {@link SessionEnd}) that writes records into the open transaction and ends it with {@code PREPARE
 * TRANSACTION}, which detaches it from the session.
 *
 * <p>The session keeps the transaction's lifecycle: it begins the transaction at an epoch's first
 * record, writes the marker row and prepares it, rolls it back, and runs the recovery statements
 * between epochs. How records travel inside the transaction is its {@link WritePath}'s, opened once
 * from the {@link Preflight}'s findings; what a failure reads like is {@link WriteErrors}'.
 *
 * <p>One connection plays every role of the session ({@link Recovery}, {@link EpochWriter} and both sides of
 * {@link CarriedWrites}), so the session is each of them. It offers the carried writes whatever its write path:
 * the notices of carried writes are the sink id's, whichever run wrote them, and a path that carries nothing
 * refuses a restored state that carries writes, for good.
 *
 * <p>Invariant: {@code transactionOpen} is true exactly between {@link #begin()} and PREPARE or
 * rollback; the recovery statements refuse to run while it is.
 */
final class PostgresWriterSession<IN>
        implements WriterSession<IN>, Recovery, EpochWriter<IN>, HeldWrites, CarriedLedger {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresWriterSession.class);

    /** See {@link #applyCarried}. */
    static final long CARRIED_LOCK_TIMEOUT_MILLIS = 10_000;

    private final SubtaskContext context;
    private final MarkerTable markers;
    private final MarkerSql markerSql;
    private final Connection connection;
    /** Bounds every call of an epoch (writes, PREPARE, rollback): see {@link IoWatchdog}. */
    private final IoWatchdog io;

    private final OwnershipGuard guard;
    /** COPY flow control, for whichever path uses COPY; it holds the monitor connection, if one was opened. */
    private final CopyBacklog backlog;

    private final WriteErrors errors;
    /** The table and how the sink writes it, for messages. */
    private final String target;

    private final WritePath<IN> path;

    /** The marker row's INSERT, reused across the session's transactions (and for notice rows). */
    private final PreparedStatement marker;

    private boolean transactionOpen;
    /** Lists the sink's prepared transactions within an epoch, on a connection of its own. */
    private final PreparedListing commitLook;

    /**
     * The transactions of this session that recorded writes carried past their barriers ({@link CarriedNotices})
     * that no later one has written yet: the transaction that writes them removes their notices.
     */
    private final List<TransactionId> noticed = new ArrayList<>();

    PostgresWriterSession(
            SubtaskContext context,
            PostgresSinkOptions<IN> options,
            Preflight.Findings<IN> findings,
            Connection connection,
            IoWatchdog io,
            CopyBacklog backlog,
            OwnershipGuard.Opener guardProbe,
            PreparedListing commitLook)
            throws SQLException {
        this.context = context;
        this.markers = options.markers();
        this.markerSql = PostgresDialect.INSTANCE.markers(markers.table());
        this.connection = connection;
        this.io = io;
        this.guard = new OwnershipGuard(connection, context, guardProbe);
        this.backlog = backlog;
        this.commitLook = commitLook;
        this.target = options.statement().describe();
        this.errors = new WriteErrors(target);
        this.marker = connection.prepareStatement(markerSql.insertSql());
        this.path = findings.plan()
                .open(new WritePlan.Resources(context, connection, io, backlog, options.batchSize(), errors));
    }

    @Override
    public Recovery recovery() {
        return this;
    }

    @Override
    public EpochWriter<IN> epoch() {
        return this;
    }

    @Override
    public Optional<CarriedWrites> carriedWrites() {
        return Optional.of(CarriedWrites.of(this, this));
    }

    /**
     * Recovery and ownership statements run between epochs, each in its own transaction: ROLLBACK
     * PREPARED refuses to run inside a transaction block, and after the first epoch the connection
     * is left with autocommit off (see {@link #begin()}). The next record turns it off again.
     */
    private void betweenEpochs(String what) throws SQLException {
        if (transactionOpen) {
            throw new IllegalStateException(context + ": " + what + " while the epoch's transaction is open");
        }
        if (!connection.getAutoCommit()) {
            connection.setAutoCommit(true);
        }
    }

    @Override
    public void claim(int subtask, long waitMillis) throws IOException {
        try {
            betweenEpochs("claiming the guard of subtask " + subtask);
        } catch (SQLException e) {
            throw guard.claimFailed(subtask, e);
        }
        guard.claim(subtask, waitMillis);
    }

    @Override
    public void release(int subtask) throws IOException {
        try {
            betweenEpochs("releasing the guard of subtask " + subtask);
        } catch (SQLException e) {
            throw guard.releaseFailed(subtask, e);
        }
        guard.release(subtask);
    }

    /**
     * Between epochs on the writer's connection, in a transaction of its own; within an epoch (the writer's
     * {@link OwnCommits} asks whether a committer in another JVM committed the previous transaction) on a
     * connection of its own, never inside the epoch's transaction ({@link PreparedListing} says why).
     */
    @Override
    public List<TransactionId> listPrepared() throws IOException {
        try {
            if (transactionOpen) {
                return commitLook.list();
            }
            betweenEpochs("listing prepared transactions");
            return PreparedListing.list(connection, io, context.sinkId());
        } catch (SQLException e) {
            throw new SinkException(context + ": could not list prepared transactions: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws IOException {
        try (PreparedStatement s =
                connection.prepareStatement(markerSql.committedAfterSql().orElseThrow())) {
            betweenEpochs("reading the marker table");
            s.setString(1, context.sinkId());
            s.setLong(2, checkpointId);
            s.setString(3, MarkerTable.namedBy(takenBy));
            s.setLong(4, sinceEpochMillis);
            return io.call("reading the marker table", () -> {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) == 0
                            ? Optional.<Committed>empty()
                            : Optional.of(new Committed(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            });
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not read marker table " + markers.table() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void rollbackPrepared(TransactionId id) throws IOException {
        try (Statement s = connection.createStatement()) {
            betweenEpochs("rolling back " + id);
            s.execute("ROLLBACK PREPARED " + SqlIdentifier.literal(id.toString()));
        } catch (SQLException e) {
            if ("42704".equals(e.getSQLState())) {
                LOG.info("{}: {} was already gone when rolling it back", context, id);
                return;
            }
            throw new SinkException(
                    context
                            + ": could not roll back prepared transaction "
                            + id
                            + " (checkpoint "
                            + id.checkpointId()
                            + ", subtask "
                            + id.subtask()
                            + "): "
                            + e.getMessage()
                            + PostgresErrors.commitRemedy(e),
                    e);
        }
    }

    /**
     * Opens the epoch's transaction now when the path holds statements from before the barrier: the
     * writer begins an epoch for them alone when no record comes. Otherwise the first record does.
     */
    @Override
    public void begin(TransactionId id) throws IOException {
        if (!transactionOpen && path.holdsWrites()) {
            try {
                begin();
            } catch (SQLException e) {
                throw new SinkException(
                        context + ": beginning the transaction of " + id + " failed: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public boolean holdsWrites() {
        return path.holdsWrites();
    }

    @Override
    public void write(IN record, long positionInEpoch) throws IOException {
        if (!transactionOpen) {
            try {
                begin();
            } catch (SQLException e) {
                throw errors.writeFailed(e, FailurePosition.exact(positionInEpoch, record));
            }
        }
        path.write(record, positionInEpoch);
    }

    private void begin() throws SQLException {
        // Autocommit off: the driver opens the transaction with the first statement.
        connection.setAutoCommit(false);
        path.begin();
        transactionOpen = true;
    }

    @Override
    public void flush() throws IOException {
        // Between epochs nothing is buffered but statements held past the last barrier, and those
        // must never run outside an epoch's transaction: they wait for the next record.
        if (transactionOpen) {
            path.flush();
        }
    }

    @Override
    public void prepare(TransactionId id, long rows) throws IOException {
        long t0 = System.nanoTime();
        path.end(id, rows);
        long t1 = System.nanoTime();
        boolean markerWritten = false;
        try {
            path.writeKept(id);
            marker.setString(1, id.toString());
            marker.setString(2, id.sinkId());
            marker.setInt(3, id.subtask());
            marker.setLong(4, id.checkpointId());
            marker.setLong(5, rows);
            io.call("writing the marker row", marker::executeUpdate);
            int held = path.heldWrites();
            if (held > 0) {
                io.call("writing the notice of carried writes", () -> {
                    CarriedNotices.insert(marker, id, held);
                    return null;
                });
                noticed.add(id);
            } else if (!noticed.isEmpty()) {
                // This epoch wrote what earlier ones carried: their transactions committed before it could.
                io.call(
                        "removing the notices of carried writes",
                        () -> CarriedNotices.delete(connection, markerSql, noticed));
                noticed.clear();
            }
            markerWritten = true;
            long t2 = System.nanoTime();
            try (Statement s = connection.createStatement()) {
                io.call(
                        "PREPARE TRANSACTION",
                        () -> s.execute("PREPARE TRANSACTION " + SqlIdentifier.literal(id.toString())));
            }
            if (LOG.isDebugEnabled()) {
                // Where a slow checkpoint spends its time: ending COPY waits for the server to store every
                // row still in flight (the largest part under load); PREPARE flushes the WAL.
                long t3 = System.nanoTime();
                LOG.debug(
                        "{}: prepared {} in {} us: last rows and end of COPY {} us, marker {} us, PREPARE {} us; "
                                + "COPY flow control in the epoch: {}",
                        context,
                        id,
                        (t3 - t0) / 1000,
                        (t1 - t0) / 1000,
                        (t2 - t1) / 1000,
                        (t3 - t2) / 1000,
                        backlog.epochStats());
            }
            transactionOpen = false;
            path.prepared().ifPresent(summary -> LOG.debug("{}: prepared {}: {}", context, id, summary));
        } catch (SQLException e) {
            throw errors.prepareFailed(id, rows, markers.table(), markerWritten, e);
        }
    }

    /**
     * Writes carried statements in a transaction of their own, committed at once. With a lock
     * timeout of {@link #CARRIED_LOCK_TIMEOUT_MILLIS}: after a rescale, the subtask that owns one of
     * their keys now may have written it already, in an epoch that commits only with a checkpoint,
     * and no checkpoint begins before this writer has started; waiting longer would not help. Then
     * nothing of them is committed, and the task fails over and tries again.
     */
    @Override
    public void applyCarried(byte[] carried, int subtask, String origin) throws IOException {
        try {
            betweenEpochs("writing carried statements");
            connection.setAutoCommit(false);
            try (Statement s = connection.createStatement()) {
                s.execute("SET LOCAL lock_timeout = '" + CARRIED_LOCK_TIMEOUT_MILLIS + "ms'");
            }
            path.writeCarried(carried);
            io.call(
                    "removing the notices of carried writes",
                    () -> CarriedNotices.delete(connection, markerSql, context.sinkId(), subtask));
            io.call("committing carried statements", () -> {
                connection.commit();
                return null;
            });
        } catch (SQLException | IOException e) {
            try {
                connection.rollback();
            } catch (SQLException r) {
                e.addSuppressed(r);
            }
            String failed = origin + ": writing the upserts and deletes that it carried past its barrier into " + target
                    + " failed: " + e.getMessage();
            if (e instanceof CarriedStatementsRefused) {
                // A restart would read the same state again.
                throw new SuppressRestartsException(new SinkException(failed + ". Nothing of them is committed", e));
            }
            boolean locked = e instanceof SQLException q && "55P03".equals(q.getSQLState());
            throw new SinkException(
                    failed
                            + (locked
                                    ? " (another session holds a row of one of their keys: after a rescale, the subtask that "
                                            + "owns that key now may have written it first. The task fails over and tries again; "
                                            + "nothing of these writes is committed)"
                                    : ""),
                    e);
        }
    }

    @Override
    public List<CarriedNotice> openCarried() throws IOException {
        try {
            if (transactionOpen) {
                return commitLook.openCarried(markerSql);
            }
            betweenEpochs("reading the notices of carried writes");
            return io.call(
                    "reading the notices of carried writes",
                    () -> CarriedNotices.read(connection, markerSql, context.sinkId()));
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not read marker table " + markers.table() + " for writes carried "
                            + "past a barrier: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public void closeCarried(int subtask) throws IOException {
        try {
            betweenEpochs("removing the notices of carried writes");
            io.call(
                    "removing the notices of carried writes",
                    () -> CarriedNotices.delete(connection, markerSql, context.sinkId(), subtask));
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not remove the notices of writes subtask " + subtask
                            + " carried past a barrier from marker table " + markers.table() + ": " + e.getMessage(),
                    e);
        }
    }

    /** Upserts may touch rows the previous, still prepared epoch wrote; inserts never wait for them. */
    @Override
    public void ownCommits(OwnCommits ownCommits) {
        path.ownCommits(ownCommits);
    }

    @Override
    public Optional<byte[]> carried() {
        return path.carried();
    }

    /** COPY data sent and not yet confirmed read by the server, as flow control last knew it: never a query. */
    @Override
    public long backlogBytes() {
        return backlog.unconfirmed();
    }

    @Override
    public void abortOpen() throws IOException {
        if (!path.abort()) {
            // The COPY could not be cancelled (the connection broke mid-COPY) and pgjdbc would make a
            // ROLLBACK wait for it forever. Closing ends the session, which rolls the transaction back.
            transactionOpen = false;
            try {
                SessionEnd.endSession(connection, io, context); // no statement: it would wait for the COPY
            } catch (SQLException e) {
                throw new SinkException(context + ": closing the connection of a broken COPY failed", e);
            }
            return;
        }
        if (!transactionOpen) {
            return;
        }
        transactionOpen = false;
        try {
            if (!connection.isClosed()) {
                io.call("rolling back the open transaction", () -> {
                    connection.rollback();
                    return null;
                });
            }
        } catch (SQLException e) {
            throw new SinkException(context + ": rolling back the open transaction failed", e);
        }
    }

    @Override
    public void close() throws IOException {
        backlog.close();
        commitLook.close();
        try {
            // Releases the guards and ends the session (rolling back anything open), also when the
            // connection is a pool's: a pool must never keep the guard.
            SessionEnd.close(connection, io, context);
        } catch (SQLException e) {
            throw new SinkException(context + ": closing the connection failed", e);
        }
    }
}
