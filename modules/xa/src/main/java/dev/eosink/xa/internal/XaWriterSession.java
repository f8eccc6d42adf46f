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
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.XaTraits;
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
 * <p>Where the guard is a transaction left open on the guard connection ({@link
 * SessionLocks#guardHoldsTransaction}: a row lock on Firebird), nothing that must commit, and nothing that
 * needs a transaction of its own kind, may run there once a guard is held: the reads and deletes of the
 * marker table ({@link #committedAfter}, {@link #openCarried}, {@link #closeCarried}, the marker row) then
 * run on a third connection of the writer, the <b>reader</b>, opened when first needed. Elsewhere the
 * reader is the guard connection itself, in autocommit. The reads of committed markers pass over the rows
 * of prepared branches ({@link XaTraits#pastPrepared}).
 *
 * <p>Invariant: recovery calls ({@link #listPrepared}, {@link #rollbackPrepared}, {@link
 * #committedAfter}, {@link #openCarried}, {@link #closeCarried}) run on the guard or the reader, never
 * inside a branch. The session is the one owner of its connections: {@link #close} ends them.
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
    /** Whether the guard connection holds a transaction while it holds guards (see the class comment). */
    private final boolean guardHoldsTransaction;
    /** The reader's XA connection, where it is not the guard's; null until first needed. */
    private XAConnection readerXa;
    /** The reader's one handle (the guard's where it holds no transaction); null until first needed. */
    private Connection reader;
    /** Bounds every call on {@link #reader}. */
    private XaIo readerIo;

    /**
     * @param guard the handle of {@code guardXa} already in use: a second {@code getConnection()} would
     *     close it (pgjdbc hands out one live handle per XA connection)
     */
    XaWriterSession(
            SubtaskContext context,
            XaDatabase<IN> database,
            JdbcDialect dialect,
            XAConnection guardXa,
            Connection guard)
            throws SQLException {
        this.context = context;
        this.database = database;
        this.dialect = dialect;
        this.guardXa = guardXa;
        this.guard = guard;
        this.guardIo = new XaIo(guard, database.networkTimeout(), context + " (guard)", dialect.xa());
        this.locks = new XaLocks(context, dialect, guard, guardIo, database.target());
        // The write path of the database's write mode, in its dialect's SQL: chosen once, for this writer.
        this.epoch = new XaEpochBranch<>(context, database, dialect, locks, XaWritePath.of(context, database, dialect));
        this.guardHoldsTransaction =
                dialect.sessionLocks().map(SessionLocks::guardHoldsTransaction).orElse(false);
        if (!guardHoldsTransaction) {
            this.reader = guard;
            this.readerIo = guardIo;
        }
    }

    /**
     * The connection for the marker table's reads and deletes, in autocommit: the guard's, or, where the guard
     * holds a transaction, a connection of its own, opened now if there is none (see the class comment).
     */
    private Connection reader() throws SinkException {
        if (reader == null) {
            XAConnection xa = database.open(context, "reader");
            try {
                Connection c = xa.getConnection();
                c.setAutoCommit(true);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                readerIo = new XaIo(c, database.networkTimeout(), context + " (reader)", dialect.xa());
                readerXa = xa;
                reader = c;
            } catch (SQLException e) {
                XaDatabase.closeQuietly(xa, e);
                throw new SinkException(
                        context + ": could not open a connection to read the marker table: " + e.getMessage(), e);
            }
        }
        return reader;
    }

    /** Drops a reader of its own that failed: the next call opens a new one. */
    private void dropReader() {
        if (readerXa != null) {
            XAConnection xa = readerXa;
            XaIo io = readerIo;
            readerXa = null;
            reader = null;
            readerIo = null;
            try {
                io.close(xa);
            } catch (SQLException e) {
                LOG.debug("{}: closing a failed reader connection failed", context, e);
            }
        }
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
            return PreparedBranches.list(guardIo, resource, guard, context, dialect);
        } catch (SQLException e) {
            throw new SinkException(context + ": could not list prepared XA transactions: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws IOException {
        MarkerSql markers = dialect.markers(database.markerId());
        Optional<String> sql = markers.committedAfterSql();
        if (sql.isEmpty()) {
            LOG.warn(
                    "{}: {} cannot tell whether the sink committed after restored checkpoint {} (its marker table "
                            + "keeps no time comparable with the checkpoint's): the rewind check is skipped, and "
                            + "rewindPolicy has no effect on this database.",
                    context,
                    dialect.name(),
                    checkpointId);
            return Optional.empty();
        }
        Connection c = reader();
        try {
            // Committed markers only: a marker of a branch still prepared (of another subtask) must not fail it. The
            // statement is prepared inside: a driver may begin the transaction that runs it then (Jaybird does).
            return readerIo.sql(
                    "reading the marker table",
                    () -> dialect.xa().pastPrepared(c, () -> {
                        try (PreparedStatement s = c.prepareStatement(sql.get())) {
                            s.setString(1, context.sinkId());
                            s.setLong(2, checkpointId);
                            s.setString(3, MarkerTable.namedBy(takenBy));
                            s.setLong(4, markers.committedAfterTime(sinceEpochMillis));
                            try (ResultSet rs = s.executeQuery()) {
                                rs.next();
                                return rs.getLong(1) == 0
                                        ? Optional.<Committed>empty()
                                        : Optional.of(new Committed(
                                                rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                            }
                        }
                    }));
        } catch (SQLException e) {
            dropReader();
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
            // A dialect may know a code that only says the branch is finished already (Firebird's XA_HEURCOM).
            Handling handling = dialect.xa().answersFinished(e) ? Handling.KNOWN : XaErrors.of(Operation.ROLLBACK, e);
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

    /** The marker row of {@code id}, asked on the reader connection (autocommit). */
    private MarkerRow markerRow(TransactionId id) throws SinkException {
        Connection c = reader();
        try {
            return readerIo.sql(
                    "looking up the marker row of " + id,
                    () -> dialect.xa().markerRow(c, dialect.markers(database.markerId()), id.toString()));
        } catch (SQLException e) {
            dropReader();
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

    /**
     * On the reader connection, whose session runs no branch: a local, autocommitted read of committed notices,
     * past the markers of branches still prepared.
     */
    @Override
    public List<CarriedNotice> openCarried() throws IOException {
        MarkerSql markers = dialect.markers(database.markerId());
        Connection c = reader();
        try {
            return readerIo.sql(
                    "reading the notices of carried writes",
                    () -> dialect.xa().pastPrepared(c, () -> CarriedNotices.read(c, markers, context.sinkId())));
        } catch (SQLException e) {
            dropReader();
            throw new SinkException(
                    context + ": could not read marker table " + markers + " for writes carried past a " + "barrier: "
                            + e.getMessage(),
                    e);
        }
    }

    @Override
    public void closeCarried(int subtask) throws IOException {
        MarkerSql markers = dialect.markers(database.markerId());
        Connection c = reader();
        try {
            readerIo.sql(
                    "removing the notices of carried writes",
                    () -> dialect.xa()
                            .pastPrepared(c, () -> CarriedNotices.delete(c, markers, context.sinkId(), subtask)));
        } catch (SQLException e) {
            dropReader();
            throw new SinkException(
                    context + ": could not remove the notices of writes subtask " + subtask
                            + " carried past a barrier from marker table " + markers + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public void close() throws IOException {
        epoch.closeConnection();
        dropReader();
        try {
            guardIo.close(guardXa); // ends the session: releases the guards
        } catch (SQLException e) {
            throw new SinkException(context + ": closing the guard connection failed", e);
        }
    }
}
