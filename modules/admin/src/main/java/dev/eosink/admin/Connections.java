/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.jdbc.driver.JdbcUrls;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.Properties;
import java.util.ServiceLoader;

/** Opens the tool's connections, and turns a refused login into a message without the password. */
final class Connections {

    private Connections() {}

    static Connection open(Credentials credentials) throws AdminException {
        Properties props = credentials.properties();
        try {
            for (Driver driver : ServiceLoader.load(Driver.class, Connections.class.getClassLoader())) {
                if (driver.acceptsURL(credentials.url())) {
                    Connection c = driver.connect(credentials.url(), props);
                    if (c != null) {
                        return c;
                    }
                }
            }
            throw new AdminException(
                    AdminException.USAGE,
                    "no JDBC driver for " + JdbcUrls.redact(credentials.url())
                            + ": no JDBC driver on the tool's class path accepts it");
        } catch (SQLException e) {
            throw failed(credentials, e);
        }
    }

    /** The error of a failed connection or statement: bad credentials named as such, the password never shown. */
    static AdminException failed(Credentials credentials, SQLException e) {
        String where = JdbcUrls.redact(credentials.url());
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("28") || e.getErrorCode() == 1045) {
            return new AdminException("the database at " + where + " refused user '" + credentials.user()
                    + "' (SQLState " + state + ": authentication failed). Remedy: check --user, and the password in "
                    + Credentials.PASSWORD_ENV + " or the file of --password-file");
        }
        return new AdminException(
                "could not connect to " + where + " as user '" + credentials.user() + "': "
                        + credentials.scrub(e.getMessage()),
                e);
    }
}
