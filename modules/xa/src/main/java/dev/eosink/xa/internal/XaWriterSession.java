package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.sql.RecordText;
import dev.eosink.xa.internal.XaErrors.Handling;
import dev.eosink.xa.internal.XaErrors.Operation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.io.IOException;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One writer subtask's XA session. Two connections:
 *
 * <ul>
 *   <li>the <b>guard</b>, open as long as the writer lives: it holds the ownership guard (a session
 *       lock the database releases when the session ends, however the task died), lists prepared
 *       branches ({@code recover}) and rolls back leftovers. It is never inside a branch.
 *   <li>the <b>epoch</b> connection, which carries the open branch: {@code start} at the epoch's first
 *       record, batched statements, the marker row, {@code end} and {@code prepare} at the barrier.
 *       Where the database keeps a prepared branch attached to its session (MariaDB), the epoch
 *       connection is closed right after prepare, which detaches the branch so that the committer can
 *       commit it; the next epoch opens a new one. pgjdbc goes back to idle and keeps it.
 * </ul>
 *
 * <p>The guard and the branch live on different sessions, and a session can outlive its client: when
 * a task manager dies while its XA PREPARE still runs on the server, the idle guard session ends at
 * once, but the epoch session ends only once that PREPARE is done, and its branch appears prepared
 * afterwards. So the guard alone cannot tell a restarted writer that the writer before it has
 * finished. The <b>branch lock</b> ({@link XaDialect#tryBranchLock}) does: every epoch connection
 * takes it before its first {@code XA START} and holds it until it ends, and then checks that the
 * guard is held by this writer's guard session; {@link #claim} takes the guard, then waits (within
 * claimWait) until it can take the branch lock, and lets it go, before recovery lists prepared
 * branches. Once the guard and then the branch lock were taken, every session of an earlier writer
 * of the subtask has ended, and none can begin a branch any more (its guard check fails).
 *
 * <p>Every driver call of an epoch and of recovery runs under the network timeout ({@link XaIo}); the
 * epoch connection waits at most the lock timeout for a lock held by another transaction.
 *
 * <p>Invariants: at most one branch is open, and only between {@link #begin} and {@link #prepare};
 * recovery calls run on the guard, never inside a branch; the marker row is written inside every
 * branch before it is prepared, so every prepared branch writes (never XA_RDONLY) and its commit is
 * provable; a branch starts only on a connection that holds the branch lock and has seen the guard
 * held by this writer. A lost epoch connection is never replaced mid-epoch: the failure reaches the
 * core writer, the task fails and Flink replays the epoch.
 */
final class XaWriterSession<IN> implements WriterSession<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(XaWriterSession.class);
    private static final int GUARD_CHECK_SECONDS = 10;

    private final SubtaskContext context;
    private final XaDatabase<IN> database;
    private final XaDialect dialect;
    private final XAConnection guardXa;
    private final Connection guard;
    /** Bounds every call on the guard connection. */
    private final XaIo guardIo;
    private final String insertSql;
    private final String sinkHash;
    /** The guard session's id as the database shows it (0: unknown yet, or the dialect has none). */
    private long guardSession;
    /** How long to wait for sessions of an earlier writer to end: the claimWait of this subtask's claim. */
    private long claimWaitMillis = SinkSettings.DEFAULT_CLAIM_WAIT.toMillis();

    private XAConnection epochXa;
    private Connection epoch;
    /** Bounds every call on the epoch connection; replaced with it. */
    private XaIo epochIo;
    private PreparedStatement insert;
    private PreparedStatement marker;
    /** The open branch, between begin and prepare; null otherwise. */
    private Xid open;
    private TransactionId openId;

    /** The records of the batch not yet executed, for error messages. */
    private final List<IN> batch = new ArrayList<>();
    private long batchFirstPosition;

    /**
     * @param guard the handle of {@code guardXa} already in use: a second {@code getConnection()} would
     *     close it (pgjdbc hands out one live handle per XA connection)
     */
    XaWriterSession(SubtaskContext context, XaDatabase<IN> database, XaDialect dialect, XAConnection guardXa,
            Connection guard, String insertSql) {
        this.context = context;
        this.database = database;
        this.dialect = dialect;
        this.guardXa = guardXa;
        this.guard = guard;
        this.insertSql = insertSql;
        this.sinkHash = XaIds.sinkHash(context.sinkId());
        this.guardIo = new XaIo(guard, database.networkTimeout(), context + " (guard)");
    }

    @Override
    public void claim(int subtask, long waitMillis) throws IOException {
        long deadline = System.currentTimeMillis() + waitMillis;
        if (subtask == context.subtask()) {
            claimWaitMillis = waitMillis;
        }
        try {
            if (guardSession == 0) {
                guardSession = guardIo.sql("reading the guard's session id", () -> dialect.sessionId(guard));
            }
            long nextLog = 0;
            while (!guardIo.sql("taking the ownership guard", () -> dialect.tryLock(guard, sinkHash, subtask))) {
                long now = System.currentTimeMillis();
                if (now >= nextLog && now < deadline) {
                    // A task going away releases it within seconds; a live job holding it is a second job.
                    LOG.info("{}: waiting up to {} ms more for the ownership guard of sink id '{}' subtask {} on {}",
                            context, deadline - now, context.sinkId(), subtask, dialect.name());
                    nextLog = now + 5_000;
                }
                if (now >= deadline) {
                    throw new SinkException(context + ": another live session holds the ownership guard of sink id '"
                            + context.sinkId() + "' subtask " + subtask + " on " + dialect.name() + " and did not release "
                            + "it within " + waitMillis + " ms. Two jobs with the same sink id would roll back each "
                            + "other's transactions, so this one refuses to start. Remedy: stop the other job, or give "
                            + "this sink a different sink id.");
                }
                Thread.sleep(Math.min(500, Math.max(1, deadline - System.currentTimeMillis())));
            }
            awaitEarlierBranchSessions(subtask, deadline, waitMillis);
        } catch (SQLException e) {
            throw new SinkException(context + ": could not take the ownership guard of subtask " + subtask + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while waiting for the ownership guard", e);
        }
    }

    /**
     * With the guard held: waits until no session of an earlier writer of {@code subtask} holds its
     * branch lock, so that every branch such a session could still prepare (a PREPARE the server was
     * still running when that writer's task manager died) is prepared before recovery lists them.
     * Takes the branch lock and lets it go at once: this writer's epoch connections take it in turn.
     */
    private void awaitEarlierBranchSessions(int subtask, long deadline, long waitMillis)
            throws SQLException, InterruptedException, SinkException {
        long nextLog = 0;
        long sleep = 2;
        while (!guardIo.sql("taking the branch lock", () -> dialect.tryBranchLock(guard, sinkHash, subtask))) {
            long now = System.currentTimeMillis();
            if (now >= deadline || now >= nextLog) {
                long holder = guardIo.sql("reading the branch lock's holder",
                        () -> dialect.branchLockHolder(guard, sinkHash, subtask));
                if (now >= deadline) {
                    throw new SinkException(context + ": a session of an earlier writer of sink id '" + context.sinkId()
                            + "' subtask " + subtask + " into " + database.target() + " (" + dialect.name() + " session "
                            + (holder == 0 ? "unknown" : holder) + ") was still running on the server " + waitMillis
                            + " ms after this writer took the ownership guard. It may still be executing a statement "
                            + "of its XA branch (an XA PREPARE, say), which would prepare that branch after this "
                            + "writer had listed the prepared ones and leave it behind, holding its locks; so "
                            + "recovery waits for it to end. The task fails and the restarted one waits again. Remedy: "
                            + "if no live job owns that session (its program_name / application_name is eosink-xa/"
                            + context.sinkId() + "/" + subtask + "/writer), end it"
                            + (holder == 0 ? "" : " (" + dialect.endSessionSql(holder) + ")")
                            + "; or raise claimWait if the server is slow to finish a PREPARE.");
                }
                LOG.info("{}: waiting up to {} ms more for {} session {} of an earlier writer of sink id '{}' subtask {} "
                                + "to end: it holds the branch lock, so it may still prepare a branch, which recovery "
                                + "must see", context, deadline - now, dialect.name(), holder, context.sinkId(), subtask);
                nextLog = now + 5_000;
            }
            Thread.sleep(Math.min(sleep, Math.max(1, deadline - System.currentTimeMillis())));
            sleep = Math.min(100, sleep * 2);
        }
        guardIo.sql("letting the branch lock go", () -> {
            dialect.unlockBranch(guard, sinkHash, subtask);
            return null;
        });
    }

    @Override
    public void release(int subtask) throws IOException {
        try {
            guardIo.sql("releasing the ownership guard", () -> {
                dialect.unlock(guard, sinkHash, subtask);
                return null;
            });
        } catch (SQLException e) {
            throw new SinkException(context + ": could not release the guard of subtask " + subtask, e);
        }
    }

    @Override
    public List<TransactionId> listPrepared() throws IOException {
        try {
            XAResource resource = guardXa.getXAResource();
            return XaCommitSession.recover(guardIo, resource, context, dialect);
        } catch (SQLException e) {
            throw new SinkException(context + ": could not list prepared XA transactions: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis) throws IOException {
        String sql = dialect.markerCommittedAfterSql(database.markerSchema(), database.markerTable());
        if (sql == null) {
            return Optional.empty();
        }
        try (PreparedStatement s = guard.prepareStatement(sql)) {
            s.setString(1, context.sinkId());
            s.setLong(2, checkpointId);
            s.setLong(3, sinceEpochMillis);
            return guardIo.sql("reading the marker table", () -> {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) == 0
                            ? Optional.<Committed>empty()
                            : Optional.of(new Committed(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            });
        } catch (SQLException e) {
            throw new SinkException(context + ": could not read marker table "
                    + dialect.qualified(database.markerSchema(), database.markerTable()) + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void rollbackPrepared(TransactionId id) throws IOException {
        Xid xid = XaIds.toXid(id);
        try {
            XAResource resource = guardXa.getXAResource();
            guardIo.xa("XA rollback of " + id, () -> {
                resource.rollback(xid);
                return null;
            });
        } catch (XAException e) {
            Handling handling = XaErrors.of(Operation.ROLLBACK, e);
            if (handling == Handling.KNOWN) {
                if (listPrepared().contains(id)) {
                    // MariaDB: still attached to the session that prepared it (a task going away).
                    throw new SinkException(context + ": rolling back " + id + " (" + XaIds.describe(xid)
                            + ") failed with " + XaErrors.describe(e) + ", yet it is still prepared: the session that "
                            + "prepared it has not ended. The task fails and the restarted one tries again.", e);
                }
                LOG.info("{}: {} was already gone when rolling it back ({})", context, id, XaErrors.name(e.errorCode));
                return;
            }
            throw new SinkException(context + ": could not roll back prepared transaction " + id + " (checkpoint "
                    + id.checkpointId() + ", subtask " + id.subtask() + ", xid " + XaIds.describe(xid) + "): "
                    + XaErrors.describe(e) + "." + (handling == Handling.RETRY
                            ? " The task fails and the restarted one tries again."
                            : XaErrors.remedy(Operation.ROLLBACK, e.errorCode)), e);
        } catch (SQLException e) {
            throw new SinkException(context + ": could not roll back " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void begin(TransactionId id) throws IOException {
        Xid xid = XaIds.toXid(id);
        try {
            // The guard's session holds the ownership locks; if it died (connection cut, server restart),
            // the locks are gone and a second job could take them. Unlike the PostgreSQL writer, whose one
            // connection carries both, the next epoch here would not notice: ask once per epoch.
            if (!guard.isValid(GUARD_CHECK_SECONDS)) {
                throw guardLost();
            }
            if (epochXa == null) {
                openEpochConnection();
            }
            XAResource resource = epochXa.getXAResource();
            epochIo.xa("XA start of " + id, () -> {
                resource.start(xid, XAResource.TMNOFLAGS);
                return null;
            });
            open = xid;
            openId = id;
        } catch (XAException e) {
            throw xaFailure(Operation.START, id, e);
        } catch (SQLException e) {
            throw new SinkException("could not begin XA branch " + XaIds.describe(xid) + " of " + id + " into "
                    + database.target() + ": " + e.getMessage() + ". Nothing of this epoch was written; it is replayed "
                    + "from the last checkpoint after the restart.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while waiting for the branch lock of " + id, e);
        }
    }

    private SinkException guardLost() {
        return new SinkException(context + ": the guard connection, which holds this subtask's ownership "
                + "guard, was lost; without it a second job with sink id '" + context.sinkId() + "' could "
                + "take over. The task fails and the restarted one claims the guard again.");
    }

    /**
     * Opens the connection of this epoch's branch: takes the branch lock (waiting, within claimWait,
     * for this writer's previous epoch session, which the server may still be ending), checks that
     * the guard is held by this writer's guard session, and sets the lock timeout. The check comes
     * after the lock, so a writer whose guard was taken over never begins a branch that the new
     * owner's recovery, which waited for the branch lock, could miss.
     */
    private void openEpochConnection() throws SQLException, SinkException, InterruptedException {
        XAConnection xa = database.open(context, "writer");
        try {
            Connection c = xa.getConnection();
            XaIo io = new XaIo(c, database.networkTimeout(), context);
            int subtask = context.subtask();
            long deadline = System.currentTimeMillis() + claimWaitMillis;
            long sleep = 1;
            while (!io.sql("taking the branch lock", () -> dialect.tryBranchLock(c, sinkHash, subtask))) {
                if (System.currentTimeMillis() >= deadline) {
                    long holder = io.sql("reading the branch lock's holder", () -> dialect.branchLockHolder(c, sinkHash, subtask));
                    throw new SinkException(context + ": " + dialect.name() + " session " + (holder == 0 ? "unknown" : holder)
                            + " still holds the branch lock of sink id '" + context.sinkId() + "' subtask " + subtask
                            + " after " + claimWaitMillis + " ms, so this writer cannot begin its next branch into "
                            + database.target() + ". It is a session of this writer that the server has not ended yet, or "
                            + "of another writer of this subtask. The task fails and the restarted one waits for it. "
                            + "Remedy: if no live job owns that session, end it"
                            + (holder == 0 ? "" : " (" + dialect.endSessionSql(holder) + ")") + ".");
                }
                Thread.sleep(sleep);
                sleep = Math.min(50, sleep * 2);
            }
            if (dialect.guardsOwnership()) {
                long holder = io.sql("checking the ownership guard", () -> dialect.guardHolder(c, sinkHash, subtask));
                if (holder != guardSession) {
                    throw new SinkException(guardLost().getMessage() + " (" + dialect.name() + " session "
                            + (holder == 0 ? "none" : holder) + " holds it, not this writer's guard session "
                            + guardSession + "; no branch was begun.)");
                }
            }
            io.sql("setting the lock timeout", () -> {
                dialect.setLockTimeout(c, database.lockTimeout());
                return null;
            });
            insert = c.prepareStatement(insertSql);
            marker = c.prepareStatement(dialect.markerInsertSql(database.markerSchema(), database.markerTable()));
            epochXa = xa;
            epoch = c;
            epochIo = io;
        } catch (SQLException | SinkException | InterruptedException | RuntimeException e) {
            insert = null;
            marker = null;
            XaDatabase.closeQuietly(xa, e);
            throw e;
        }
    }

    @Override
    public void write(IN record, long positionInEpoch) throws IOException {
        if (open == null) {
            throw new IllegalStateException(context + ": write outside a branch (begin was not called)");
        }
        try {
            database.statement().bind(insert, record);
            insert.addBatch();
        } catch (Exception e) {
            throw writeError(e, "at record #" + positionInEpoch + " of the epoch (counting from 0) " + RecordText.bracketed(record));
        }
        if (batch.isEmpty()) {
            batchFirstPosition = positionInEpoch;
        }
        batch.add(record);
        if (batch.size() >= database.batchSize()) {
            flush();
        }
    }

    @Override
    public void flush() throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        try {
            epochIo.sql("sending a batch of " + batch.size() + " rows", insert::executeBatch);
        } catch (SQLException e) {
            throw writeError(e, failedEntry(e));
        }
        batch.clear();
    }

    /**
     * Which record the database refused: exact for a batch of one, or when the driver stopped at the
     * first failing entry and says how many succeeded before it; otherwise the batch's range.
     */
    private String failedEntry(SQLException e) {
        long last = batchFirstPosition + batch.size() - 1;
        int index = -1;
        if (batch.size() == 1) {
            index = 0;
        } else if (e instanceof BatchUpdateException) {
            int[] counts = ((BatchUpdateException) e).getUpdateCounts();
            // Only a driver that stopped at the failing entry tells which it was. Both drivers measured here
            // mark every entry EXECUTE_FAILED instead (the whole batch is one statement or one bulk), and
            // the first EXECUTE_FAILED would name record #0: the range is the honest answer then.
            if (counts != null && counts.length < batch.size()) {
                index = counts.length;
            }
        }
        if (index >= 0) {
            return "at record #" + (batchFirstPosition + index) + " of the epoch (counting from 0) " + RecordText.bracketed(batch.get(index));
        }
        return "in the batch of records #" + batchFirstPosition + " to #" + last + " of the epoch (counting from 0); "
                + "the driver did not say which of them the database refused";
    }

    @Override
    public void prepare(TransactionId id, long rows) throws IOException {
        flush();
        Xid xid = XaIds.toXid(id);
        if (!xid.equals(open)) {
            throw new IllegalStateException(context + ": prepare of " + id + " but the open branch is " + openId);
        }
        Operation step = null; // the marker row, then END, then PREPARE
        try {
            marker.setString(1, id.toString());
            marker.setString(2, id.sinkId());
            marker.setInt(3, id.subtask());
            marker.setLong(4, id.checkpointId());
            marker.setLong(5, rows);
            epochIo.sql("writing the marker row of " + id, marker::executeUpdate);
            XAResource xa = epochXa.getXAResource();
            step = Operation.END;
            epochIo.xa("XA end of " + id, () -> {
                xa.end(xid, XAResource.TMSUCCESS);
                return null;
            });
            step = Operation.PREPARE;
            int vote = epochIo.xa("XA prepare of " + id, () -> xa.prepare(xid));
            open = null;
            openId = null;
            if (vote == XAResource.XA_RDONLY) {
                throw new SinkException("XA branch " + XaIds.describe(xid) + " of " + id + " prepared read-only: its "
                        + "marker row was not written, so its commit could never be proved." + XaErrors.remedy(
                        Operation.PREPARE, XAException.XA_RDONLY));
            }
        } catch (XAException e) {
            throw xaFailure(step, id, e);
        } catch (SQLException e) {
            if (step != null) { // the watchdog ended an XA call: the connection is gone, and the branch with it
                throw new SinkException("XA " + step.name().toLowerCase(java.util.Locale.ROOT) + " of branch "
                        + XaIds.describe(xid) + " (" + id + ") into " + database.target() + " failed: " + e.getMessage()
                        + ". The epoch's branch is gone or unusable; its rows will be replayed from the last checkpoint "
                        + "after the restart.", e);
            }
            throw new SinkException("could not write the marker row of " + id + " (" + rows + " rows into "
                    + database.target() + ") into " + dialect.qualified(database.markerSchema(), database.markerTable())
                    + ": " + e.getMessage() + ". Nothing of this epoch becomes visible." + (dialect.isLockTimeout(e)
                            ? " " + lockTimeoutAdvice() : ""), e);
        }
        if (!dialect.keepsConnectionAfterPrepare()) {
            closeEpochConnection(); // detaches the prepared branch (see MariaDbDialect)
        }
    }

    private SinkException xaFailure(Operation operation, TransactionId id, XAException e) {
        Handling handling = XaErrors.of(operation, e);
        return new SinkException("XA " + operation.name().toLowerCase(java.util.Locale.ROOT) + " of branch "
                + XaIds.describe(XaIds.toXid(id)) + " (" + id + ") into " + database.target() + " failed: "
                + XaErrors.describe(e) + ". " + (handling == Handling.RETRY
                        ? "The epoch's branch is gone or unusable; its rows will be replayed from the last checkpoint "
                                + "after the restart."
                        : "Nothing of this epoch becomes visible." + XaErrors.remedy(operation, e.errorCode)), e);
    }

    private SinkException writeError(Exception e, String where) {
        String what;
        if (e instanceof SQLException) {
            SQLException sql = (SQLException) e;
            String state = sql.getSQLState() == null ? "" : sql.getSQLState();
            what = dialect.isLockTimeout(sql)
                    ? lockTimeoutAdvice()
                    : state.startsWith("22") || state.startsWith("23")
                    ? "The database rejected a record (SQLSTATE " + state + "). Nothing of this epoch becomes visible; "
                            + "the job will fail the same way after every restart until the record is fixed or filtered "
                            + "upstream."
                    : "The statement failed (SQLSTATE " + state + "); nothing of this epoch becomes visible, and it is "
                            + "replayed from the last checkpoint after the restart.";
        } else {
            what = "The row mapper or statement builder threw " + e.getClass().getName() + "; nothing was sent for the "
                    + "record, and nothing of this epoch becomes visible.";
        }
        return new SinkException("writing into " + database.target() + (openId == null ? "" : " (XA branch "
                + XaIds.describe(XaIds.toXid(openId)) + ")") + " failed " + where + ": "
                + String.valueOf(e.getMessage()).replaceAll("\\s+", " ") + ". " + what, e);
    }

    /** What a write that ran into the lock timeout means, and what to do. */
    private String lockTimeoutAdvice() {
        return "It waited longer than the lock timeout (" + database.lockTimeout().toMillis() + " ms, "
                + dialect.lockTimeoutSetting() + ") for a lock held by another transaction: usually a prepared XA "
                + "branch that is waiting for its commit or rollback (of this sink, or left by a job that did not come "
                + "back), or another client's long transaction or DDL on the same rows or table. Nothing of this epoch "
                + "becomes visible; the task fails and the epoch is replayed from the last checkpoint, and waits again "
                + "while the lock is held. Remedy: find the holder (" + dialect.lockHoldersHint() + ") and end it; "
                + "resolve prepared branches of a dead job as the README (XA databases, Operators) shows; or raise "
                + "lockTimeout if such waits are expected.";
    }

    @Override
    public void abortOpen() throws IOException {
        batch.clear();
        if (open == null) {
            return;
        }
        Xid xid = open;
        open = null;
        openId = null;
        try {
            XAResource xa = epochXa.getXAResource();
            epochIo.xa("XA end (TMFAIL) of the open branch", () -> {
                xa.end(xid, XAResource.TMFAIL);
                return null;
            });
            epochIo.xa("XA rollback of the open branch", () -> {
                xa.rollback(xid);
                return null;
            });
        } catch (XAException | SQLException e) {
            // The connection may be what failed. The database rolls back a branch that is not prepared
            // when its session ends, so ending the session is the sure way.
            LOG.debug("{}: rolling back the open branch failed ({}); closing its connection", context, e.getMessage());
            closeEpochConnection();
        }
    }

    private void closeEpochConnection() {
        XAConnection c = epochXa;
        epochXa = null;
        epoch = null;
        epochIo = null;
        insert = null;
        marker = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.debug("{}: closing the epoch connection failed", context, e);
            }
        }
    }

    @Override
    public void close() throws IOException {
        closeEpochConnection();
        try {
            guardXa.close(); // ends the session: releases the guards
        } catch (SQLException e) {
            throw new SinkException(context + ": closing the guard connection failed", e);
        }
    }
}
