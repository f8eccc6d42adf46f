package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;

import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.RecordText;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.RowKindFunction;
import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.apache.flink.types.RowKind;
import org.postgresql.core.BaseConnection;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Savepoint;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One writer subtask's PostgreSQL session: a dedicated connection (it carries the open transaction
 * and the ownership guard, so it is never shared, and never handed back to a pool alive: see {@link
 * SessionEnd}) that batches inserts into the open transaction and ends it with {@code PREPARE
 * TRANSACTION}, which detaches it from the session.
 *
 * <p>The ownership guard is a session-level advisory lock per sink id and subtask index, held by this
 * connection as long as it lives. A second job with the same sink id cannot take it; the writer
 * releases it when it closes, and PostgreSQL releases it by itself when the session ends, however the
 * task died.
 */
final class PostgresWriterSession<IN> implements WriterSession<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresWriterSession.class);
    private static final Pattern BATCH_ENTRY = Pattern.compile("Batch entry (\\d+)");

    private final SubtaskContext context;
    private final PostgresDatabase<IN> database;
    private final Connection connection;
    /** Bounds every call of an epoch (writes, PREPARE, rollback): see {@link IoWatchdog}. */
    private final IoWatchdog io;
    private final int lockClass;

    private PreparedStatement insert;
    private PreparedStatement marker;

    /** Records in the current, not yet executed batch, for error messages. */
    private final List<IN> batch = new ArrayList<>();
    private long batchFirstPosition;
    private boolean transactionOpen;

    /**
     * The latest records sent by COPY, newest last, so that a row the server refuses (it names the
     * row's line, usually within the last chunk or two sent) can be shown; at most two batches.
     */
    private final java.util.ArrayDeque<IN> recent = new java.util.ArrayDeque<>();

    /** Binary COPY of inserts, or null. */
    private final CopyStream copy;
    /** Upserts and deletes by key, or null. With neither, JDBC batches of the insert statement. */
    private final UpsertWriter upserts;
    /** The flow control of whichever path uses COPY; it holds the monitor connection, if one was opened. */
    private final CopyBacklog backlog;
    /** Records the database refused, kept for the dead-letter table; null: a refused record fails the epoch. */
    private final DeadLetters deadLetters;
    private long rowsInEpoch;

    /** The batch path's statement: the generated INSERT with casts, or the user's SQL. */
    private final String insertSql;

    PostgresWriterSession(
            SubtaskContext context,
            PostgresDatabase<IN> database,
            Connection connection,
            IoWatchdog io,
            String insertSql,
            CopyStream copy,
            UpsertWriter upserts,
            CopyBacklog backlog,
            DeadLetters deadLetters) {
        this.insertSql = insertSql;
        this.context = context;
        this.database = database;
        this.connection = connection;
        this.io = io;
        this.lockClass = PostgresDatabase.lockClass(context.sinkId());
        this.copy = copy;
        this.upserts = upserts;
        this.backlog = backlog;
        this.deadLetters = deadLetters;
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
        long deadline = System.currentTimeMillis() + waitMillis;
        try {
            betweenEpochs("claiming the guard of subtask " + subtask);
        } catch (SQLException e) {
            throw new SinkException(context + ": could not take the ownership guard of subtask " + subtask + ": " + e.getMessage(), e);
        }
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            s.setInt(1, lockClass);
            s.setInt(2, subtask);
            long nextLog = 0;
            while (true) {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return;
                    }
                }
                long now = System.currentTimeMillis();
                if (now >= nextLog && now < deadline) {
                    // A task going away releases it within seconds; a live job holding it is a second job.
                    LOG.info("{}: waiting up to {} ms more for the ownership guard of sink id '{}' subtask {} ({})",
                            context, deadline - now, context.sinkId(), subtask, holder(subtask));
                    nextLog = now + 5_000;
                }
                if (now >= deadline) {
                    throw new SinkException(
                            context
                                    + ": another live session holds the ownership guard of sink id '"
                                    + context.sinkId()
                                    + "' subtask "
                                    + subtask
                                    + " ("
                                    + holder(subtask)
                                    + ") and did not release it within "
                                    + waitMillis
                                    + " ms. Two jobs with the same sink id would roll back each other's "
                                    + "transactions, so this one refuses to start. Remedy: stop the other job, or "
                                    + "give this sink a different sink id.");
                }
                Thread.sleep(Math.min(500, Math.max(1, deadline - System.currentTimeMillis())));
            }
        } catch (SQLException e) {
            throw new SinkException(context + ": could not take the ownership guard of subtask " + subtask + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while waiting for the ownership guard", e);
        }
    }

    /** Who holds the guard, from pg_locks and pg_stat_activity, for the refusal message. */
    private String holder(int subtask) {
        String sql =
                "SELECT a.pid, a.application_name, a.client_addr, a.backend_start FROM pg_locks l "
                        + "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                        + "AND l.classid = ?::oid AND l.objid = ?::oid AND l.objsubid = 2 AND l.pid <> pg_backend_pid()";
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setLong(1, Integer.toUnsignedLong(lockClass));
            s.setLong(2, subtask);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next()) {
                    return "held by backend pid "
                            + rs.getInt(1)
                            + ", application_name '"
                            + rs.getString(2)
                            + "', client "
                            + rs.getString(3)
                            + ", connected since "
                            + rs.getTimestamp(4);
                }
                return "holder not visible to this role";
            }
        } catch (SQLException e) {
            return "holder unknown: " + e.getMessage();
        }
    }

    @Override
    public void release(int subtask) throws IOException {
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_advisory_unlock(?, ?)")) {
            betweenEpochs("releasing the guard of subtask " + subtask);
            s.setInt(1, lockClass);
            s.setInt(2, subtask);
            s.execute();
        } catch (SQLException e) {
            throw new SinkException(context + ": could not release the guard of subtask " + subtask, e);
        }
    }

    @Override
    public List<TransactionId> listPrepared() throws IOException {
        try {
            betweenEpochs("listing prepared transactions");
            return PostgresDatabase.listPrepared(connection, context.sinkId());
        } catch (SQLException e) {
            throw new SinkException(context + ": could not list prepared transactions: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis) throws IOException {
        try (PreparedStatement s = connection.prepareStatement(database.markers().committedAfterSql())) {
            betweenEpochs("reading the marker table");
            s.setString(1, context.sinkId());
            s.setLong(2, checkpointId);
            s.setLong(3, sinceEpochMillis);
            return io.call("reading the marker table", () -> {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) == 0
                            ? Optional.<Committed>empty()
                            : Optional.of(new Committed(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            });
        } catch (SQLException e) {
            throw new SinkException(context + ": could not read marker table " + database.markers().table() + ": "
                    + e.getMessage(), e);
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

    @Override
    public void write(IN record, long positionInEpoch) throws IOException {
        if (copy != null || upserts != null) {
            writeRow(record, positionInEpoch);
            return;
        }
        try {
            if (!transactionOpen) {
                begin();
            }
            database.statement().bind(insert, record);
            insert.addBatch();
        } catch (Exception e) {
            if (deadLetters != null && !(e instanceof SQLException && PostgresErrors.isTransient((SQLException) e))) {
                reject(positionInEpoch, record, e); // the row mapper or binder threw: nothing was sent
                return;
            }
            throw writeError(e, Position.exact(positionInEpoch, record));
        }
        // Kept in step with the JDBC batch: entry i of the batch is batch.get(i).
        if (batch.isEmpty()) {
            batchFirstPosition = positionInEpoch;
        }
        batch.add(record);
        if (batch.size() >= database.batchSize()) {
            flush();
        }
    }

    /** The COPY and upsert paths: a row from the row mapper, streamed or buffered per key. */
    private void writeRow(IN record, long positionInEpoch) throws IOException {
        try {
            if (!transactionOpen) {
                begin();
            }
            Object[] row = ((InsertStatement.Columns<IN>) database.statement()).toRow(record); // table mode only
            if (copy != null) {
                copy.add(row);
                recent.addLast(record);
                if (recent.size() > 2 * database.batchSize()) {
                    recent.removeFirst();
                }
            } else {
                RowKindFunction<IN> kinds = database.rowKind();
                upserts.add(row, kinds == null ? RowKind.INSERT : kinds.kindOf(record), positionInEpoch);
            }
            rowsInEpoch++;
        } catch (UpsertWriter.Failure f) {
            throw upsertError(f, positionInEpoch, record);
        } catch (SQLException e) {
            // The server refused a row sent earlier (COPY streams ahead of its answers).
            throw writeError(e, copyPosition(e));
        } catch (Exception e) {
            throw writeError(e, Position.exact(positionInEpoch, record));
        }
    }

    private SinkException upsertError(UpsertWriter.Failure f, long currentPosition, IN currentRecord) {
        Position position = f.unknownBecause != null
                ? Position.batch(f.first, f.last).because(f.unknownBecause)
                : f.first == currentPosition ? Position.exact(currentPosition, currentRecord)
                : f.row != null ? Position.exact(f.first, "row " + java.util.Arrays.deepToString(f.row))
                : Position.row(f.first, f.error);
        return writeError(f.error, position);
    }

    private Position copyPosition(SQLException e) {
        java.util.OptionalLong row = CopyStream.failedRow(e);
        if (row.isEmpty()) {
            return Position.batch(0, Math.max(0, rowsInEpoch - 1)).because("the database did not name the row");
        }
        long position = row.getAsLong();
        long oldestKept = rowsInEpoch - recent.size(); // positions of recent are oldestKept .. rowsInEpoch-1
        if (position >= oldestKept && position < rowsInEpoch) {
            int index = (int) (position - oldestKept);
            java.util.Iterator<IN> it = recent.iterator();
            for (int i = 0; i < index; i++) {
                it.next();
            }
            return Position.exact(position, it.next());
        }
        return Position.row(position, e);
    }

    private void begin() throws SQLException {
        // Autocommit off: the driver opens the transaction with the first statement. Statements are
        // prepared once per session and reused across transactions.
        connection.setAutoCommit(false);
        if (marker == null) {
            marker = connection.prepareStatement(database.markers().insertSql());
        }
        if (copy != null) {
            copy.start();
        } else if (upserts == null && insert == null) {
            insert = connection.prepareStatement(insertSql);
        }
        rowsInEpoch = 0;
        recent.clear();
        if (deadLetters != null) {
            deadLetters.clear();
        }
        transactionOpen = true;
    }

    @Override
    public void flush() throws IOException {
        if (copy != null) {
            if (copy.active()) {
                try {
                    copy.send();
                } catch (SQLException e) {
                    throw writeError(e, copyPosition(e));
                }
            }
            return;
        }
        if (upserts != null) {
            try {
                upserts.flush();
            } catch (UpsertWriter.Failure f) {
                throw upsertError(f, -1, null);
            }
            return;
        }
        if (batch.isEmpty()) {
            return;
        }
        try {
            if (deadLetters == null) {
                io.call("sending a batch", insert::executeBatch);
            } else {
                sendBatchKeepingRejected();
            }
        } catch (SQLException e) {
            throw writeError(e, failedEntry(e));
        } catch (AssertionError e) {
            SQLException lost = batchAssertion(e);
            throw writeError(lost, failedEntry(lost));
        }
        batch.clear();
    }

    /**
     * With a dead-letter table: the batch goes out after a savepoint. When the database refuses a
     * record of it, the batch is undone back to the savepoint and sent again record by record, each
     * after a savepoint of its own, so that a refused record is undone alone and kept for the
     * dead-letter table while the others stay in the epoch. Only records the database refuses for
     * their data are kept (PostgresErrors.rejectsRecord); anything else fails the epoch as always.
     */
    private void sendBatchKeepingRejected() throws SQLException, SinkException {
        Savepoint beforeBatch = connection.setSavepoint();
        try {
            io.call("sending a batch", insert::executeBatch);
        } catch (SQLException e) {
            if (!PostgresErrors.rejectsRecord(e)) {
                throw e;
            }
            connection.rollback(beforeBatch);
            insert.clearBatch();
            for (int i = 0; i < batch.size(); i++) {
                sendOneKeepingRejected(batchFirstPosition + i, batch.get(i));
            }
        }
        connection.releaseSavepoint(beforeBatch);
    }

    private void sendOneKeepingRejected(long position, IN record) throws SQLException, SinkException {
        Savepoint beforeRecord = connection.setSavepoint();
        try {
            database.statement().bind(insert, record);
            io.call("sending a record", insert::executeUpdate);
        } catch (SQLException e) {
            if (!PostgresErrors.rejectsRecord(e)) {
                throw e;
            }
            connection.rollback(beforeRecord);
            reject(position, record, e);
        } catch (Exception e) { // the binder threw this time (it did not when the record was batched)
            reject(position, record, e);
        }
        connection.releaseSavepoint(beforeRecord);
    }

    /** Keeps a refused record for the dead-letter table, or fails the epoch when it has kept too many. */
    private void reject(long position, IN record, Exception e) throws SinkException {
        String error = e instanceof SQLException
                ? rootMessage(e)
                : "the row mapper or statement builder threw " + e.getClass().getName() + ": " + e.getMessage();
        String state = e instanceof SQLException ? ((SQLException) e).getSQLState() : null;
        if (!deadLetters.add(position, RecordText.plain(record), state, error)) {
            throw new SinkException("writing into " + database.statement().describe() + " failed at record #" + position
                    + " of the epoch " + RecordText.bracketed(record) + ": " + sentence(error) + ". More than " + DeadLetters.MAX_PER_EPOCH
                    + " records of this epoch were refused, which is no longer a few bad records but a broken job (a "
                    + "wrong column, a changed schema?), so the epoch fails instead of filling the dead-letter table. "
                    + "Nothing of this epoch becomes visible", e);
        }
    }

    /**
     * pgjdbc before 42.7.13, on a JVM with assertions enabled ({@code -ea}), throws an {@link
     * AssertionError} ("pgStatement.getConnection().getAutoCommit() should not throw") instead of a
     * {@link BatchUpdateException} when the session dies during a batch: it asks the closed connection
     * for its autocommit mode (pgjdbc issues 1458 and 3180, fixed by pull request 4187). Left alone,
     * that Error escapes every handler of the sink, and the task fails with the driver's message
     * instead of one that names the sink, subtask and epoch. It is the same event as an I/O error, so
     * it is reported as one; any other assertion from the driver is reported as what it is.
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
                    "the connection was lost during the batch (pgjdbc reported only: " + e.getMessage() + ")", "08006", e);
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
    private Position failedEntry(SQLException e) {
        Position wholeBatch = Position.batch(batchFirstPosition, batchFirstPosition + batch.size() - 1);
        if (batch.size() == 1) {
            return Position.exact(batchFirstPosition, batch.get(0));
        }
        if (!(e instanceof BatchUpdateException)) {
            return wholeBatch.because("the failure was not about one entry of the batch");
        }
        if (rewritesBatches()) {
            return wholeBatch.because(
                    "reWriteBatchedInserts=true sends the batch as multi-row INSERTs, so PostgreSQL's error "
                            + "cannot be traced to one record; set reWriteBatchedInserts=false or batchSize(1) "
                            + "to see the record");
        }
        Matcher m = BATCH_ENTRY.matcher(String.valueOf(e.getMessage()));
        if (m.find()) {
            int entry = Integer.parseInt(m.group(1));
            if (entry < batch.size()) {
                return Position.exact(batchFirstPosition + entry, batch.get(entry));
            }
        }
        return wholeBatch.because("the driver did not name the failing batch entry");
    }

    private boolean rewritesBatches() {
        try {
            return connection.unwrap(BaseConnection.class).getQueryExecutor().isReWriteBatchedInsertsEnabled();
        } catch (SQLException | RuntimeException e) {
            return true; // cannot tell: do not trust an entry number
        }
    }

    @Override
    public void prepare(TransactionId id, long rows) throws IOException {
        long t0 = System.nanoTime();
        flush();
        if (copy != null && copy.active()) {
            long stored;
            try {
                stored = copy.end();
            } catch (SQLException e) {
                throw writeError(e, copyPosition(e));
            }
            if (stored != rows) {
                // Never prepare what does not match what Flink handed over.
                throw new SinkException("COPY into " + database.statement().describe() + " stored " + stored
                        + " rows, but the epoch has " + rows + " records; refusing to prepare " + id);
            }
        }
        long t1 = System.nanoTime();
        boolean markerWritten = false;
        try {
            if (deadLetters != null && deadLetters.size() > 0) {
                int kept = deadLetters.size();
                io.call("writing the dead letters", () -> {
                    deadLetters.write(connection, id);
                    return null;
                });
                LOG.warn("{}: {} kept {} refused records of the epoch in dead-letter table {}", context, id, kept,
                        database.deadLetterTable());
            }
            marker.setString(1, id.toString());
            marker.setString(2, id.sinkId());
            marker.setInt(3, id.subtask());
            marker.setLong(4, id.checkpointId());
            marker.setLong(5, rows);
            io.call("writing the marker row", marker::executeUpdate);
            markerWritten = true;
            long t2 = System.nanoTime();
            try (Statement s = connection.createStatement()) {
                io.call("PREPARE TRANSACTION", () -> s.execute("PREPARE TRANSACTION " + SqlIdentifier.literal(id.toString())));
            }
            if (LOG.isDebugEnabled()) {
                // Where a slow checkpoint spends its time: ending COPY waits for the server to store every
                // row still in flight (the largest part under load); PREPARE flushes the WAL.
                long t3 = System.nanoTime();
                LOG.debug("{}: prepared {} in {} us: last rows and end of COPY {} us, marker {} us, PREPARE {} us; "
                        + "COPY flow control in the epoch: {}", context, id, (t3 - t0) / 1000, (t1 - t0) / 1000,
                        (t2 - t1) / 1000, (t3 - t2) / 1000, backlog.epochStats());
            }
            transactionOpen = false;
            if (upserts != null) {
                LOG.debug("{}: prepared {}: {}", context, id, upserts.epochSummary());
                upserts.epochPrepared();
            }
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            // PREPARE runs the constraints deferred to the end of the transaction: a row of this epoch,
            // but no longer a position in it.
            boolean deferredConstraint = markerWritten && state.startsWith("23");
            throw new SinkException(
                    "could not prepare transaction "
                            + id
                            + " ("
                            + rows
                            + " rows into "
                            + database.statement().describe()
                            + (markerWritten ? "" : "; writing its marker row into " + database.markers().table() + " failed")
                            + "): "
                            + sentence(rootMessage(e))
                            + " (SQLSTATE "
                            + state
                            + ")."
                            + (deferredConstraint
                                    ? " A constraint checked at the end of the transaction (DEFERRABLE INITIALLY "
                                            + "DEFERRED) refused a row of this epoch; which record it came from is not "
                                            + "known at PREPARE, the detail above names the row. The job will fail the "
                                            + "same way after every restart until the record is fixed or filtered upstream."
                                    : "")
                            + " Nothing of this epoch becomes visible."
                            + (e.getMessage() != null && e.getMessage().contains("max_prepared_transactions")
                                    ? " Remedy: raise max_prepared_transactions (sql/00-server-settings.sql)."
                                    : ""),
                    e);
        }
    }

    /** Upserts may touch rows the previous, still prepared epoch wrote; inserts never wait for them. */
    @Override
    public void ownCommits(OwnCommits ownCommits) {
        if (upserts != null) {
            upserts.ownCommits(ownCommits);
        }
    }

    @Override
    public void abortOpen() throws IOException {
        batch.clear();
        if (deadLetters != null) {
            deadLetters.clear();
        }
        if ((upserts != null && !upserts.abort()) || (copy != null && !copy.cancel())) {
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
        try {
            // Releases the guards and ends the session (rolling back anything open), also when the
            // connection is a pool's: a pool must never keep the guard.
            SessionEnd.close(connection, io, context);
        } catch (SQLException e) {
            throw new SinkException(context + ": closing the connection failed", e);
        }
    }

    private SinkException writeError(Exception e, Position position) {
        String reason;
        String what;
        if (e instanceof BinaryCopyEncoder.Refused) {
            // The COPY encoder applied the database's own rule (a varchar(n) length) before sending.
            reason = sentence(e.getMessage());
            what = "The sink refused the record before sending it, as PostgreSQL would (SQLSTATE "
                    + ((BinaryCopyEncoder.Refused) e).sqlState() + "). " + PostgresErrors.SAME_AFTER_RESTART;
        } else if (e instanceof SQLException) {
            SQLException sql = (SQLException) e;
            reason = sentence(rootMessage(sql));
            what = PostgresErrors.onWrite(sql);
        } else {
            // The user's row mapper or JdbcStatementBuilder threw: name the exception, it is all there is.
            reason = "the row mapper or statement builder threw " + e.getClass().getName() + ": " + e.getMessage();
            what = "The record could not be turned into statement parameters, so nothing was sent for it. "
                    + PostgresErrors.SAME_AFTER_RESTART;
        }
        // A lost connection is about no record: naming a batch "the database refused" would mislead.
        boolean connectionLost = e instanceof SQLException && PostgresErrors.isTransient((SQLException) e);
        return new SinkException(
                "writing into " + database.statement().describe() + " failed"
                        + (connectionLost ? "" : " " + position.describe()) + ": " + reason
                        + ". " + what + ".",
                e);
    }

    /** Where in the epoch a write failed: one record, or only the batch it was in, and why. */
    private static final class Position {
        private final long first;
        private final long last;
        private final Object record; // null when only the batch is known
        private final String unknownBecause;
        /** For a row known by its position only: what the database's own detail shows of it, or null. */
        private final String shownByDatabase;

        private Position(long first, long last, Object record, String unknownBecause, String shownByDatabase) {
            this.first = first;
            this.last = last;
            this.record = record;
            this.unknownBecause = unknownBecause;
            this.shownByDatabase = shownByDatabase;
        }

        static Position exact(long position, Object record) {
            return new Position(position, position, record, null, null);
        }

        /**
         * The row is known by its position only: a COPY error names its line, and the record was sent
         * before the sink's last records. Only some errors show the row ("Failing row contains ...",
         * NOT NULL and CHECK) or its key ("Key (...)=(...)", unique and foreign keys) in their detail;
         * a data error (a value too long, out of range) shows neither.
         */
        static Position row(long position, Exception error) {
            String detail = error instanceof PSQLException && ((PSQLException) error).getServerErrorMessage() != null
                    ? ((PSQLException) error).getServerErrorMessage().getDetail()
                    : null;
            String shown = detail == null ? null
                    : detail.startsWith("Failing row contains") ? "the database's detail shows the row"
                    : detail.startsWith("Key (") ? "the database's detail shows its key"
                    : null;
            return new Position(position, position, null, null, shown);
        }

        static Position batch(long first, long last) {
            return new Position(first, last, null, null, null);
        }

        Position because(String why) {
            return new Position(first, last, null, why, null);
        }

        String describe() {
            if (record != null) {
                return "at record #" + first + " of the epoch (counting from 0) " + RecordText.bracketed(record);
            }
            if (unknownBecause == null) {
                return "at record #" + first + " of the epoch (counting from 0; the record was sent before the database "
                        + "refused it, and the sink no longer holds it" + (shownByDatabase == null ? "" : ": " + shownByDatabase)
                        + ")";
            }
            return "in the batch of records #" + first + " to #" + last + " of the epoch (counting from 0); "
                    + "which of them the database refused is not known: " + unknownBecause;
        }
    }

    /** The text without its final full stop, so that messages can go on after it. */
    private static String sentence(String text) {
        String t = text.trim();
        while (t.endsWith(".")) {
            t = t.substring(0, t.length() - 1);
        }
        return t;
    }

    /** The server's message of the first error in a chain (pgjdbc hides it behind getNextException). */
    static String rootMessage(Exception e) {
        if (e instanceof SQLException) {
            SQLException next = ((SQLException) e).getNextException();
            if (next != null && next.getMessage() != null) {
                return next.getMessage().replaceAll("\\s+", " ");
            }
        }
        return String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
    }
}
