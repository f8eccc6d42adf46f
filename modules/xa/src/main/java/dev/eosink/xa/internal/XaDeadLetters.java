/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.sql.DeadLetterBuffer;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.RecordText;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The XA writer's inserts when the sink has a dead-letter table: a record the database refuses for
 * its data (or the row mapper cannot map) is kept, with its error, for that table, in the epoch's own
 * branch ({@link DeadLetterBuffer} says why that keeps it exactly once), while the rest of the epoch
 * goes on.
 *
 * <p>How: each batch goes out after a savepoint. When the database refuses a record of it, the batch
 * is undone back to the savepoint and sent again record by record, each after a savepoint of its own,
 * so that a refused record is undone alone. A savepoint is needed on MariaDB too, although InnoDB
 * undoes only the failing statement: a batch may go as one bulk statement, and whether the rows
 * before the refused one stayed is the driver's business. Anything but a refusal of the record's data
 * ({@link JdbcDialect#rejectsRecord}) fails the epoch as without a dead-letter table.
 */
final class XaDeadLetters<IN> {

    /** A record more than {@link DeadLetterBuffer#MAX_PER_EPOCH} was refused in one epoch. */
    static final class TooMany extends Exception {
        private static final long serialVersionUID = 1L;
        final long position;
        /** The record as {@link InsertStatement#shown} shows it. */
        final transient Object record;

        TooMany(long position, Object record, Exception cause) {
            super(cause.getMessage(), cause);
            this.position = position;
            this.record = record;
        }
    }

    private static final String BATCH = "eosink_batch";
    private static final String RECORD = "eosink_record";

    private final JdbcDialect dialect;
    private final InsertStatement<IN> statement;
    private final DeadLetterBuffer kept;
    private final String table;

    XaDeadLetters(JdbcDialect dialect, InsertStatement<IN> statement, SqlIdentifier deadLetterTable) {
        this.dialect = dialect;
        this.statement = statement;
        this.kept = new DeadLetterBuffer(dialect.writes().insertSql(deadLetterTable, DeadLetterBuffer.COLUMNS, 1));
        this.table = dialect.qualified(deadLetterTable);
    }

    String table() {
        return table;
    }

    int size() {
        return kept.size();
    }

    /** A record the row mapper or statement builder could not bind: nothing was sent for it. */
    void notBound(long position, IN record, Exception e) throws TooMany {
        keep(position, record, e);
    }

    /** Sends a batch, keeping the records the database refuses for their data. */
    void send(Connection c, XaIo io, PreparedStatement insert, List<IN> batch, long firstPosition)
            throws SQLException, TooMany {
        control(c, io, dialect.writes().savepointSql(BATCH));
        try {
            io.sql("sending a batch of " + batch.size() + " rows", insert::executeBatch);
        } catch (SQLException e) {
            if (!rejects(e)) {
                throw e;
            }
            control(c, io, dialect.writes().rollbackToSavepointSql(BATCH));
            insert.clearBatch();
            for (int i = 0; i < batch.size(); i++) {
                sendOne(c, io, insert, firstPosition + i, batch.get(i));
            }
        }
        control(c, io, dialect.writes().releaseSavepointSql(BATCH));
    }

    private void sendOne(Connection c, XaIo io, PreparedStatement insert, long position, IN record)
            throws SQLException, TooMany {
        control(c, io, dialect.writes().savepointSql(RECORD));
        try {
            statement.bind(insert, record);
            io.sql("sending a record", insert::executeUpdate);
        } catch (SQLException e) {
            if (!rejects(e)) {
                throw e;
            }
            control(c, io, dialect.writes().rollbackToSavepointSql(RECORD));
            keep(position, record, e);
        } catch (Exception e) { // the binder threw this time (it did not when the record was batched)
            keep(position, record, e);
        }
        control(c, io, dialect.writes().releaseSavepointSql(RECORD));
    }

    private boolean rejects(SQLException e) {
        return ErrorKinds.chain(e).stream().anyMatch(dialect.errors()::rejectsRecord);
    }

    private void keep(long position, IN record, Exception e) throws TooMany {
        String state = null;
        String error;
        if (e instanceof SQLException sql) {
            SQLException refusal = ErrorKinds.chain(sql).stream()
                    .filter(dialect.errors()::rejectsRecord)
                    .findFirst()
                    .orElse(sql);
            state = refusal.getSQLState();
            error = String.valueOf(refusal.getMessage()).replaceAll("\\s+", " ");
        } else {
            error = "the row mapper or statement builder threw " + e.getClass().getName() + ": " + e.getMessage();
        }
        Object shown = statement.shown(record);
        if (!kept.add(position, RecordText.plain(shown), state, error)) {
            throw new TooMany(position, shown, e);
        }
    }

    /** Writes the epoch's kept records into its branch (before its marker row). */
    void writeKept(Connection c, XaIo io, TransactionId id) throws SQLException {
        if (kept.size() > 0) {
            io.sql("writing the dead letters", () -> {
                kept.write(c, id);
                return null;
            });
        }
    }

    /** The branch is rolled back, or a new one begins: forget what was kept. */
    void clear() {
        kept.clear();
    }

    private static void control(Connection c, XaIo io, String sql) throws SQLException {
        io.sql(sql, () -> {
            try (Statement s = c.createStatement()) {
                return s.execute(sql);
            }
        });
    }
}
