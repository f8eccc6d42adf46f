/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Firebird 3 server for tests: Debian's {@code firebird3.0-server} package, installed or unpacked by {@code
 * ./test} ({@link DebianPackages}), never its system service. Each
 * fixture runs {@code /usr/sbin/firebird} (SuperServer: one process, no guardian, so one SIGKILL ends the whole
 * server) on a temporary directory of its own and a free loopback port.
 *
 * <p>Firebird finds its configuration, plugins and security database through its root directory, the
 * {@code FIREBIRD} environment variable. The fixture's root is the temporary directory: its own {@code
 * firebird.conf} (port, {@code ServerMode = Super}, the security database, SRP authentication), symbolic links to
 * the package's plugins, character sets and messages, its own lock directory ({@code FIREBIRD_LOCK}, so that two
 * fixtures or a system server never share the lock tables), and its own security database, made by {@code isql-fb}
 * in embedded mode before the first start with {@link #ADMIN_USER} and {@link #SINK_USER}. Databases live in its
 * {@code data/} directory ({@link #createDatabase}).
 *
 * <p>{@link #kill()} sends SIGKILL: every attachment ends at once and nothing is flushed beyond what the server
 * wrote itself; {@link #restart()} starts the server again on the same directory and port (Firebird has no log to
 * replay: a transaction that was prepared is in limbo, one that was active is dead).
 *
 * <p>Without the package the fixture fails naming it: a test that needs Firebird never skips ({@code ./test}
 * obtains it).
 */
public final class FirebirdFixture implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FirebirdFixture.class);

    /** The Debian package the fixture runs. */
    public static final String PACKAGE = "firebird3.0-server";

    /** The server's administrator, which creates the databases and the sink's user. */
    public static final String ADMIN_USER = "SYSDBA";
    /** {@link #ADMIN_USER}'s password on the fixture's own server; a test's, not a secret. */
    public static final String ADMIN_PASSWORD = "fixture-admin-pw";
    /** A user without any privilege but its own: what a sink's user would be. */
    public static final String SINK_USER = "EOSINK_SINK";

    /** {@link #SINK_USER}'s password; a test's, not a secret. */
    public static final String SINK_PASSWORD = "sink-secret-pw";

    private static final Path SERVER = DebianPackages.file("/usr/sbin/firebird");
    private static final Path ISQL = DebianPackages.file("/usr/bin/isql-fb");
    private static final Duration START_LIMIT = Duration.ofSeconds(60);
    private static final Duration EXIT_LIMIT = Duration.ofSeconds(30);
    private static final String SERVER_ZONE = "NPT-5:45";

    private final Path root;
    private final int port;
    private final Map<String, String> environment;
    /** The running server, null while stopped or killed. */
    private Process process;

    private boolean closed;

    private FirebirdFixture(Path root, int port) {
        this.root = root;
        this.port = port;
        Map<String, String> env = new java.util.HashMap<>(DebianPackages.environment());
        env.putAll(Map.of(
                "FIREBIRD",
                root.toString(),
                "FIREBIRD_LOCK",
                root.resolve("lock").toString(),
                "FIREBIRD_TMP",
                root.resolve("tmp").toString(),
                // Firebird 3 keeps only its local time and tells no offset: the server runs 5 h 45 min ahead of UTC
                // (a POSIX zone, no tzdata needed), so that anything comparing its time with UTC shows in the tests.
                "TZ",
                SERVER_ZONE));
        this.environment = Map.copyOf(env);
    }

    /**
     * A new server of its own on a temporary directory and a free port, started and accepting connections. The
     * shutdown hook stops it if the test does not ({@link #close()}).
     */
    public static FirebirdFixture start() {
        Path packageRoot = packageRoot();
        FirebirdFixture fixture;
        try {
            Path root = Files.createTempDirectory("eosink-firebird-");
            fixture = new FirebirdFixture(root, freePort());
            fixture.configure(packageRoot);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare a Firebird directory", e);
        }
        try {
            fixture.launch();
        } catch (RuntimeException e) {
            fixture.close();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(fixture::close, "eosink-firebird-stop"));
        return fixture;
    }

    /**
     * The package's root directory ({@code /usr/lib/<arch>/firebird/3.0}, where its plugins are); fails naming
     * the package and {@code ./test} when it is missing.
     */
    private static Path packageRoot() {
        String missing = "Firebird 3 is missing: this test runs a real Firebird server. ";
        if (!Files.isExecutable(SERVER)) {
            throw new IllegalStateException(missing + DebianPackages.missing(SERVER, PACKAGE));
        }
        if (!Files.isExecutable(ISQL)) {
            throw new IllegalStateException(missing + DebianPackages.missing(ISQL, PACKAGE));
        }
        try (DirectoryStream<Path> arches = Files.newDirectoryStream(DebianPackages.file("/usr/lib"))) {
            for (Path arch : arches) {
                Path candidate = arch.resolve("firebird/3.0");
                if (Files.exists(candidate.resolve("plugins/libEngine12.so"))) {
                    return candidate;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException(missing
                + DebianPackages.missing(
                        DebianPackages.file("/usr/lib/<arch>/firebird/3.0/plugins/libEngine12.so"), PACKAGE));
    }

    /** Writes the server's root directory and creates its security database with the two users. */
    private void configure(Path packageRoot) throws IOException {
        for (String dir : List.of("lock", "tmp", "data")) {
            Files.createDirectories(root.resolve(dir));
        }
        for (String shared : List.of("plugins", "intl", "UDF", "lib", "firebird.msg", "plugins.conf")) {
            // Inside the unpacked packages, a link to /etc/... leads to their etc/, not the system's.
            Files.createSymbolicLink(
                    root.resolve(shared),
                    DebianPackages.followLinks(packageRoot.resolve(shared)).toRealPath());
        }
        Files.writeString(root.resolve("databases.conf"), "");
        Path security = root.resolve("security3.fdb");
        Files.writeString(
                root.resolve("firebird.conf"),
                String.join(
                        "\n",
                        "ServerMode = Super",
                        "RemoteServicePort = " + port,
                        "RemoteBindAddress = 127.0.0.1",
                        "SecurityDatabase = " + security,
                        "DatabaseAccess = Full",
                        "AuthServer = Srp256, Srp",
                        "UserManager = Srp",
                        // Jaybird's pure Java protocol encrypts too; Enabled lets a client without it in as well.
                        "WireCrypt = Enabled",
                        "TempDirectories = " + root.resolve("tmp"),
                        ""));
        // Embedded (no server yet): a database that is its own security database, and the users in it.
        isql(String.join(
                "\n",
                "CREATE DATABASE '" + security + "' USER '" + ADMIN_USER + "';",
                "CREATE USER " + ADMIN_USER + " PASSWORD '" + ADMIN_PASSWORD + "' USING PLUGIN Srp;",
                "CREATE USER " + SINK_USER + " PASSWORD '" + SINK_PASSWORD + "' USING PLUGIN Srp;",
                "COMMIT;",
                ""));
    }

    /** Starts the server process and waits until it accepts connections. */
    private synchronized void launch() {
        if (closed) {
            throw new IllegalStateException("Firebird closed: " + root);
        }
        if (process != null) {
            return;
        }
        ProcessBuilder builder = new ProcessBuilder(SERVER.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        root.resolve("server.log").toFile()));
        builder.environment().putAll(environment);
        long t0 = System.nanoTime();
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + SERVER, e);
        }
        awaitListening();
        LOG.info(
                "Firebird on 127.0.0.1:{} (root {}) started in {} ms, pid {}",
                port,
                root,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                process.pid());
    }

    private void awaitListening() {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Firebird exited with " + process.exitValue() + " at start; " + logs());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "Firebird did not listen on 127.0.0.1:" + port + " within " + START_LIMIT + "; " + logs());
                }
                sleep(20);
            }
        }
    }

    /**
     * SIGKILL of the server: every attachment ends at once, with no chance to roll back or detach. Returns once the
     * process is gone, even if the calling thread is interrupted meanwhile.
     */
    public synchronized void kill() {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("Firebird is not running");
        }
        process = null;
        p.destroyForcibly();
        awaitExit(p);
        LOG.info("Killed Firebird on 127.0.0.1:{} (SIGKILL of pid {})", port, p.pid());
    }

    /**
     * Freezes the server (SIGSTOP) for {@code pause}, then lets it go on (SIGCONT): it stops answering, and no
     * connection breaks.
     */
    public void stall(Duration pause) {
        Process p;
        synchronized (this) {
            p = process;
        }
        if (p == null) {
            throw new IllegalStateException("Firebird is not running");
        }
        ProcessStall.stall(p.toHandle(), pause);
    }

    /** Starts the server again on the same directory and port, after {@link #kill()} or {@link #stop()}. */
    public void restart() {
        launch();
    }

    /** Stops the server (SIGTERM: Firebird closes its databases), keeping its directory for a {@link #restart()}. */
    public synchronized void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        process = null;
        p.destroy();
        if (!awaitExit(p)) {
            p.destroyForcibly();
            awaitExit(p);
        }
    }

    /** Whether the server process is running. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Ends the server at once and deletes its directory, databases included. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            // SIGKILL: the directory goes with it, and a server that still has attachments (a test's connections
            // its JVM has not closed yet) can take the whole EXIT_LIMIT to end on SIGTERM.
            Process p = process;
            process = null;
            if (p != null) {
                p.destroyForcibly();
                awaitExit(p);
            }
        } finally {
            closed = true;
            Directories.deleteRecursively(root);
        }
    }

    /**
     * Creates database {@code name} (a file {@code data/<name>.fdb}, page size 8 KiB, UTF8, forced writes on as
     * Firebird creates it), owned by {@link #ADMIN_USER}, through the running server; returns its path.
     */
    public String createDatabase(String name) {
        if (!name.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("a database name of letters, digits, '_' and '-': " + name);
        }
        String path = databasePath(name);
        isql("CREATE DATABASE '127.0.0.1/" + port + ":" + path + "' USER '" + ADMIN_USER + "' PASSWORD '"
                + ADMIN_PASSWORD + "' PAGE_SIZE 8192 DEFAULT CHARACTER SET UTF8;\n");
        return path;
    }

    /** The file of database {@code name} on the server ({@link #createDatabase}). */
    public String databasePath(String name) {
        return root.resolve("data").resolve(name + ".fdb").toString();
    }

    /** {@code jdbc:firebird://127.0.0.1:<port>//<path>}: Jaybird's URL of database {@code name}. */
    public String url(String name) {
        return "jdbc:firebird://" + host() + ":" + port + "/" + databasePath(name);
    }

    /** The host the server listens on: the loopback address. */
    public String host() {
        return "127.0.0.1";
    }

    /** The free loopback port the server listens on. */
    public int port() {
        return port;
    }

    /** The server's root directory (configuration, security database, {@code data/}, {@code server.log}). */
    public Path root() {
        return root;
    }

    /**
     * A process of {@code isql-fb} with {@code args}, in the fixture's environment (its root directory, the unpacked
     * packages' libraries): a client of its own for a test.
     */
    public ProcessBuilder isqlProcess(String... args) {
        List<String> command = new java.util.ArrayList<>();
        command.add(ISQL.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        return builder;
    }

    /** Runs {@code isql-fb} with the fixture's environment on {@code script}; fails with its output. */
    private void isql(String script) {
        try {
            Path file = Files.createTempFile(root.resolve("tmp"), "script-", ".sql");
            Files.writeString(file, script);
            ProcessBuilder builder =
                    new ProcessBuilder(ISQL.toString(), "-q", "-b", "-i", file.toString()).redirectErrorStream(true);
            builder.environment().putAll(environment);
            Process p = builder.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("isql-fb failed on " + script.replace(ADMIN_PASSWORD, "***") + ": "
                        + new String(out, StandardCharsets.UTF_8));
            }
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + ISQL, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + ISQL, e);
        }
    }

    /** The end of the server's output and of its firebird.log, for a failure's message. */
    private String logs() {
        return "server output: " + tail(root.resolve("server.log")) + "; firebird.log: "
                + tail(root.resolve("firebird.log"));
    }

    private static String tail(Path file) {
        try {
            if (!Files.exists(file)) {
                return "(none)";
            }
            String text = Files.readString(file);
            return text.length() > 2000 ? "..." + text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Waits for the process to end, keeping an interrupt for the caller; false if it still runs after the limit. */
    private static boolean awaitExit(Process p) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + EXIT_LIMIT.toNanos();
        try {
            while (p.isAlive() && System.nanoTime() < deadline) {
                try {
                    p.waitFor(50, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return !p.isAlive();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Firebird", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public String toString() {
        return "Firebird 3 at 127.0.0.1:" + port + " (root " + root + ")";
    }
}
