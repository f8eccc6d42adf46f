/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.jdbc.io.AbortsItself;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLSocket;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.sql.Connection;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An abort that ends a blocked call of MariaDB Connector/J, for the watchdog ({@link XaIo}).
 *
 * <p>Why: {@code Connection.abort} does not, on the connections this sink has (measured with 3.5:
 * the stall test of the hard-case suite hung with it). On the connection of an {@code XAConnection}
 * it closes that pooled connection, which waits for the lock the blocked call holds, so it blocks
 * too (on the watchdog's thread); on a plain connection it first sends {@code KILL} over a new
 * connection, which a stalled network stalls as well. Closing the connection's socket ends the
 * blocked read or write at once, and the driver then fails the call as on a lost connection (the
 * server rolls back a branch that is not prepared when the session ends, and keeps a prepared one).
 * The socket is a private field of the driver's client: should it not be found (another driver
 * version), the driver's own abort runs on a thread of its own, so that it never holds up the
 * watchdog, and a warning says the call may not end.
 *
 * <p>This class refers to the driver's classes (as {@link MariaDbXaSource} does), and is loaded only
 * for its connections ({@link XaIo} tells them by class name): the driver is optional for sinks into
 * other databases.
 */
final class MariaDbAbort {

    private static final Logger LOG = LoggerFactory.getLogger(MariaDbAbort.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private MariaDbAbort() {}

    /** {@code c}, whose {@code abort} closes its socket instead; every other method is c's own. */
    static Connection abortingBySocket(Connection c, Object owner) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("abort") && args != null && args.length == 1) {
                abort(c, (Executor) args[0], owner);
                return null;
            }
            try {
                return method.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(
                MariaDbAbort.class.getClassLoader(), new Class<?>[] {Connection.class, AbortsItself.class}, handler);
    }

    private static void abort(Connection c, Executor executor, Object owner) {
        Socket socket = socketOf(c, owner);
        if (socket == null) {
            Thread t = new Thread(
                    () -> {
                        try {
                            c.abort(executor);
                        } catch (Exception e) {
                            LOG.debug("{}: the driver's abort failed", owner, e);
                        }
                    },
                    "eosink-mariadb-abort");
            t.setDaemon(true);
            t.start();
            return;
        }
        if (socket instanceof SSLSocket) {
            // Closing a TLS socket may wait for the very write it should end: never on the caller's thread.
            Thread t = new Thread(() -> closeQuietly(socket, owner), "eosink-mariadb-abort");
            t.setDaemon(true);
            t.start();
        } else {
            closeQuietly(socket, owner);
        }
    }

    private static void closeQuietly(Socket socket, Object owner) {
        try {
            socket.setSoLinger(true, 0); // a reset: nothing queued must be delivered first
        } catch (Exception e) {
            // closed already, or not supported: close anyway
        }
        try {
            socket.close();
        } catch (Exception e) {
            LOG.debug("{}: closing the socket failed", owner, e);
        }
    }

    private static Socket socketOf(Connection c, Object owner) {
        try {
            Object client = c.unwrap(org.mariadb.jdbc.Connection.class).getClient();
            for (Class<?> k = client.getClass(); k != null; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (Socket.class.isAssignableFrom(f.getType())) {
                        f.setAccessible(true);
                        Object socket = f.get(client);
                        if (socket != null) {
                            return (Socket) socket;
                        }
                    }
                }
            }
        } catch (Exception | LinkageError e) {
            LOG.debug("{}: no socket found in MariaDB Connector/J's client", owner, e);
        }
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn(
                    "{}: the socket of a MariaDB Connector/J connection cannot be reached (another driver version?): "
                            + "a call the network timeout aborts may not end until the driver's own abort gets through",
                    owner);
        }
        return null;
    }
}
