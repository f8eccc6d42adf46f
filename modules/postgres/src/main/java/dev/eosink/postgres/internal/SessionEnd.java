/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.io.IoWatchdog;

import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How a writer's connection ends, so that nothing its session holds outlives the writer, whichever
 * {@link javax.sql.DataSource} it came from.
 *
 * <p>Why: the writer's session carries the ownership guard (a session-level advisory lock) and
 * session settings ({@code lock_timeout}, {@code application_name}); PostgreSQL releases the guard
 * only when the session ends. {@code close()} on pgjdbc's own connection ends the session. On a pool's
 * wrapper (HikariCP and the like) it hands the physical connection back to the pool with its session
 * still alive: the pool would keep the guard for as long as it keeps that idle connection, and every
 * restarted writer of the subtask would wait {@code claimWait} and fail. So the writer
 *
 * <ol>
 *   <li>releases its guards itself ({@code pg_advisory_unlock_all()}, watched like every call of an
 *       epoch), which holds even for a wrapper that cannot be unwrapped to pgjdbc's connection, and
 *   <li>ends the physical session when the connection is a wrapper: it closes pgjdbc's connection
 *       under the wrapper, then the wrapper, which hands the pool a dead connection. A pool that sees
 *       it dead discards it (HikariCP evicts it on that close, and validates idle connections before
 *       lending them); it never lends the writer's session to anyone.
 * </ol>
 *
 * <p>What must stay true: no statement runs on a connection whose COPY could not be cancelled (pgjdbc
 * makes it wait for the COPY for ever), so {@link #endSession} ends such a session without one; and
 * the wrapper is closed last, so a pool never gets a live session back.
 */
final class SessionEnd {

    private static final Logger LOG = LoggerFactory.getLogger(SessionEnd.class);

    private SessionEnd() {}

    /**
     * pgjdbc's own connection under {@code c} (a pool's wrapper), or {@code c} itself when it is
     * pgjdbc's, or when it cannot be unwrapped (then only releasing the guards protects them).
     */
    static Connection physical(Connection c) {
        if (c instanceof BaseConnection) {
            return c;
        }
        try {
            if (c.isWrapperFor(PGConnection.class)) {
                PGConnection pg = c.unwrap(PGConnection.class);
                if (pg instanceof Connection) {
                    return (Connection) pg;
                }
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("{} does not unwrap to pgjdbc's connection", c.getClass().getName(), e);
        }
        return c;
    }

    /** Releases the session's guards, then ends the session: what {@code close()} of a writer does. */
    static void close(Connection connection, IoWatchdog io, Object owner) throws SQLException {
        Connection physical = physical(connection);
        if (!physical.isClosed()) {
            try {
                io.call("releasing the ownership guards", () -> {
                    try (Statement s = connection.createStatement()) {
                        s.execute("SELECT pg_advisory_unlock_all()");
                    }
                    return null;
                });
            } catch (SQLException e) {
                // Ending the session below releases them as well (a connection that cannot run a
                // statement any more is usually lost, and its session with it).
                LOG.debug("{}: releasing the ownership guards failed; ending the session releases them", owner, e);
            }
        }
        endSession(connection, io, owner);
    }

    /**
     * Ends the session without running a statement: closes pgjdbc's connection (under a pool's
     * wrapper, if any), then the wrapper.
     */
    static void endSession(Connection connection, IoWatchdog io, Object owner) throws SQLException {
        Connection physical = physical(connection);
        if (physical == connection) {
            connection.close();
            return;
        }
        try {
            if (!physical.isClosed()) {
                // Closing sends a Terminate message, a write that a stalled network could block: watched
                // (an overrun aborts the connection, which ends the session too).
                io.call("ending the session", () -> {
                    physical.close();
                    return null;
                });
            }
        } finally {
            try {
                connection.close();
            } catch (SQLException e) {
                // Expected: the pool finds its connection closed (HikariCP rolls back, fails, evicts it).
                LOG.debug("{}: the pool reported the ended session on close: {}", owner, e.getMessage());
            }
        }
    }
}
