/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.sql.RecordText;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.copy.BinaryCopyEncoder;

import java.sql.SQLException;

/**
 * The one place where a failed write or PREPARE becomes the error a user reads. Each message says
 * what failed (the target), where in the epoch ({@link FailurePosition}: one record, shown; a COPY
 * line; or a batch and why not one record), the database's own reason, and what it means: whether the
 * failure repeats after a restart ({@link PostgresErrors#onWrite}) and that nothing of the epoch
 * becomes visible. Tests and operators match these texts: change them only on purpose.
 */
final class WriteErrors {

    /** What the sink writes to, as messages name it: "table \"public\".\"orders\"", or the user's statement. */
    private final String target;

    WriteErrors(String target) {
        this.target = target;
    }

    String target() {
        return target;
    }

    /**
     * Writing failed at {@code where}: the database refused, the COPY encoder or the row mapper threw,
     * or the connection broke (then no position is named: a lost connection is about no record).
     */
    SinkException writeFailed(Exception e, FailurePosition where) {
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
                "writing into " + target + " failed"
                        + (connectionLost ? "" : " " + where.describe()) + ": " + reason
                        + ". " + what + ".",
                e);
    }

    /** What a dead letter keeps as the error: the server's message, or what the row mapper threw. */
    static String refusal(Exception e) {
        return e instanceof SQLException
                ? rootMessage(e)
                : "the row mapper or statement builder threw " + e.getClass().getName() + ": " + e.getMessage();
    }

    /** The epoch refused one record more than a dead-letter table takes in an epoch. */
    SinkException tooManyRefused(long position, Object record, Exception e) {
        return new SinkException(
                "writing into " + target + " failed at record #" + position
                        + " of the epoch " + RecordText.bracketed(record) + ": " + sentence(refusal(e)) + ". More than "
                        + DeadLetters.MAX_PER_EPOCH
                        + " records of this epoch were refused, which is no longer a few bad "
                        + "records but a broken job (a wrong column, a changed schema?), so the epoch fails instead of "
                        + "filling the dead-letter table. Nothing of this epoch becomes visible",
                e);
    }

    /** COPY stored another number of rows than the epoch handed over: the epoch is never prepared. */
    SinkException copyCountMismatch(TransactionId id, long stored, long rows) {
        return new SinkException("COPY into " + target + " stored " + stored + " rows, but the epoch has " + rows
                + " records; refusing to prepare " + id);
    }

    /**
     * Writing the dead letters, the marker row or PREPARE TRANSACTION failed.
     *
     * @param markerWritten whether the marker row was written: if not, the message names the marker table
     */
    SinkException prepareFailed(
            TransactionId id, long rows, SqlIdentifier markerTable, boolean markerWritten, SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        // PREPARE runs the constraints deferred to the end of the transaction: a row of this epoch,
        // but no longer a position in it.
        boolean deferredConstraint = markerWritten && state.startsWith("23");
        return new SinkException(
                "could not prepare transaction "
                        + id
                        + " ("
                        + rows
                        + " rows into "
                        + target
                        + (markerWritten ? "" : "; writing its marker row into " + markerTable + " failed")
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

    /** The text without its final full stop, so that messages can go on after it. */
    private static String sentence(String text) {
        String t = text.trim();
        while (t.endsWith(".")) {
            t = t.substring(0, t.length() - 1);
        }
        return t;
    }

    /** The server's message of the first error in a chain (pgjdbc hides it behind getNextException). */
    private static String rootMessage(Exception e) {
        if (e instanceof SQLException) {
            SQLException next = ((SQLException) e).getNextException();
            if (next != null && next.getMessage() != null) {
                return next.getMessage().replaceAll("\\s+", " ");
            }
        }
        return String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
    }
}
