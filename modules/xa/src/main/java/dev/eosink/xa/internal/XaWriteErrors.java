/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockTimeout;
import dev.eosink.jdbc.sql.DeadLetterBuffer;
import dev.eosink.jdbc.sql.RecordText;
import dev.eosink.xa.internal.XaErrors.Handling;
import dev.eosink.xa.internal.XaErrors.Operation;

import javax.transaction.xa.XAException;
import javax.transaction.xa.Xid;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The messages of a failed epoch of the XA writer: which branch, which record, what the database
 * said, and what becomes of the epoch. Every message says whether the epoch is replayed after the
 * restart or fails the same way again (a record the database refuses), and, where an operator can
 * act, the remedy. The core writer adds sink, subtask, target and checkpoint in front.
 */
final class XaWriteErrors {

    private final XaDatabase<?> database;
    private final JdbcDialect dialect;

    XaWriteErrors(XaDatabase<?> database, JdbcDialect dialect) {
        this.database = database;
        this.dialect = dialect;
    }

    /** XA START failed on the driver's side (not with an XA code): nothing of the epoch was written. */
    SinkException beginFailed(Xid xid, TransactionId id, SQLException e) {
        return new SinkException(
                "could not begin XA branch " + XaIds.describe(xid) + " of " + id + " into "
                        + database.target() + ": " + e.getMessage()
                        + ". Nothing of this epoch was written; it is replayed "
                        + "from the last checkpoint after the restart.",
                e);
    }

    /** An XA call of the epoch's branch answered with an XA error code. */
    SinkException xaFailed(Operation operation, TransactionId id, XAException e) {
        Handling handling = XaErrors.of(operation, e);
        return new SinkException(
                "XA " + operation.name().toLowerCase(Locale.ROOT) + " of branch "
                        + XaIds.describe(XaIds.toXid(id)) + " (" + id + ") into " + database.target() + " failed: "
                        + XaErrors.describe(e) + ". "
                        + (handling == Handling.RETRY
                                ? "The epoch's branch is gone or unusable; its rows will be replayed from the last checkpoint "
                                        + "after the restart."
                                : "Nothing of this epoch becomes visible." + XaErrors.remedy(operation, e.errorCode)),
                e);
    }

    /**
     * An XA END or PREPARE that the watchdog ended (the network timeout, or the task being
     * cancelled): the connection is gone, and the branch with it.
     */
    SinkException xaCallAborted(Operation step, Xid xid, TransactionId id, SQLException e) {
        return new SinkException(
                "XA " + step.name().toLowerCase(Locale.ROOT) + " of branch "
                        + XaIds.describe(xid) + " (" + id + ") into " + database.target() + " failed: " + e.getMessage()
                        + ". The epoch's branch is gone or unusable; its rows will be replayed from the last checkpoint "
                        + "after the restart.",
                e);
    }

    /** A branch voted read-only at PREPARE: the marker row, written in every branch, went missing. */
    SinkException preparedReadOnly(Xid xid, TransactionId id) {
        return new SinkException("XA branch " + XaIds.describe(xid) + " of " + id + " prepared read-only: its "
                + "marker row was not written, so its commit could never be proved."
                + XaErrors.remedy(Operation.PREPARE, XAException.XA_RDONLY));
    }

    /** The marker row of the epoch's branch could not be written. */
    SinkException markerFailed(TransactionId id, long rows, SQLException e) {
        return new SinkException(
                "could not write the marker row of " + id + " (" + rows + " rows into "
                        + database.target() + ") into "
                        + dialect.qualified(database.markerSchema(), database.markerTable())
                        + ": " + e.getMessage() + ". Nothing of this epoch becomes visible."
                        + (dialect.errors().isLockTimeout(e) ? " " + lockTimeoutAdvice() : ""),
                e);
    }

    /**
     * A record that could not be written: the row mapper or statement builder threw, or the database
     * refused a statement.
     *
     * @param where which record: "at record #k of the epoch ...", or the batch's range
     * @param openId the open branch's transaction; null when none is open
     */
    SinkException writeFailed(Exception e, String where, TransactionId openId) {
        String what;
        if (e instanceof SQLException) {
            SQLException sql = (SQLException) e;
            String state = sql.getSQLState() == null ? "" : sql.getSQLState();
            what = dialect.errors().isLockTimeout(sql)
                    ? lockTimeoutAdvice()
                    : state.startsWith("22") || state.startsWith("23")
                            ? "The database rejected a record (SQLSTATE " + state
                                    + "). Nothing of this epoch becomes visible; "
                                    + "the job will fail the same way after every restart until the record is fixed or filtered "
                                    + "upstream."
                            : "The statement failed (SQLSTATE " + state
                                    + "); nothing of this epoch becomes visible, and it is "
                                    + "replayed from the last checkpoint after the restart.";
        } else {
            what = "The row mapper or statement builder threw " + e.getClass().getName() + "; nothing was sent for the "
                    + "record, and nothing of this epoch becomes visible.";
        }
        return new SinkException(
                "writing into " + database.target()
                        + (openId == null ? "" : " (XA branch " + XaIds.describe(XaIds.toXid(openId)) + ")")
                        + " failed " + where + ": "
                        + String.valueOf(e.getMessage()).replaceAll("\\s+", " ") + ". " + what,
                e);
    }

    /** One record more than a dead-letter table takes in an epoch was refused: the epoch fails. */
    SinkException tooManyRefused(XaDeadLetters.TooMany t, TransactionId openId) {
        Throwable cause = t.getCause();
        return new SinkException(
                "writing into " + database.target()
                        + (openId == null ? "" : " (XA branch " + XaIds.describe(XaIds.toXid(openId)) + ")")
                        + " failed " + atRecord(t.position, t.record) + ": "
                        + String.valueOf(cause.getMessage()).replaceAll("\\s+", " ") + ". More than "
                        + DeadLetterBuffer.MAX_PER_EPOCH
                        + " records of this epoch were refused, which is no longer a few bad "
                        + "records but a broken job (a wrong column, a changed schema): nothing of this epoch becomes visible, "
                        + "and the job fails the same way after every restart until the records or the table are fixed.",
                cause);
    }

    /** "at record #k of the epoch (counting from 0) [record]": where a single record failed. */
    static String atRecord(long positionInEpoch, Object record) {
        return "at record #" + positionInEpoch + " of the epoch (counting from 0) " + RecordText.bracketed(record);
    }

    /**
     * Which record of a batch the database refused: exact for a batch of one, or when the driver
     * stopped at the first failing entry and says how many succeeded before it; otherwise the batch's
     * range.
     *
     * @param batch the batch's records, in the order they were added
     * @param firstPosition the position in the epoch of the batch's first record
     * @param shown how a record is shown ({@code InsertStatement#shown})
     */
    static <IN> String failedEntry(SQLException e, List<IN> batch, long firstPosition, Function<IN, Object> shown) {
        long last = firstPosition + batch.size() - 1;
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
            return atRecord(firstPosition + index, shown.apply(batch.get(index)));
        }
        return "in the batch of records #" + firstPosition + " to #" + last + " of the epoch (counting from 0); "
                + "the driver did not say which of them the database refused";
    }

    /** What a write that ran into the lock timeout means, and what to do. */
    private String lockTimeoutAdvice() {
        return "It waited longer than the lock timeout ("
                + database.lockTimeout().toMillis() + " ms, "
                + dialect.lockTimeout().map(LockTimeout::setting).orElse("no lock timeout (unknown database)")
                + ") for a lock held by another transaction: usually a prepared XA "
                + "branch that is waiting for its commit or rollback (of this sink, or left by a job that did not come "
                + "back), or another client's long transaction or DDL on the same rows or table. Nothing of this epoch "
                + "becomes visible; the task fails and the epoch is replayed from the last checkpoint, and waits again "
                + "while the lock is held. Remedy: find the holder ("
                + dialect.lockTimeout()
                        .map(LockTimeout::holdersHint)
                        .orElse("the database's list of locks and of prepared XA transactions")
                + ") and end it; "
                + "resolve prepared branches of a dead job as docs/xa.md (Operators) shows; or raise "
                + "lockTimeout if such waits are expected.";
    }
}
