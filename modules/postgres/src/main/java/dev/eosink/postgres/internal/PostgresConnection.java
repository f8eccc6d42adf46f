/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.driver.JdbcUrls;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.function.SerializableSupplier;
import org.postgresql.Driver;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;

import java.io.PrintWriter;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * How the sink reaches PostgreSQL: a JDBC URL with driver properties, or a serializable supplier of a
 * {@link DataSource}. Serializable configuration, shipped with the job.
 *
 * <p>Credentials never leave this class: {@link #toString()} and every message render the URL with
 * its password removed, and properties are never printed.
 *
 * <p>By URL, every connection comes from pgjdbc's {@link Driver} directly, never through {@code
 * java.sql.DriverManager}: {@code DriverManager} hands a caller only the drivers that the caller's class
 * loader resolves to the very same class, and learns of drivers only when they register themselves
 * (pgjdbc does in its static initializer) or when it scans the class path, once per JVM. On a session
 * cluster each job has a class loader of its own on a TaskManager, with its own copy of pgjdbc: the
 * driver registered for the first job is not the next job's, whose own is not loaded yet when it first
 * asks, so every job after the first would fail at start with "No suitable driver". Loading pgjdbc
 * still registers its driver; the sink deregisters it when Flink releases the job's class loader
 * ({@code dev.eosink.jdbc.driver.JdbcDrivers}).
 */
@Internal
public final class PostgresConnection implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * How long opening a connection may take (pgjdbc's {@code loginTimeout}, unless the properties or the
     * URL set it), the committer pool's connection timeout. Without it pgjdbc would take {@code
     * DriverManager}'s JVM-wide login timeout, which is 0 (none) unless someone sets it.
     */
    static final int LOGIN_TIMEOUT_SECONDS = 30;

    private final String url;
    private final Properties properties;
    private final SerializableSupplier<DataSource> dataSource;

    private PostgresConnection(String url, Properties properties, SerializableSupplier<DataSource> dataSource) {
        this.url = url;
        this.properties = properties;
        this.dataSource = dataSource;
    }

    /** A JDBC URL ({@code jdbc:postgresql://host:port/db}) and driver properties (user, password, ssl...). */
    public static PostgresConnection of(String jdbcUrl, Properties properties) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("Not a PostgreSQL JDBC URL: '"
                    + JdbcUrls.redact(jdbcUrl)
                    + "'. Expected jdbc:postgresql://host:port/database");
        }
        Properties copy = new Properties();
        copy.putAll(properties);
        return new PostgresConnection(jdbcUrl, copy, null);
    }

    /** Connections from a {@link DataSource} built on the task manager by {@code supplier}. */
    public static PostgresConnection of(SerializableSupplier<DataSource> supplier) {
        return new PostgresConnection(null, null, Objects.requireNonNull(supplier, "supplier"));
    }

    /** Opens one connection, named {@code applicationName} in pg_stat_activity. */
    public Connection open(String applicationName) throws SQLException {
        Connection connection;
        if (dataSource != null) {
            connection = dataSource.get().getConnection();
        } else {
            Properties props = new Properties();
            props.putAll(properties);
            props.setProperty("ApplicationName", applicationName);
            connection = connect(props, LOGIN_TIMEOUT_SECONDS);
        }
        if (dataSource != null) {
            try (PreparedStatement s = connection.prepareStatement("SELECT set_config('application_name', ?, false)")) {
                s.setString(1, applicationName);
                s.execute();
            } catch (SQLException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    /**
     * A small HikariCP pool for a committer: autocommit on (COMMIT PREPARED cannot run inside a
     * transaction block), no failure at construction when the database is down (the committer
     * retries instead), and connections opened only when a commit asks for one. With a minimum of
     * idle connections, HikariCP's housekeeper would open one in the background whenever the only
     * connection is busy, which doubles the committer's connections for nothing and, with a stalled
     * network, adds a hanging login beside the stalled commit. The isolation level is set rather than
     * detected: HikariCP asks the pool's first connection for the server's default, and if that
     * connection breaks meanwhile (the server crashed), it sets level -1 on every later connection,
     * which pgjdbc refuses, so the pool never opens a connection again.
     */
    public HikariDataSource pool(String poolName, String applicationName, int maxSize) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setMaximumPoolSize(maxSize);
        config.setMinimumIdle(0);
        config.setAutoCommit(true);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(30_000);
        // application_name through SQL works for URL and DataSource alike; the name is plain ASCII.
        config.setConnectionInitSql("SET application_name = '" + applicationName.replace("'", "''") + "'");
        if (dataSource != null) {
            config.setDataSource(dataSource.get());
        } else {
            // Not setJdbcUrl: HikariCP would ask DriverManager for the driver.
            config.setDataSource(new DriverDataSource());
        }
        return new HikariDataSource(config);
    }

    /** pgjdbc's driver, loaded when first used (in the task, not in the client that builds the job). */
    private static final class PgJdbc {
        static final Driver DRIVER = new Driver();
    }

    /** A connection by URL from pgjdbc's driver itself; {@code loginTimeout} applies unless the user set one. */
    private Connection connect(Properties props, int loginTimeoutSeconds) throws SQLException {
        if (loginTimeoutSeconds > 0 && !props.containsKey("loginTimeout") && !JdbcUrls.sets(url, "loginTimeout")) {
            props.setProperty("loginTimeout", Integer.toString(loginTimeoutSeconds));
        }
        Connection c = PgJdbc.DRIVER.connect(url, props);
        if (c == null) {
            // What DriverManager would call "No suitable driver" (naming the URL with its password).
            throw new SQLException(
                    "pgjdbc does not accept the JDBC URL '" + JdbcUrls.redact(url)
                            + "'. Remedy: jdbc:postgresql://host:port/database, options after '?'",
                    "08001");
        }
        return c;
    }

    /**
     * The committer pool's connections, by URL, made like {@link #open}'s: HikariCP given a DataSource
     * never asks DriverManager. Its login timeout is the one HikariCP sets (its connection timeout).
     */
    private final class DriverDataSource implements DataSource {

        private volatile int loginTimeoutSeconds = LOGIN_TIMEOUT_SECONDS;
        private volatile PrintWriter logWriter;

        @Override
        public Connection getConnection() throws SQLException {
            Properties props = new Properties();
            props.putAll(properties);
            return connect(props, loginTimeoutSeconds);
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            Properties props = new Properties();
            props.putAll(properties);
            if (username != null) {
                props.setProperty("user", username);
            }
            if (password != null) {
                props.setProperty("password", password);
            }
            return connect(props, loginTimeoutSeconds);
        }

        @Override
        public PrintWriter getLogWriter() {
            return logWriter;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
            this.logWriter = out;
        }

        @Override
        public void setLoginTimeout(int seconds) {
            this.loginTimeoutSeconds = seconds;
        }

        @Override
        public int getLoginTimeout() {
            return loginTimeoutSeconds;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException("no java.util.logging parent logger");
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            if (type.isInstance(this)) {
                return type.cast(this);
            }
            throw new SQLException("not a wrapper for " + type.getName());
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return type.isInstance(this);
        }

        @Override
        public String toString() {
            return "pgjdbc " + JdbcUrls.redact(url);
        }
    }

    /** A driver property as the sink passes it (not the URL's), or null; never the password. */
    public String property(String key) {
        return properties == null || key.toLowerCase(java.util.Locale.ROOT).contains("password")
                ? null
                : properties.getProperty(key);
    }

    /** The URL without credentials, or "DataSource supplier", for messages. */
    public String describe() {
        return dataSource != null ? "DataSource from " + dataSource.getClass().getName() : JdbcUrls.redact(url);
    }

    @Override
    public String toString() {
        return "PostgresConnection{" + describe() + "}";
    }
}
