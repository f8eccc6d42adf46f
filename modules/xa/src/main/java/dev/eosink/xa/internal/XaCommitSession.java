/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.dialect.XaTraits.MarkerRow;
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
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;

/**
 * One committer subtask's XA connection: {@code XAResource.commit(xid, false)} of branches the writers
 * prepared, from a connection of its own (XA lets any connection finish a prepared, detached branch).
 * A connection that failed is dropped and the next attempt opens a new one.
 *
 * <p>Every driver call runs under the network timeout ({@link XaIo}): a commit into a stalled network
 * ends with its connection aborted, is retried on a new connection, and the marker decides if the
 * branch is gone meanwhile.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>{@link Attempt#NOT_FOUND} is returned only for a branch that is provably not prepared any more:
 *       {@code recover}, asked after the error, does not list it, and, where the database may drop a
 *       prepared branch from that list ({@link JdbcDialect#provesOutcomesByMarker}), no transaction holds
 *       its marker row. MariaDB answers XAER_NOTA for a branch still attached to the session that
 *       prepared it (listed), and drops from the list a branch that a commit reached while that session
 *       was ending (its marker row still held); both are retried, never resolved by the marker, which
 *       would call them lost.
 *   <li>{@link Attempt#COMMITTED} is returned only for a commit the database answered with success and,
 *       where it may answer so without committing (MariaDB, in that same moment), whose marker row is
 *       not held by a transaction that has not ended.
 * </ul>
 */
final class XaCommitSession implements CommitSession {

    private static final Logger LOG = LoggerFactory.getLogger(XaCommitSession.class);

    private final SubtaskContext context;
    private final XaDatabase<?> database;
    private XAConnection xa;
    /** The one handle of {@link #xa} (pgjdbc closes the previous handle on every getConnection()). */
    private Connection handle;
    /** Bounds every call on {@link #handle}; replaced with the connection. */
    private XaIo io;

    private JdbcDialect dialect;

    XaCommitSession(SubtaskContext context, XaDatabase<?> database) {
        this.context = context;
        this.database = database;
    }

    private XAConnection connection() throws SQLException, SinkException {
        if (xa == null) {
            xa = database.open(context, "committer");
            handle = xa.getConnection();
            dialect = JdbcDialects.forConnection(handle);
            io = new XaIo(handle, database.networkTimeout(), context + " (committer)", dialect.xa());
            handle.setAutoCommit(true);
            // Its marker reads and the pruning's range DELETE take no gap or next-key locks this way: under
            // InnoDB's REPEATABLE READ the DELETE locked the first marker past the retention too, and waited up to
            // the lock wait timeout when a still prepared branch had just inserted it, holding up every commit.
            handle.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        return xa;
    }

    /** The plain JDBC handle of the committer's connection, for marker queries. */
    private Connection handle() throws SQLException, SinkException {
        connection();
        return handle;
    }

    private void drop() {
        XAConnection c = xa;
        XaIo watched = io;
        xa = null;
        handle = null;
        io = null;
        if (c != null) {
            try {
                if (watched == null) {
                    c.close();
                } else {
                    watched.close(c);
                }
            } catch (SQLException e) {
                LOG.debug("{}: closing a failed committer connection failed", context, e);
            }
        }
    }

    @Override
    public Attempt commit(TransactionId id) throws IOException {
        Xid xid = XaIds.toXid(id);
        XAResource resource;
        XaIo watched;
        try {
            resource = connection().getXAResource();
            watched = io;
        } catch (SQLException | SinkException e) {
            drop();
            throw new RetriableCommitException("connecting to commit " + id + ": " + e.getMessage(), e);
        }
        try {
            watched.xa("XA commit of " + id, () -> {
                resource.commit(xid, false);
                return null;
            });
        } catch (SQLException e) {
            // The watchdog aborted the call (network timeout, or the task is being cancelled): the outcome
            // is unknown; a new connection looks again, and the marker decides if the branch is gone.
            drop();
            throw new RetriableCommitException(
                    "XA commit of " + id + " (" + XaIds.describe(xid) + "): " + e.getMessage(), e);
        } catch (XAException e) {
            // A dialect may know a code that only says the branch is finished already (Firebird's XA_HEURCOM, for
            // a commit and a rollback alike): then the marker decides, and there is no heuristic outcome to forget.
            boolean finished = dialect.xa().answersFinished(e);
            switch (finished ? Handling.KNOWN : XaErrors.of(Operation.COMMIT, e)) {
                case KNOWN:
                    if (!finished && (e.errorCode == XAException.XA_HEURCOM || e.errorCode == XAException.XA_HEURRB)) {
                        forget(resource, xid);
                    }
                    if (stillPrepared(resource, id)) {
                        throw new RetriableCommitException(
                                "XA commit of " + id + " answered " + XaErrors.describe(e)
                                        + ", yet the branch is still prepared (still attached to the session that prepared it)",
                                e);
                    }
                    if (dialect.xa().provesOutcomesByMarker() && markerRow(id) == MarkerRow.HELD) {
                        throw forgotten(
                                id, xid, "answered " + XaErrors.describe(e) + " and no longer lists the branch", e);
                    }
                    return Attempt.NOT_FOUND; // the marker decides
                case RETRY:
                    drop();
                    throw new RetriableCommitException(
                            "XA commit of " + id + " (" + XaIds.describe(xid) + "): " + XaErrors.describe(e), e);
                default:
                    throw new SinkException(
                            context + ": XA commit of " + id + " (checkpoint " + id.checkpointId()
                                    + ", subtask " + id.subtask() + ", xid " + XaIds.describe(xid) + ") into "
                                    + database.target() + " failed: " + XaErrors.describe(e) + "."
                                    + XaErrors.remedy(Operation.COMMIT, e.errorCode),
                            e);
            }
        }
        if (dialect.xa().provesOutcomesByMarker() && markerRow(id) == MarkerRow.HELD) {
            throw forgotten(id, xid, "answered the XA COMMIT with success", null);
        }
        // Its marker row is visible, or (ABSENT) pruned after markerRetention meanwhile: the answer stands.
        return Attempt.COMMITTED;
    }

    /** The marker row of {@code id}, asked on the committer's connection; an unknown answer is retried. */
    private MarkerRow markerRow(TransactionId id) throws IOException {
        Connection c = plain(id);
        try {
            return io.sql(
                    "looking up the marker row of " + id,
                    () -> dialect.xa().markerRow(c, dialect.markers(database.markerId()), id.toString()));
        } catch (SQLException e) {
            throw markerLookupFailed(id, e);
        }
    }

    /**
     * The commit of a branch that the database no longer lists but still holds prepared: MariaDB's answer to
     * a commit that reached the branch while the session that prepared it was ending (see {@code
     * MariaDbXaTraits}). No XA statement reaches that branch until the server restarts; retried until then.
     */
    private RetriableCommitException forgotten(TransactionId id, Xid xid, String answered, Exception cause) {
        return new RetriableCommitException(
                context + ": XA commit of " + id + " (checkpoint " + id.checkpointId()
                        + ", subtask " + id.subtask() + ", xid " + XaIds.describe(xid) + ") into " + database.target()
                        + ": "
                        + XaErrors.lostTrackOfBranch(dialect.name(), answered) + " The commit is retried. "
                        + "Remedy: restart " + dialect.name()
                        + " (a prepared branch survives a restart, and a crash); the "
                        + "committer then commits the branch. Do not roll it back: a completed checkpoint promised it.",
                cause);
    }

    private boolean stillPrepared(XAResource resource, TransactionId id) throws IOException {
        try {
            return PreparedBranches.list(io, resource, handle, context, dialect).contains(id);
        } catch (SinkException e) {
            drop();
            throw new RetriableCommitException("listing prepared branches to resolve " + id + ": " + e.getMessage(), e);
        }
    }

    private void forget(XAResource resource, Xid xid) {
        try {
            resource.forget(xid);
        } catch (XAException e) {
            LOG.debug(
                    "{}: forget of heuristically completed {} failed: {}",
                    context,
                    XaIds.describe(xid),
                    XaErrors.describe(e));
        }
    }

    /** The committer's connection for a plain query; a failure to connect is an unknown outcome, retried. */
    private Connection plain(TransactionId id) throws IOException {
        try {
            return handle();
        } catch (SQLException | SinkException e) {
            drop();
            throw new RetriableCommitException("connecting to look up the marker of " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isMarked(TransactionId id) throws IOException {
        try (PreparedStatement s =
                plain(id).prepareStatement(dialect.markers(database.markerId()).existsSql())) {
            s.setString(1, id.toString());
            return io.sql("looking up the marker of " + id, () -> {
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next();
                }
            });
        } catch (SQLException e) {
            throw markerLookupFailed(id, e);
        }
    }

    /** A lookup of the marker row of {@code id} that failed: retried if the connection failed, else fatal. */
    private IOException markerLookupFailed(TransactionId id, SQLException e) {
        drop();
        if (e instanceof SQLTransientException
                || e instanceof SQLRecoverableException
                || (e.getSQLState() != null && e.getSQLState().startsWith("08"))) {
            return new RetriableCommitException("marker lookup of " + id + ": " + e.getMessage(), e);
        }
        return new SinkException(
                context + ": could not read marker table " + database.markerTable() + " for " + id + ": "
                        + e.getMessage(),
                e);
    }

    /**
     * Deletes committed markers only: one of a branch still prepared is passed over ({@link XaTraits#pastPrepared}).
     * The statement is prepared inside too: a driver may begin the transaction that runs it when it prepares it
     * (Jaybird does, in autocommit).
     */
    @Override
    public long pruneMarkers(Duration retention) throws IOException {
        try {
            Connection c = handle();
            return io.sql(
                    "pruning markers",
                    () -> dialect.xa().pastPrepared(c, () -> {
                        try (PreparedStatement s = c.prepareStatement(
                                dialect.markers(database.markerId()).pruneSql())) {
                            s.setString(1, context.sinkId());
                            s.setDouble(2, retention.toMillis() / 1000.0);
                            return s.executeUpdate();
                        }
                    }));
        } catch (SQLException e) {
            drop();
            throw new SinkException(context + ": pruning " + database.markerTable() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        drop();
    }
}
