/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.io;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.Socket;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Readies a connection's socket so that {@code Connection.abort} (which closes it) ends a write
 * blocked in that socket at once and never waits for the peer, with or without TLS.
 *
 * <p>Why: over TLS, a driver's socket is a JDK {@code SSLSocket}, whose {@code close()} first sends
 * TLS's close_notify and so takes the lock that a writer blocked in a stalled network holds: with
 * SO_LINGER unset it waits for that writer, for ever; with SO_LINGER = n it waits n seconds, then shuts
 * the underlying socket's output down, which ends the blocked write. It then reads the peer's last
 * records for up to SO_TIMEOUT (pgjdbc's socketTimeout, the sink's network timeout), from a peer that
 * sends nothing. Measured on JDK 17.0.15 and 25.0.3, TLS 1.3, a COPY write stalled by {@code TcpProxy}
 * with a 4 s socket timeout: without this, abort still blocked after 10 s and the write never ended;
 * with SO_LINGER 0 alone, the write ended at once and abort returned after 4 s; with SO_LINGER 0 and
 * SO_TIMEOUT 1 ms, both within 10 ms. SO_LINGER 0 also makes the final close a reset, not a FIN queued
 * behind data the peer will never read, which is what an abort means; a plain TCP socket closes the
 * same way.
 *
 * <p>No JDBC API exposes a connection's socket: each driver's is reached its own way, by a {@link
 * SocketAccess} chosen for the connection. Only pgjdbc's is known here ({@link PgJdbcSocketAccess}),
 * loaded for pgjdbc's connections alone, so that a class path without pgjdbc never needs it. A
 * connection that {@link AbortsItself} needs nothing. For any other (another driver, a wrapper that
 * does not unwrap to pgjdbc's connection), the abort still runs, unreadied: plain TCP is unaffected,
 * and over TLS a stalled write then ends only when the network moves again; the watchdog's timer never
 * waits for it either way (see {@link IoWatchdog}).
 */
final class AbortiveClose {

    private static final Logger LOG = LoggerFactory.getLogger(AbortiveClose.class);

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private AbortiveClose() {}

    /**
     * Sets SO_LINGER 0 and SO_TIMEOUT 1 ms on the connection's socket. Returns false when the socket
     * cannot be reached or set (closed meanwhile); never throws: the abort must go on regardless.
     *
     * @param owner the watchdog's owner (sink, subtask, attempt), for the log
     */
    static boolean ready(Connection connection, Object owner) {
        if (connection instanceof AbortsItself) {
            return true;
        }
        try {
            SocketAccess access = SocketAccess.forConnection(connection);
            if (access == null) {
                warnUnreachable(connection, owner);
                return false;
            }
            Socket socket = access.socket(connection, owner);
            if (socket == null) {
                return false;
            }
            socket.setSoLinger(true, 0);
            socket.setSoTimeout(1);
            return true;
        } catch (Exception | LinkageError e) { // closed meanwhile, or the driver's internals changed
            LOG.debug("{}: could not ready the connection's socket for an abortive close", owner, e);
            return false;
        }
    }

    /**
     * Says, once per JVM, that a connection's socket cannot be reached: it is a property of the driver
     * or DataSource, the same for every connection.
     */
    static void warnUnreachable(Connection connection, Object owner) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn(
                    "{}: the socket of its {} cannot be reached (not pgjdbc's, a wrapper that does not unwrap to "
                            + "it, or a pgjdbc version without QueryExecutorBase.pgStream), so an abort closes it as it is: "
                            + "over TLS, a write stalled in the network then ends only when the network moves again",
                    owner,
                    connection.getClass().getName());
        }
    }
}
