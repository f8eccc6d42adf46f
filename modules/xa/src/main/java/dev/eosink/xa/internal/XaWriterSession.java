/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedLedger;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.XaTraits.MarkerRow;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.xa.internal.XaErrors.Handling;
import dev.eosink.xa.internal.XaErrors.Operation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * One writer subtask's XA session. Two connections, each playing its roles of the session:
 *
 * <ul>
 *   <li>the <b>guard</b>, open as long as the writer lives: it holds the ownership guard (a session
 *       lock the database releases when the session ends, however the task died), lists prepared
 *       branches ({@code recover}), rolls back leftovers and reads and clears the notices of carried
 *       writes. It is never inside a branch. This class is the guard side: the {@link Recovery} and the
 *       {@link CarriedLedger}.
 *   <li>the <b>epoch</b> connection, which carries the open branch: {@link XaEpochBranch}, the {@link
 *       EpochWriter} and the held side of the carried writes.
 * </ul>
 *
 * <p>The guard and the branch live on different sessions, and a session can outlive its client: when
 * a task manager dies while its XA PREPARE still runs on the server, the idle guard session ends at
 * once, but the epoch session ends only once that PREPARE is done, and its branch appears prepared
 * afterwards. So the guard alone cannot tell a restarted writer that the writer before it has
 * finished. The <b>branch lock</b> does: every epoch connection holds it from before its first {@code
 * XA START} until it ends, and a claim waits for it before recovery lists prepared branches ({@link
 * XaLocks} keeps both locks and states what they promise).
 *
 * <p>Every driver call of an epoch and of recovery runs under the network timeout ({@link XaIo}); the
 * epoch connection waits at most the lock timeout for a lock held by another transaction.
 *
 * <p>Invariant: recovery calls ({@link #listPrepared}, {@link #rollbackPrepared}, {@link
 * #committedAfter}, {@link #openCarried}, {@link #closeCarried}) run on the guard, never inside a branch.
 * The session is the one owner of both connections: {@link #close} ends them.
 */
final class XaWriterSession<IN> implements WriterSession<IN>, Recovery, CarriedLedger {

    private static final Logger LOG = LoggerFactory.getLogger(XaWriterSession.class);

    private final SubtaskContext context;
    private final XaDatabase<IN> database;
    private final JdbcDialect dialect;
    private final XAConnection guardXa;
    private final Connection guard;
    /** Bounds every call on the guard connection. */
    private final XaIo guardIo;

    private final XaLocks locks;
    private final XaEpochBranch<IN> epoch;

    /**
     * @param guard the handle of {@code guardXa} already in use: a second {@code getConnection()} would
     *     close it (pgjdbc hands out one live handle per XA connection)
     */
    XaWriterSession(
            SubtaskContext context,
            XaDatabase<IN> database,
            JdbcDialect dialect,
            XAConnection guardXa,
            Connection guard) {
        this.context = context;
        this.database = database;
        this.dialect = dialect;
        this.guardXa = guardXa;
        this.guard = guard;
        this.guardIo = new XaIo(guard, database.networkTimeout(), context + " (guard)");
        this.locks = new XaLocks(context, dialect, guard, guardIo, database.target());
        // The write path of the database's write mode, in its dialect's SQL: chosen once, for this writer.
        this.epoch = new XaEpochBranch<>(context, database, dialect, locks, XaWritePath.of(context, database, dialect));
    }

    @Override
    public Recovery recovery() {
        return this;
    }

    @Override
    public EpochWriter<IN> epoch() {
        return epoch;
    }

    /** Offered whatever the statements: an insert branch refuses a restored state that carries writes, for good. */
    @Override
    public Optional<CarriedWrites> carriedWrites() {
        return Optional.of(CarriedWrites.of(epoch, this));
    }

    @Override
    public void claim(int subtask, long waitMillis) throws IOException {
        locks.claim(subtask, waitMillis);
    }

    @Override
    public void release(int subtask) throws IOException {
        locks.release(subtask);
    }

    @Override
    public List<TransactionId> listPrepared() throws IOException {
        try {
            XAResource resource = guardXa.getXAResource();
            return PreparedBranches.list(guardIo, resource, context, dialect);
        } catch (SQLException e) {
            throw new SinkException(context + ": could not list prepared XA transactions: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws IOException {
        Optional<String> sql = dialect.markers(database.markerId()).committedAfterSql();
        if (sql.isEmpty()) {
            return Optional.empty();
        }
        try (PreparedStatement s = guard.prepareStatement(sql.get())) {
            s.setString(1, context.sinkId());
            s.setLong(2, checkpointId);
            s.setString(3, MarkerTable.namedBy(takenBy));
            s.setLong(4, sinceEpochMillis);
            return guardIo.sql("reading the marker table", () -> {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) == 0
                            ? Optional.<Committed>empty()
                            : Optional.of(new Committed(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            });
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not read marker table "
                            + dialect.qualified(database.markerSchema(), database.markerTable()) + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * Rolls back {@code id}, a branch {@link #listPrepared} listed. Returns only for a branch the database
     * rolled back, or that is gone: where the database may answer a rollback without doing it ({@link
     * JdbcDialect#provesOutcomesByMarker}), only once no transaction holds the branch's marker row. A branch
     * still attached to its preparing session, and one the database lost track of, fail the task.
     */
    @Override
    public void rollbackPrepared(TransactionId id) throws IOException {
        Xid xid = XaIds.toXid(id);
        XAException gone = null;
        try {
            XAResource resource = guardXa.getXAResource();
            guardIo.xa("XA rollback of " + id, () -> {
                resource.rollback(xid);
                return null;
            });
        } catch (XAException e) {
            Handling handling = XaErrors.of(Operation.ROLLBACK, e);
            if (handling != Handling.KNOWN) {
                throw new SinkException(
                        context + ": could not roll back prepared transaction " + id + " (checkpoint "
                                + id.checkpointId() + ", subtask " + id.subtask() + ", xid " + XaIds.describe(xid)
                                + "): "
                                + XaErrors.describe(e) + "."
                                + (handling == Handling.RETRY
                                        ? " The task fails and the restarted one tries again."
                                        : XaErrors.remedy(Operation.ROLLBACK, e.errorCode)),
                        e);
            }
            if (listPrepared().contains(id)) {
                // MariaDB: still attached to the session that prepared it (a task going away).
                throw new SinkException(
                        context + ": rolling back " + id + " (" + XaIds.describe(xid)
                                + ") failed with " + XaErrors.describe(e)
                                + ", yet it is still prepared: the session that "
                                + "prepared it has not ended. The task fails and the restarted one tries again.",
                        e);
            }
            gone = e;
        } catch (SQLException e) {
            throw new SinkException(context + ": could not roll back " + id + ": " + e.getMessage(), e);
        }
        if (dialect.xa().provesOutcomesByMarker() && markerRow(id) == MarkerRow.HELD) {
            throw lostTrackOf(
                    id,
                    xid,
                    "answered the XA ROLLBACK with " + (gone == null ? "success" : XaErrors.describe(gone)),
                    gone);
        }
        if (gone != null) {
            LOG.info("{}: {} was already gone when rolling it back ({})", context, id, XaErrors.name(gone.errorCode));
        }
    }

    /** The marker row of {@code id}, asked on the guard connection. */
    private MarkerRow markerRow(TransactionId id) throws SinkException {
        try {
            return guardIo.sql(
                    "looking up the marker row of " + id,
                    () -> dialect.xa().markerRow(guard, dialect.markers(database.markerId()), id.toString()));
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not read marker table "
                            + dialect.qualified(database.markerSchema(), database.markerTable())
                            + " to prove the rollback of "
                            + id + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * The rollback of a branch that the database no longer lists but still holds prepared: MariaDB's answer
     * to an XA statement that reached the branch while the session that prepared it was ending (see {@code
     * MariaDbXaTraits}). No XA statement reaches that branch until the server restarts.
     */
    private SinkException lostTrackOf(TransactionId id, Xid xid, String answered, XAException cause) {
        return new SinkException(
                context + ": the rollback of " + id + " (checkpoint " + id.checkpointId()
                        + ", subtask " + id.subtask() + ", xid " + XaIds.describe(xid) + ") into " + database.target()
                        + ": "
                        + XaErrors.lostTrackOfBranch(dialect.name(), answered) + " "
                        + "The task fails; until that restart, writes of the branch's rows wait for its locks. Remedy: "
                        + "restart " + dialect.name()
                        + " (a prepared branch survives a restart), after which recovery at the "
                        + "next start of this subtask finds the branch again, or roll it back by hand then (XA ROLLBACK). "
                        + "Never commit it: no completed checkpoint promised it.",
                cause);
    }

    /** On the guard connection, whose session runs no branch: a local, autocommitted read. */
    @Override
    public List<CarriedNotice> openCarried() throws IOException {
        MarkerSql markers = dialect.markers(database.markerId());
        try {
            return guardIo.sql(
                    "reading the notices of carried writes",
                    () -> CarriedNotices.read(guard, markers, context.sinkId()));
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not read marker table " + markers + " for writes carried past a " + "barrier: "
                            + e.getMessage(),
                    e);
        }
    }

    @Override
    public void closeCarried(int subtask) throws IOException {
        MarkerSql markers = dialect.markers(database.markerId());
        try {
            guardIo.sql(
                    "removing the notices of carried writes",
                    () -> CarriedNotices.delete(guard, markers, context.sinkId(), subtask));
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not remove the notices of writes subtask " + subtask
                            + " carried past a barrier from marker table " + markers + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public void close() throws IOException {
        epoch.closeConnection();
        try {
            guardXa.close(); // ends the session: releases the guards
        } catch (SQLException e) {
            throw new SinkException(context + ": closing the guard connection failed", e);
        }
    }
}
