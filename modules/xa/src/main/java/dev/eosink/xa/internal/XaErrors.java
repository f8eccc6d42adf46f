/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import org.apache.flink.annotation.Internal;

import javax.transaction.xa.XAException;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The one table that sorts every XA error code, per operation, into what the protocol does about it.
 * docs/xa.md shows the same table; {@code XaErrorsTest} checks that every code has a row for every
 * operation.
 *
 * <ul>
 *   <li><b>RETRY</b>: the outcome is unknown or momentary. On the committer: look again with a bound
 *       ({@link dev.eosink.core.spi.RetriableCommitException}). On the writer: the epoch's branch is
 *       gone or unusable; the task fails over and Flink replays the epoch from the last checkpoint.
 *   <li><b>KNOWN</b>: the branch is no longer prepared and the marker row decides: visible means it
 *       committed (idempotent re-commit), absent means it was rolled back. On rollback, KNOWN means the
 *       goal is reached.
 *   <li><b>FATAL</b>: a bug, a misconfiguration or a heuristic decision that lost or mixed data: fail
 *       with the remedy, never carry on.
 * </ul>
 *
 * <pre>
 * code                    start/end/prepare (writer)  commit                rollback (leftovers)  recover
 * XA_RBBASE..XA_RBEND     RETRY (RM rolled back)       KNOWN (marker)        KNOWN (done)          FATAL
 * XA_HEURCOM              FATAL                        KNOWN (marker)        FATAL (became visible) FATAL
 * XA_HEURRB               FATAL                        KNOWN (marker)        KNOWN (done)          FATAL
 * XA_HEURMIX, XA_HEURHAZ  FATAL                        FATAL                 FATAL                 FATAL
 * XA_RDONLY               FATAL (marker row missing)   FATAL                 FATAL                 FATAL
 * XA_NOMIGRATE            FATAL                        FATAL                 FATAL                 FATAL
 * XA_RETRY                RETRY                        RETRY                 RETRY                 RETRY
 * XAER_ASYNC              FATAL                        FATAL                 FATAL                 FATAL
 * XAER_RMERR              RETRY                        RETRY                 RETRY                 FATAL (privilege)
 * XAER_NOTA               RETRY (branch lost)          KNOWN (marker)        KNOWN (gone)          FATAL
 * XAER_INVAL              FATAL                        FATAL                 FATAL                 FATAL
 * XAER_PROTO              FATAL                        FATAL                 FATAL                 FATAL
 * XAER_RMFAIL             RETRY (connection lost)      RETRY                 RETRY                 RETRY
 * XAER_DUPID              FATAL (name collision)       FATAL                 FATAL                 FATAL
 * XAER_OUTSIDE            FATAL (local transaction)    FATAL                 FATAL                 FATAL
 * no code (0), connection
 *   lost underneath         as XAER_RMFAIL               as XAER_RMFAIL        as XAER_RMFAIL        as XAER_RMFAIL
 * any other code          FATAL                        FATAL                 FATAL                 FATAL
 * </pre>
 *
 * <p>"No code, connection lost": MariaDB Connector/J reports a connection lost during an XA call as an
 * XAException with error code 0 and the socket failure (SQLSTATE 08xxx) as its cause, measured on a
 * commit whose session was killed. That is XAER_RMFAIL in all but name.
 *
 * <p>KNOWN on commit is never taken as "committed": the committer asks the database whether the
 * branch is still prepared (MariaDB answers XAER_NOTA for a branch still attached to the session that
 * prepared it) and then reads the marker row.
 */
@Internal
public final class XaErrors {

    /** The XA calls the sink makes. */
    public enum Operation {
        START,
        END,
        PREPARE,
        COMMIT,
        ROLLBACK,
        RECOVER
    }

    /** What the protocol does about an error. */
    public enum Handling {
        RETRY,
        KNOWN,
        FATAL
    }

    /** Every error code XAException defines, with its name. */
    public static final Map<Integer, String> CODES = new HashMap<>();

    private static final Map<Operation, Map<Integer, Handling>> TABLE = new EnumMap<>(Operation.class);

    static {
        name(XAException.XA_RBROLLBACK, "XA_RBROLLBACK");
        name(XAException.XA_RBCOMMFAIL, "XA_RBCOMMFAIL");
        name(XAException.XA_RBDEADLOCK, "XA_RBDEADLOCK");
        name(XAException.XA_RBINTEGRITY, "XA_RBINTEGRITY");
        name(XAException.XA_RBOTHER, "XA_RBOTHER");
        name(XAException.XA_RBPROTO, "XA_RBPROTO");
        name(XAException.XA_RBTIMEOUT, "XA_RBTIMEOUT");
        name(XAException.XA_RBTRANSIENT, "XA_RBTRANSIENT");
        name(XAException.XA_HEURCOM, "XA_HEURCOM");
        name(XAException.XA_HEURRB, "XA_HEURRB");
        name(XAException.XA_HEURMIX, "XA_HEURMIX");
        name(XAException.XA_HEURHAZ, "XA_HEURHAZ");
        name(XAException.XA_RDONLY, "XA_RDONLY");
        name(XAException.XA_NOMIGRATE, "XA_NOMIGRATE");
        name(XAException.XA_RETRY, "XA_RETRY");
        name(XAException.XAER_ASYNC, "XAER_ASYNC");
        name(XAException.XAER_RMERR, "XAER_RMERR");
        name(XAException.XAER_NOTA, "XAER_NOTA");
        name(XAException.XAER_INVAL, "XAER_INVAL");
        name(XAException.XAER_PROTO, "XAER_PROTO");
        name(XAException.XAER_RMFAIL, "XAER_RMFAIL");
        name(XAException.XAER_DUPID, "XAER_DUPID");
        name(XAException.XAER_OUTSIDE, "XAER_OUTSIDE");

        for (Operation op : Operation.values()) {
            Map<Integer, Handling> row = new HashMap<>();
            for (int code : CODES.keySet()) {
                row.put(code, Handling.FATAL);
            }
            row.put(XAException.XA_RETRY, Handling.RETRY);
            row.put(XAException.XAER_RMFAIL, Handling.RETRY);
            TABLE.put(op, row);
        }
        for (Operation op : new Operation[] {Operation.START, Operation.END, Operation.PREPARE}) {
            Map<Integer, Handling> row = TABLE.get(op);
            rollbacks(row, Handling.RETRY);
            row.put(XAException.XAER_RMERR, Handling.RETRY);
            row.put(XAException.XAER_NOTA, Handling.RETRY);
        }
        Map<Integer, Handling> commit = TABLE.get(Operation.COMMIT);
        rollbacks(commit, Handling.KNOWN);
        commit.put(XAException.XA_HEURCOM, Handling.KNOWN);
        commit.put(XAException.XA_HEURRB, Handling.KNOWN);
        commit.put(XAException.XAER_NOTA, Handling.KNOWN);
        commit.put(XAException.XAER_RMERR, Handling.RETRY);
        Map<Integer, Handling> rollback = TABLE.get(Operation.ROLLBACK);
        rollbacks(rollback, Handling.KNOWN);
        rollback.put(XAException.XA_HEURRB, Handling.KNOWN);
        rollback.put(XAException.XAER_NOTA, Handling.KNOWN);
        rollback.put(XAException.XAER_RMERR, Handling.RETRY);
    }

    private XaErrors() {}

    private static void name(int code, String name) {
        CODES.put(code, name);
    }

    private static void rollbacks(Map<Integer, Handling> row, Handling handling) {
        for (int code = XAException.XA_RBBASE; code <= XAException.XA_RBEND; code++) {
            row.put(code, handling);
        }
    }

    /** The table's verdict; an error code XA does not define (drivers use 0 for "no code") is FATAL. */
    public static Handling of(Operation operation, XAException e) {
        return of(operation, code(e));
    }

    /**
     * The error code the table is read with: the XAException's own, or XAER_RMFAIL for an exception
     * without an XA code whose cause is a lost connection.
     */
    public static int code(XAException e) {
        if (CODES.containsKey(e.errorCode)) {
            return e.errorCode;
        }
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c instanceof SQLTransientConnectionException
                    || c instanceof SQLNonTransientConnectionException
                    || c instanceof SQLRecoverableException
                    || (c instanceof SQLException
                            && String.valueOf(((SQLException) c).getSQLState()).startsWith("08"))) {
                return XAException.XAER_RMFAIL;
            }
        }
        return e.errorCode;
    }

    public static Handling of(Operation operation, int errorCode) {
        return TABLE.get(operation).getOrDefault(errorCode, Handling.FATAL);
    }

    /** "XAER_NOTA (-4)", for messages. */
    public static String name(int errorCode) {
        return CODES.getOrDefault(errorCode, "error code") + " (" + errorCode + ")";
    }

    /** The XA code, the driver's message and the database's (the cause), on one line. */
    public static String describe(XAException e) {
        StringBuilder text = new StringBuilder(name(e.errorCode));
        if (e.getMessage() != null) {
            text.append(": ").append(e.getMessage());
        }
        Throwable cause = e.getCause();
        if (cause != null
                && cause.getMessage() != null
                && !String.valueOf(e.getMessage()).contains(cause.getMessage())) {
            text.append(" (").append(cause.getMessage()).append(')');
        }
        return text.toString().replaceAll("\\s+", " ");
    }

    /**
     * The middle of the message about a branch the database no longer lists but still holds prepared
     * (MariaDB's answer to an XA statement from another session that reached the branch while the session
     * that prepared it was ending; see {@code MariaDbXaTraits}): what happened, and that only a server
     * restart brings the branch back. The caller says what it does next and the remedy.
     */
    public static String lostTrackOfBranch(String database, String answered) {
        return database + " " + answered + ", yet the branch's marker row is still held by a transaction that has "
                + "not ended, and XA RECOVER does not list the branch: it is still prepared, with its rows and row "
                + "locks, but " + database + " lost track of it. MariaDB does so when an XA statement from another "
                + "session reaches a branch while the session that prepared it is ending; no XA statement reaches "
                + "the branch again until the server restarts, whose recovery lists it again.";
    }

    /** What an operator can do about a FATAL error, or empty. */
    public static String remedy(Operation operation, int errorCode) {
        switch (errorCode) {
            case XAException.XA_HEURCOM:
            case XAException.XA_HEURRB:
            case XAException.XA_HEURMIX:
            case XAException.XA_HEURHAZ:
                return " Remedy: the database decided this branch heuristically (an administrator or a timeout); "
                        + "check the rows of this checkpoint by hand, then forget the branch (XA_FORGET) and restore "
                        + "the job from a checkpoint whose outcome is known.";
            case XAException.XAER_DUPID:
                return " Remedy: another job or tool uses the same transaction names: give each sink its own sink id.";
            case XAException.XAER_OUTSIDE:
                return " Remedy: the connection is in a local transaction: do not configure the XADataSource to "
                        + "begin one (autocommit settings, init SQL).";
            case XAException.XAER_RMERR:
                return operation == Operation.RECOVER
                        ? " Remedy: the sink's user must be allowed to list prepared XA transactions (MySQL 8: GRANT "
                                + "XA_RECOVER_ADMIN ON *.* TO the user; PostgreSQL: SELECT on pg_prepared_xacts)."
                        : "";
            case XAException.XA_RDONLY:
                return " Remedy: the marker row was not written inside the branch; is the marker table transactional "
                        + "(InnoDB on MariaDB/MySQL)?";
            default:
                return "";
        }
    }
}
