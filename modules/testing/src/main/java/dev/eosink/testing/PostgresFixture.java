/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The one real PostgreSQL that every test and the demo share, plus small SQL helpers for tests.
 *
 * <p>{@link #get()} starts it on first use, once per JVM, and a shutdown hook stops it. Where it comes from,
 * first match wins:
 * <ol>
 *   <li>{@code EOSINK_TEST_JDBC_URL} set: that server ({@code EOSINK_TEST_USER}, default {@code postgres};
 *       {@code EOSINK_TEST_PASSWORD}, default empty). It needs {@code max_prepared_transactions > 0}.</li>
 *   <li>a Docker engine answers: a Testcontainers {@code postgres:17} container.</li>
 *   <li>otherwise: an embedded PostgreSQL 17 (zonky's binaries from Maven Central), which needs nothing
 *       installed but a JDK; as root it runs under {@code unshare -U} (see {@link EmbeddedServer}).</li>
 * </ol>
 * {@code EOSINK_TEST_POSTGRES=docker|embedded} forces one of the last two (default {@code auto}).
 * {@code EOSINK_TEST_POSTGRES_VERSION=14} (a major, or major.minor) asks for that version: the container
 * is then {@code postgres:14}, and {@link #get()} and {@link #startNew(Map)} fail, whatever the source,
 * unless the server that started is of it. Embedded servers run the binaries on the classpath, which the
 * build picks with {@code -Dpostgres.version=14}; that build property also sets this setting.
 * {@code EOSINK_TEST_FSYNC=off} turns fsync off on servers this class starts (it is on by default, as in
 * production, because the tests are about durability). Each of these settings may also be given as a
 * JVM system property of the same name, which wins over the environment.
 *
 * <p>{@link #startNew(Map)} starts a further, private embedded server that a test may stop, crash and
 * restart, or that offers TLS. The shared one does not: pgjdbc would then encrypt every test's sessions.
 *
 * <p>Nothing here logs or prints a password.
 */
public class PostgresFixture {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresFixture.class);

    static final String ENV_JDBC_URL = "EOSINK_TEST_JDBC_URL";
    static final String ENV_USER = "EOSINK_TEST_USER";
    static final String ENV_PASSWORD = "EOSINK_TEST_PASSWORD";
    static final String ENV_BACKEND = "EOSINK_TEST_POSTGRES";
    static final String ENV_FSYNC = "EOSINK_TEST_FSYNC";
    static final String ENV_VERSION = "EOSINK_TEST_POSTGRES_VERSION";

    /** Server settings for every server this class starts; {@link #startNew(Map)} may override any. */
    public static Map<String, String> defaultServerSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("max_prepared_transactions", "64");
        settings.put("max_connections", "200");
        // PostgreSQL's own defaults, spelled out because zonky turns both off (-F, synchronous_commit=off)
        // and Testcontainers' PostgreSQLContainer turns fsync off: crash tests need real durability.
        settings.put("fsync", setting(ENV_FSYNC, "on"));
        settings.put("synchronous_commit", "on");
        return settings;
    }

    // ---------------------------------------------------------------- the JVM-wide instance

    private static final Object LOCK = new Object();
    private static PostgresFixture shared;
    /** A failed start is remembered, so that every later test fails at once with the same cause. */
    private static RuntimeException sharedFailure;
    /** Standalone servers not closed yet; the shutdown hook closes them. */
    private static final Set<StandalonePostgres> OPEN_STANDALONES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(PostgresFixture::shutdown, "eosink-postgres-fixture-stop"));
    }

    /** The shared server, started on the first call. Throws (never returns null) if none can be had. */
    public static PostgresFixture get() {
        synchronized (LOCK) {
            if (shared != null) {
                return shared;
            }
            if (sharedFailure != null) {
                throw new IllegalStateException(
                        "PostgreSQL for tests could not be started earlier in this JVM", sharedFailure);
            }
            long t0 = System.nanoTime();
            try {
                shared = startShared();
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
            LOG.info(
                    "PostgreSQL for tests ready in {} ms: {}",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                    shared.describe());
            return shared;
        }
    }

    /** Starts the shared server and checks its version; one of another version is stopped again. */
    private static PostgresFixture startShared() {
        PostgresFixture started = PostgresSources.start();
        try {
            PostgresSources.checkVersion(started);
        } catch (RuntimeException e) {
            if (started.stopper != null) {
                started.stopper.run();
            }
            throw e;
        }
        return started;
    }

    /**
     * Starts a further embedded PostgreSQL of its own, on its own port and data directory, whatever
     * {@link #get()} chose: for tests that stop, crash or restart their server. Close it when done; the
     * shutdown hook closes any left open.
     *
     * <p>{@code "ssl", "on"} makes it offer TLS with a self-signed certificate for localhost, made for it
     * (unless {@code ssl_cert_file} is given too); plain connections are still accepted, and pgjdbc's
     * default {@code sslmode=prefer} picks TLS. A test that must not fall back to plain TCP connects with
     * {@code sslmode=require}.
     *
     * @param serverSettings overrides of (or additions to) {@link #defaultServerSettings()}
     */
    public static StandalonePostgres startNew(Map<String, String> serverSettings) {
        Map<String, String> settings = defaultServerSettings();
        settings.putAll(serverSettings);
        try {
            Path dataDirectory = Files.createTempDirectory("eosink-pg-");
            StandalonePostgres instance = new StandalonePostgres(new EmbeddedServer(dataDirectory, settings));
            OPEN_STANDALONES.add(instance);
            try {
                instance.start();
                PostgresSources.checkVersion(instance);
            } catch (RuntimeException e) {
                instance.close();
                throw e;
            }
            return instance;
        } catch (IOException e) {
            throw new IllegalStateException("Could not start a standalone embedded PostgreSQL", e);
        }
    }

    static void forget(StandalonePostgres instance) {
        OPEN_STANDALONES.remove(instance);
    }

    /** Starts the shared server, prints its JDBC URL and runs until killed. */
    public static void main(String[] args) throws InterruptedException {
        PostgresFixture pg = get();
        System.out.println(pg.describe());
        System.out.println("JDBC URL: " + pg.jdbcUrl());
        System.out.println("user:     " + pg.user());
        System.out.println("Running until killed (Ctrl-C stops the server).");
        new CountDownLatch(1).await();
    }

    static String embeddedUrl(int port) {
        return "jdbc:postgresql://localhost:" + port + "/postgres";
    }

    private static void shutdown() {
        for (StandalonePostgres instance : new ArrayList<>(OPEN_STANDALONES)) {
            try {
                instance.close();
            } catch (RuntimeException e) {
                LOG.warn("Could not close {}", instance.describe(), e);
            }
        }
        PostgresFixture fixture;
        synchronized (LOCK) {
            fixture = shared;
        }
        if (fixture != null && fixture.stopper != null) {
            try {
                fixture.stopper.run();
            } catch (RuntimeException e) {
                LOG.warn("Could not stop the PostgreSQL for tests", e);
            }
        }
    }

    /**
     * A JVM system property, else an environment variable, of that name. A blank property counts as unset:
     * the build passes its properties to the tests even when they are empty.
     */
    static String setting(String name, String defaultValue) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            value = System.getenv(name);
        }
        return value == null ? defaultValue : value;
    }

    // ---------------------------------------------------------------- one server

    /** Where a server came from. */
    public enum Source {
        /** A server that {@code EOSINK_TEST_JDBC_URL} names, which the fixture neither starts nor stops. */
        EXTERNAL("external server from " + ENV_JDBC_URL),
        /** A server in a Docker container, by Testcontainers. */
        DOCKER("Testcontainers " + PostgresSources.DOCKER_IMAGE),
        /** An embedded server (zonky), started from the binaries in a jar, where no Docker engine answers. */
        EMBEDDED("embedded PostgreSQL (zonky)");

        private final String label;

        Source(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    private final Source source;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    /** Stops the server; null for an external one, which is not ours to stop. */
    private final Runnable stopper;

    private volatile String serverVersion;

    PostgresFixture(Source source, String jdbcUrl, String user, String password, Runnable stopper) {
        this.source = source;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password == null ? "" : password;
        this.stopper = stopper;
    }

    /** Where the server came from. */
    public Source source() {
        return source;
    }

    /** The server's JDBC URL, for a test's own connections and its sinks. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The user the tests and their sinks connect as. */
    public String user() {
        return user;
    }

    /** {@link #user()}'s password; empty for none. */
    public String password() {
        return password;
    }

    /** {@code user} and, if not empty, {@code password}: for {@code DriverManager} or a pool. */
    public Properties connectionProperties() {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        if (!password.isEmpty()) {
            properties.setProperty("password", password);
        }
        return properties;
    }

    /** A new connection (autocommit on); the caller closes it. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, connectionProperties());
    }

    /** Source, server version, URL (any password in it masked) and user; never the password. */
    public String describe() {
        return source + ", PostgreSQL " + serverVersion() + " at " + maskPassword(jdbcUrl) + " as " + user;
    }

    /** {@code SHOW server_version}, asked once. */
    public String serverVersion() {
        String version = serverVersion;
        if (version == null) {
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW server_version")) {
                rs.next();
                version = rs.getString(1);
                serverVersion = version;
            } catch (SQLException e) {
                return "(unreachable: " + e.getMessage() + ")";
            }
        }
        return version;
    }

    // ---------------------------------------------------------------- helpers for tests

    /** Runs a query that returns one row with one non-null number, e.g. {@code SELECT count(*) ...}. */
    public long count(String sql, Object... params) {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no row from: " + sql);
                }
                long value = rs.getLong(1);
                if (rs.wasNull()) {
                    throw new IllegalStateException("NULL from: " + sql);
                }
                if (rs.next()) {
                    throw new IllegalStateException("more than one row from: " + sql);
                }
                return value;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }

    /** Runs SQL (one or more statements) on a new autocommit connection. */
    public void execute(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }

    /**
     * Global ids of this database's prepared (in-doubt) transactions that start with the prefix, sorted.
     * The prefix is matched literally ({@code starts_with}, not LIKE, so '_' and '%' in it are no wildcards).
     */
    public List<String> preparedGids(String gidPrefix) {
        List<String> gids = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, ?) "
                                + "ORDER BY gid")) {
            ps.setString(1, gidPrefix);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    gids.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not list prepared transactions", e);
        }
        return Collections.unmodifiableList(gids);
    }

    /** ROLLBACK PREPARED for each of {@link #preparedGids(String)}: cleanup after a test. */
    public void rollbackPrepared(String gidPrefix) {
        List<String> gids = preparedGids(gidPrefix);
        if (gids.isEmpty()) {
            return;
        }
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            for (String gid : gids) {
                try {
                    s.execute("ROLLBACK PREPARED " + quoteLiteral(gid));
                } catch (SQLException e) {
                    // 42704: finished meanwhile (committed or rolled back by someone else): nothing to clean.
                    if (!"42704".equals(e.getSQLState())) {
                        throw e;
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not roll back prepared transactions " + gids, e);
        }
        LOG.debug("Rolled back {} prepared transactions starting with '{}'", gids.size(), gidPrefix);
    }

    /**
     * pg_terminate_backend for every other session whose application_name is LIKE the pattern,
     * e.g. to cut a sink's connections. Returns how many were terminated.
     */
    public int terminateBackends(String applicationNameLike) {
        // The FILTER runs only on rows that passed the WHERE; inside the WHERE the planner could call
        // pg_terminate_backend before the other conditions. The 5 s timeout (PostgreSQL 14+) waits until the
        // sessions are really gone, so the caller sees them closed.
        return (int) count(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity "
                        + "WHERE application_name LIKE ? AND pid <> pg_backend_pid()",
                applicationNameLike);
    }

    void checkConnectable() {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW max_prepared_transactions")) {
            rs.next();
            int max = Integer.parseInt(rs.getString(1));
            if (max == 0) {
                throw new IllegalStateException(
                        "The server at " + maskPassword(jdbcUrl) + " has "
                                + "max_prepared_transactions = 0: PREPARE TRANSACTION cannot work; set it (e.g. 64) and restart it");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Cannot connect to " + maskPassword(jdbcUrl) + " as " + user + " (from " + ENV_JDBC_URL + ")", e);
        }
    }

    static String quoteLiteral(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    /** Hides a password given as a URL parameter ({@code ?password=...} or {@code &password=...}). */
    static String maskPassword(String url) {
        return url.replaceAll("(?i)([?&]password=)[^&]*", "$1***");
    }

    /** Cheap (no query), unlike {@link #describe()}. */
    @Override
    public String toString() {
        return source + " at " + maskPassword(jdbcUrl);
    }
}
