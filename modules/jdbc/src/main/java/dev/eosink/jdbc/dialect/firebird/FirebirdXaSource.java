/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import org.firebirdsql.ds.FBXADataSource;

import javax.sql.XAConnection;
import javax.sql.XADataSource;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * Jaybird's {@code FBXADataSource} for a {@code jdbc:firebird:} or {@code jdbc:firebirdsql:} URL. This class alone
 * (with {@link FirebirdTpb}) refers to the driver, and is loaded only when such a data source is created: Jaybird is
 * optional for sinks into other databases.
 */
final class FirebirdXaSource {

    private FirebirdXaSource() {}

    /**
     * The URL's database ({@code //host:port/path} or an alias, after an optional connection type {@code java:},
     * {@code native:}, {@code embedded:}) and its options ({@code ?a=b&c=d} or {@code ;a=b}) become the data source's
     * properties, as Jaybird's driver reads a URL; {@code user} and {@code password} go through setters, never into
     * a URL a message could print. The sessions show {@code applicationName} as {@code MON$REMOTE_PROCESS}. The
     * connection character set is UTF8 unless given: without one Jaybird 6 connects with NONE, and a record's text
     * would not be converted to the columns' character set. The TPB mappings are {@link FirebirdTpb}'s.
     *
     * <p>Each XAConnection comes from an {@code FBXADataSource} of its own: one data source remembers which of its
     * connections prepared an Xid and sends a commit or rollback of that Xid to that connection, also once it is
     * closed, where it fails with "no transaction for request" (25000 / 335544363; measured with Jaybird 6.0.3,
     * while a connection of another data source commits the same branch).
     */
    static XADataSource create(String url, Properties properties, String applicationName, Duration lockTimeout)
            throws SQLException {
        configured(url, properties, applicationName, lockTimeout);
        return new OnePerConnection(() -> configured(url, properties, applicationName, lockTimeout));
    }

    private static FBXADataSource configured(
            String url, Properties properties, String applicationName, Duration lockTimeout) throws SQLException {
        String rest = url.startsWith("jdbc:firebirdsql:")
                ? url.substring("jdbc:firebirdsql:".length())
                : url.startsWith("jdbc:firebird:") ? url.substring("jdbc:firebird:".length()) : null;
        if (rest == null) {
            throw new SQLException("not a Jaybird URL (jdbc:firebird: or jdbc:firebirdsql:)");
        }
        FBXADataSource ds = new FBXADataSource();
        for (String type : new String[] {"java", "native", "embedded"}) {
            if (rest.startsWith(type + ":")) {
                ds.setType(type.equals("java") ? "PURE_JAVA" : type.toUpperCase(Locale.ROOT));
                rest = rest.substring(type.length() + 1);
            }
        }
        int options = indexOfAny(rest, '?', ';');
        if (options >= 0) {
            for (String option : rest.substring(options + 1).split("[&;]")) {
                int eq = option.indexOf('=');
                if (!option.isEmpty()) {
                    set(ds, eq < 0 ? option : option.substring(0, eq), eq < 0 ? "" : option.substring(eq + 1));
                }
            }
            rest = rest.substring(0, options);
        }
        ds.setDatabaseName(rest);
        for (String key : properties.stringPropertyNames()) {
            set(ds, key, properties.getProperty(key));
        }
        if (ds.getCharSet() == null && ds.getEncoding() == null) {
            ds.setEncoding("UTF8");
        }
        ds.setProcessName(applicationName);
        ds.setTransactionParameters(Connection.TRANSACTION_READ_COMMITTED, FirebirdTpb.branch(lockTimeout));
        ds.setTransactionParameters(FirebirdTpb.SKIP_LIMBO, FirebirdTpb.skipLimbo());
        ds.setTransactionParameters(FirebirdTpb.PROBE, FirebirdTpb.probe());
        return ds;
    }

    private static void set(FBXADataSource ds, String key, String value) {
        switch (key) {
            case "user":
                ds.setUser(value);
                break;
            case "password":
                ds.setPassword(value);
                break;
            default:
                ds.setProperty(key, value);
        }
    }

    private static int indexOfAny(String s, char a, char b) {
        int i = s.indexOf(a);
        int j = s.indexOf(b);
        return i < 0 ? j : j < 0 ? i : Math.min(i, j);
    }

    /** What makes one configured data source. */
    private interface Factory {
        FBXADataSource make() throws SQLException;
    }

    /** An XADataSource whose every XAConnection comes from a new {@code FBXADataSource}: see {@link #create}. */
    private static final class OnePerConnection implements XADataSource {
        private final Factory factory;
        private int loginTimeout;

        OnePerConnection(Factory factory) {
            this.factory = factory;
        }

        @Override
        public XAConnection getXAConnection() throws SQLException {
            FBXADataSource ds = factory.make();
            ds.setLoginTimeout(loginTimeout);
            return ds.getXAConnection();
        }

        @Override
        public XAConnection getXAConnection(String user, String password) throws SQLException {
            FBXADataSource ds = factory.make();
            ds.setLoginTimeout(loginTimeout);
            return ds.getXAConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {
            loginTimeout = seconds;
        }

        @Override
        public int getLoginTimeout() {
            return loginTimeout;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException("no java.util.logging parent logger");
        }
    }
}
