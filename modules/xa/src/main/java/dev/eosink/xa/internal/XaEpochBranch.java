package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
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
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The epoch connection of one XA writer and the branch it carries: {@code start} at the epoch's first
 * record, batched statements, the marker row, {@code end} and {@code prepare} at the barrier. Where the
 * database keeps a prepared branch attached to its session (MariaDB), the connection is closed right
 * after prepare, which detaches the branch so that the committer can commit it; the next epoch opens a
 * new one. pgjdbc goes back to idle and keeps it.
 *
 * <p>Invariants: at most one branch is open, and only between {@link #begin} and {@link #prepare}; the
 * marker row is written inside every branch before it is prepared, so every prepared branch writes
 * (never XA_RDONLY) and its commit is provable; a branch starts only on a connection that {@link
 * XaLocks#lockForBranch} readied, and only while the guard connection is alive. A lost epoch
 * connection is never replaced mid-epoch: the failure reaches the core writer, the task fails and
 * Flink replays the epoch.
 */
final class XaEpochBranch<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(XaEpochBranch.class);

    /** An epoch connection, readied for this writer's branches, with its watchdog and statements. */
    private record EpochConnection(XAConnection xa, XaIo io, PreparedStatement insert, PreparedStatement marker) {}

    /** A branch between its {@code start} and its {@code prepare}. */
    private record OpenBranch(TransactionId id, Xid xid) {}

    private final SubtaskContext context;
    private final XaDatabase<IN> database;
    private final XaDialect dialect;
    private final XaLocks locks;
    private final XaWriteErrors errors;
    private final String insertSql;

    /** Null before the first epoch, and after an epoch that ended its connection (see the class comment). */
    private EpochConnection connection;
    /** Null outside {@link #begin} .. {@link #prepare}, and after {@link #abortOpen}. */
    private OpenBranch open;

    /** The records of the batch not yet executed, for error messages. */
    private final List<IN> batch = new ArrayList<>();
    private long batchFirstPosition;

    XaEpochBranch(SubtaskContext context, XaDatabase<IN> database, XaDialect dialect, XaLocks locks, String insertSql) {
        this.context = context;
        this.database = database;
        this.dialect = dialect;
        this.locks = locks;
        this.errors = new XaWriteErrors(database, dialect);
        this.insertSql = insertSql;
    }

    /** Starts the branch of the epoch named {@code id}, opening an epoch connection if there is none. */
    void begin(TransactionId id) throws IOException {
        Xid xid = XaIds.toXid(id);
        try {
            locks.checkAlive();
            if (connection == null) {
                connection = openConnection();
            }
            XAResource resource = connection.xa().getXAResource();
            connection.io().xa("XA start of " + id, () -> {
                resource.start(xid, XAResource.TMNOFLAGS);
                return null;
            });
            open = new OpenBranch(id, xid);
        } catch (XAException e) {
            throw errors.xaFailed(Operation.START, id, e);
        } catch (SQLException e) {
            throw errors.beginFailed(xid, id, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while waiting for the branch lock of " + id, e);
        }
    }

    /** Opens an epoch connection readied for branches (see {@link XaLocks#lockForBranch}), with the lock timeout set. */
    private EpochConnection openConnection() throws SQLException, SinkException, InterruptedException {
        XAConnection xa = database.open(context, "writer");
        try {
            Connection c = xa.getConnection();
            XaIo io = new XaIo(c, database.networkTimeout(), context);
            locks.lockForBranch(c, io);
            io.sql("setting the lock timeout", () -> {
                dialect.setLockTimeout(c, database.lockTimeout());
                return null;
            });
            PreparedStatement insert = c.prepareStatement(insertSql);
            PreparedStatement marker = c.prepareStatement(
                    dialect.markerInsertSql(database.markerSchema(), database.markerTable()));
            return new EpochConnection(xa, io, insert, marker);
        } catch (SQLException | SinkException | InterruptedException | RuntimeException e) {
            XaDatabase.closeQuietly(xa, e);
            throw e;
        }
    }

    void write(IN record, long positionInEpoch) throws IOException {
        if (open == null) {
            throw new IllegalStateException(context + ": write outside a branch (begin was not called)");
        }
        try {
            database.statement().bind(connection.insert(), record);
            connection.insert().addBatch();
        } catch (Exception e) {
            throw errors.writeFailed(e, XaWriteErrors.atRecord(positionInEpoch, record), open.id());
        }
        if (batch.isEmpty()) {
            batchFirstPosition = positionInEpoch;
        }
        batch.add(record);
        if (batch.size() >= database.batchSize()) {
            flush();
        }
    }

    void flush() throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        try {
            connection.io().sql("sending a batch of " + batch.size() + " rows", connection.insert()::executeBatch);
        } catch (SQLException e) {
            throw errors.writeFailed(e, XaWriteErrors.failedEntry(e, batch, batchFirstPosition),
                    open == null ? null : open.id());
        }
        batch.clear();
    }

    /** Writes the marker row into the open branch, ends and prepares it. */
    void prepare(TransactionId id, long rows) throws IOException {
        flush();
        Xid xid = XaIds.toXid(id);
        if (open == null || !xid.equals(open.xid())) {
            throw new IllegalStateException(context + ": prepare of " + id + " but the open branch is "
                    + (open == null ? null : open.id()));
        }
        EpochConnection c = connection;
        Operation step = null; // the marker row, then END, then PREPARE
        try {
            c.marker().setString(1, id.toString());
            c.marker().setString(2, id.sinkId());
            c.marker().setInt(3, id.subtask());
            c.marker().setLong(4, id.checkpointId());
            c.marker().setLong(5, rows);
            c.io().sql("writing the marker row of " + id, c.marker()::executeUpdate);
            XAResource xa = c.xa().getXAResource();
            step = Operation.END;
            c.io().xa("XA end of " + id, () -> {
                xa.end(xid, XAResource.TMSUCCESS);
                return null;
            });
            step = Operation.PREPARE;
            int vote = c.io().xa("XA prepare of " + id, () -> xa.prepare(xid));
            open = null;
            if (vote == XAResource.XA_RDONLY) {
                throw errors.preparedReadOnly(xid, id);
            }
        } catch (XAException e) {
            throw errors.xaFailed(step, id, e);
        } catch (SQLException e) {
            if (step != null) { // the watchdog ended an XA call: the connection is gone, and the branch with it
                throw errors.xaCallAborted(step, xid, id, e);
            }
            throw errors.markerFailed(id, rows, e);
        }
        if (!dialect.keepsConnectionAfterPrepare()) {
            closeConnection(); // detaches the prepared branch (see MariaDbDialect)
        }
    }

    /** Rolls back the open branch, if there is one; never a prepared one. */
    void abortOpen() {
        batch.clear();
        if (open == null) {
            return;
        }
        Xid xid = open.xid();
        open = null;
        try {
            XAResource xa = connection.xa().getXAResource();
            connection.io().xa("XA end (TMFAIL) of the open branch", () -> {
                xa.end(xid, XAResource.TMFAIL);
                return null;
            });
            connection.io().xa("XA rollback of the open branch", () -> {
                xa.rollback(xid);
                return null;
            });
        } catch (XAException | SQLException e) {
            // The connection may be what failed. The database rolls back a branch that is not prepared
            // when its session ends, so ending the session is the sure way.
            LOG.debug("{}: rolling back the open branch failed ({}); closing its connection", context, e.getMessage());
            closeConnection();
        }
    }

    /** Closes the epoch connection, if there is one: the database rolls back a branch left open on it. */
    void closeConnection() {
        EpochConnection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.xa().close();
            } catch (SQLException e) {
                LOG.debug("{}: closing the epoch connection failed", context, e);
            }
        }
    }
}
