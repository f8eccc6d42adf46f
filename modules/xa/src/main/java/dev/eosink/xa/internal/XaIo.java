/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.io.IoWatchdog;

import javax.sql.XAConnection;
import javax.transaction.xa.XAException;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The {@link IoWatchdog} of the JDBC sinks for one XA connection: every driver call of an epoch,
 * a commit or a recovery runs through it, so that a call into a stalled network, or one of a task
 * that Flink cancels, ends with its connection aborted instead of blocking for ever (a write into a
 * peer that stopped reading ignores the driver's socketTimeout and the thread's interrupt alike).
 *
 * <p>XA calls throw {@link XAException}, which the watchdog (made for JDBC calls) does not know: it is
 * carried through as the cause of an {@link SQLException} and thrown again as it was, unless the
 * watchdog aborted the connection, in which case the watchdog's own error (SQLSTATE 08006, naming
 * the call and the timeout) is thrown with the XAException as its cause.
 */
final class XaIo {

    /** An XA call into the driver. */
    @FunctionalInterface
    interface XaCall<T> {
        T call() throws XAException, SQLException;
    }

    private final IoWatchdog watchdog;

    /**
     * @param connection the XA connection's handle: pgjdbc's passes {@code abort} on to the physical
     *     connection, which closes its socket; MariaDB Connector/J's abort would wait for the blocked
     *     call, so its socket is closed instead ({@link MariaDbAbort}); any other driver's connection is
     *     aborted as its dialect says ({@link XaTraits#abortable})
     * @param timeout the network timeout; ZERO bounds nothing but a cancelled task's calls
     * @param traits the connection's dialect's XA traits
     */
    XaIo(Connection connection, Duration timeout, Object owner, XaTraits traits) throws SQLException {
        Connection abortable =
                isMariaDb(connection) ? MariaDbAbort.abortingBySocket(connection, owner) : traits.abortable(connection);
        this.watchdog = new IoWatchdog(abortable, timeout, owner);
    }

    /** Whether {@code c} is MariaDB Connector/J's: by name, so that no other connection loads its classes. */
    private static boolean isMariaDb(Connection c) {
        return c.getClass().getName().startsWith("org.mariadb.jdbc.");
    }

    <T> T sql(String what, IoWatchdog.SqlCall<T> body) throws SQLException {
        return watchdog.call(what, body);
    }

    <T> T xa(String what, XaCall<T> body) throws XAException, SQLException {
        try {
            return watchdog.call(what, () -> {
                try {
                    return body.call();
                } catch (XAException e) {
                    throw new Carrier(e);
                }
            });
        } catch (Carrier c) {
            throw c.xa;
        }
    }

    /**
     * Closes {@code xa}, the XA connection of the watched handle, within the network timeout: a driver whose close
     * waits for the server's answer (Jaybird's detach) would otherwise hang on a stalled network, and with it the
     * task's cleanup and its restart. The watchdog aborts the connection then; the server ends the session as for a
     * lost client. A driver's close that fails with an unchecked exception once its socket was closed under it
     * (Jaybird's detach, reading from the closed socket: a NullPointerException) fails as a lost connection does,
     * so that it never escapes a task's cleanup.
     */
    void close(XAConnection xa) throws SQLException {
        sql("closing the connection", () -> {
            try {
                xa.close();
            } catch (RuntimeException e) {
                throw new SQLException("closing the connection failed in the driver: " + e, "08006", e);
            }
            return null;
        });
    }

    /** An XAException on its way through the watchdog, which only passes SQLExceptions. */
    private static final class Carrier extends SQLException {
        private static final long serialVersionUID = 1L;
        final transient XAException xa;

        Carrier(XAException xa) {
            super(xa.getMessage(), null, xa.errorCode, xa);
            this.xa = xa;
        }
    }
}
