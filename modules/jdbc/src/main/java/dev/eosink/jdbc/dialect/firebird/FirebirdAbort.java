/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.io.AbortsItself;

import org.firebirdsql.gds.ng.FbDatabase;
import org.firebirdsql.jdbc.FirebirdConnection;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * An abort that ends a blocked call of Jaybird at once, for the XA sink's watchdog. Measured with Jaybird 6.0.3 on a
 * connection of an {@code FBXADataSource}, its network stalled in the middle of a batch: {@code Connection.abort}
 * first waits for the transaction coordinator, which the blocked call holds, then sends a cancel over the stalled
 * socket, so it returned only once the network moved again (18 s later). Jaybird's own last step, {@code
 * FbDatabase.forceClose()}, closes the socket without waiting for anything: the blocked read or write fails at once,
 * and the driver fails the call as on a lost connection (the server rolls back a branch that is not prepared when
 * its attachment ends, and keeps a prepared one, in limbo). The database handle is taken when the connection is
 * wrapped, while no call runs on it. This class alone (with {@link FirebirdTpb} and {@link FirebirdXaSource}) refers
 * to Jaybird, and is loaded for Firebird connections only.
 */
final class FirebirdAbort {

    private FirebirdAbort() {}

    /** {@code c}, whose {@code abort} closes its socket instead; every other method is {@code c}'s own. */
    static Connection abortingBySocket(Connection c) throws SQLException {
        FbDatabase database = c.unwrap(FirebirdConnection.class).getFbDatabase();
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("abort") && args != null && args.length == 1) {
                database.forceClose();
                return null;
            }
            try {
                return method.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(
                FirebirdAbort.class.getClassLoader(), new Class<?>[] {Connection.class, AbortsItself.class}, handler);
    }
}
