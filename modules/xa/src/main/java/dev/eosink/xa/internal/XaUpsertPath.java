/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.xa.carried.XaCarried;

import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.XAConnection;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Upserts and deletes by key: records are buffered, the last per key ({@link XaUpserts}, whose class
 * comment has the invariants), and run as the dialect's upsert of many rows and batches of its delete
 * ({@link XaKeyedStatements}) once the writer's previous branch is committed, in this epoch's branch or
 * held past its barrier. Rows are not counted: an upsert of a key written before writes no new row.
 *
 * <p>Statements held past a barrier are carried in checkpoint state; a restored writer writes them in a
 * local transaction of its own, on a connection of its own, never inside a branch ({@link #applyCarried}).
 */
final class XaUpsertPath<IN> implements XaWritePath<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(XaUpsertPath.class);

    private final SubtaskContext context;
    private final XaDatabase<IN> database;
    private final JdbcDialect dialect;
    private final XaWriteErrors errors;
    private final XaUpserts<IN> upserts;
    private final XaKeyedStatements.Sql sql;
    /** The epoch connection's statements and watchdog, set when it opens. */
    private XaKeyedStatements keyed;

    private XaIo io;

    XaUpsertPath(SubtaskContext context, XaDatabase<IN> database, JdbcDialect dialect, WriteMode.Upserts<IN> mode) {
        this.context = context;
        this.database = database;
        this.dialect = dialect;
        this.errors = new XaWriteErrors(database, dialect);
        InsertStatement.Columns<IN> columns = mode.table();
        SqlIdentifier table = columns.table();
        List<String> upsertKey = mode.key();
        this.upserts = new XaUpserts<>(mode, database.batchSize());
        this.sql = new XaKeyedStatements.Sql(
                rows -> dialect.writes()
                        .upsertSql(table, columns.columns(), upsertKey, rows)
                        .orElseThrow(), // checked at start
                dialect.writes().deleteSql(table, upsertKey),
                upserts.columnCount(),
                dialect.writes().maxRowsPerStatement());
    }

    /**
     * Upserts and deletes of keys that are not in the table take gap locks under InnoDB's REPEATABLE
     * READ: two subtasks upserting new keys into one gap deadlocked here within the first epoch. READ
     * COMMITTED takes none; each statement finds its key by the unique index, so nothing it writes
     * depends on a repeatable read.
     */
    @Override
    public void configure(Connection c) throws SQLException {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }

    @Override
    public void prepareStatements(Connection c, XaIo io) throws SQLException {
        this.keyed = io.sql("reading the server's packet limit", () -> keyedStatements(c));
        this.io = io;
    }

    private XaKeyedStatements keyedStatements(Connection c) throws SQLException {
        return new XaKeyedStatements(
                c, sql, database.batchSize(), dialect.writes().maxStatementBytes(c));
    }

    @Override
    public void write(IN record, long positionInEpoch, TransactionId branch) throws IOException {
        try {
            upserts.add(record, positionInEpoch);
        } catch (Exception e) {
            throw errors.writeFailed(
                    e,
                    XaWriteErrors.atRecord(positionInEpoch, database.statement().shown(record)),
                    branch);
        }
        if (upserts.due()) {
            flush(branch);
        }
    }

    /**
     * Runs the buffered upserts and deletes into the open branch, once the previous branch is
     * committed; they stay held otherwise ({@link XaUpserts}), and while no branch is open.
     */
    @Override
    public void flush(TransactionId branch) throws IOException {
        if (upserts.isEmpty() || branch == null) {
            return;
        }
        long[] positions = upserts.positions();
        try {
            upserts.run(keyed, io);
        } catch (SQLException e) {
            throw errors.writeFailed(
                    e,
                    "in the upserts and deletes of records #" + positions[0] + " to #" + positions[1]
                            + " of the epoch (counting from 0; one row per key, its last record; the driver does not say "
                            + "which of them the database refused)",
                    branch);
        }
    }

    @Override
    public void prepared() {
        upserts.epochPrepared();
    }

    @Override
    public void abort() {
        upserts.clear();
    }

    @Override
    public void ownCommits(OwnCommits ownCommits) {
        upserts.ownCommits(ownCommits);
    }

    /** The upserts and deletes held past the barrier that just prepared the epoch, for checkpoint state. */
    @Override
    public Optional<byte[]> carried() throws IOException {
        return upserts.carried();
    }

    @Override
    public boolean holdsWrites() {
        return upserts.holdsWrites();
    }

    @Override
    public int heldWrites() {
        return upserts.heldWrites();
    }

    /**
     * Writes what a writer of this sink carried in a restored checkpoint's state ({@link #carried()})
     * in a local transaction of its own on a connection of its own, committed before it returns (see
     * {@link dev.eosink.core.spi.WriterSession#applyCarried}): never inside a branch.
     */
    @Override
    public void applyCarried(byte[] bytes, int subtask, String origin, String failed) throws IOException {
        XaCarried carried;
        try {
            carried = upserts.readCarried(bytes);
        } catch (CarriedStatementsRefused e) {
            // A restart would read the same state again.
            throw new SuppressRestartsException(
                    new SinkException(failed + ": " + e.getMessage() + ". Nothing of them is committed", e));
        }
        XAConnection xa = database.open(context, "carried");
        try {
            Connection c = xa.getConnection();
            XaIo io = new XaIo(c, database.networkTimeout(), context + " (carried)", dialect.xa());
            io.sql("writing carried upserts and deletes", () -> {
                database.boundLockWaits(dialect, c);
                // As on the epoch connections (configure): no gap locks. Every restored writer
                // writes what it carried at once, into the same gaps of the key's index.
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                c.setAutoCommit(false);
                upserts.executeCarried(carried, keyedStatements(c), io);
                CarriedNotices.delete(c, dialect.markers(database.markerId()), context.sinkId(), subtask);
                c.commit();
                return null;
            });
            LOG.info(
                    "{}: wrote {} upsert(s) and delete(s) carried by {}",
                    context,
                    carried.rows().size(),
                    origin);
        } catch (SQLException e) {
            // Closing the connection rolls back what is not committed.
            throw new SinkException(
                    failed + ": " + e.getMessage()
                            + (dialect.errors().isLockTimeout(e)
                                    ? " (another session holds a row of one of their keys: after a rescale, the subtask that owns that "
                                            + "key now may have written it first)"
                                    : "")
                            + ". Nothing of them is committed; the task fails over and tries again.",
                    e);
        } finally {
            try {
                xa.close();
            } catch (SQLException e) {
                LOG.debug("{}: closing the connection of the carried writes failed", context, e);
            }
        }
    }
}
