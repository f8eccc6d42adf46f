/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.io;

import java.net.Socket;
import java.sql.Connection;

/**
 * How to reach the socket of one driver's connections, for {@link AbortiveClose}: no JDBC API exposes
 * it, so each way in is driver-specific, and an implementation may refer to its driver's classes.
 * {@link #forConnection} loads an implementation only for its driver's connections.
 */
interface SocketAccess {

    /**
     * The connection's socket, or null when there is none to ready: the connection has none any more
     * (closed meanwhile), or this driver's version hides it, which the implementation reports with
     * {@link AbortiveClose#warnUnreachable}.
     *
     * @param owner the watchdog's owner (sink, subtask, attempt), for the log
     */
    Socket socket(Connection connection, Object owner) throws Exception;

    /** The access for {@code connection}'s driver, or null when no driver known here made it. */
    static SocketAccess forConnection(Connection connection) throws Exception {
        Class<?> pgjdbc = PgJdbc.CONNECTION;
        if (pgjdbc != null && connection.isWrapperFor(pgjdbc)) {
            return PgJdbcSocketAccess.INSTANCE;
        }
        return null;
    }

    /**
     * pgjdbc's connection interface, looked up by name (and not initialised) the first time a socket
     * is wanted; null when pgjdbc is not on the class path, which then never loads any class of it.
     */
    final class PgJdbc {
        static final Class<?> CONNECTION = classIfPresent("org.postgresql.core.BaseConnection");

        private PgJdbc() {}

        private static Class<?> classIfPresent(String name) {
            try {
                return Class.forName(name, false, SocketAccess.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
        }
    }
}
