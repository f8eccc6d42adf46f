/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One embedded PostgreSQL server (zonky's binaries from Maven Central) on a fixed port and data directory,
 * which can be stopped, crashed and started again without losing its data.
 *
 * <p>Zonky starts a new {@link EmbeddedPostgres} object for each start: the object is one postmaster's
 * life, the data directory and the port are ours and outlive it. We never let zonky delete the data
 * directory ({@code setCleanDataDirectory(false)}); {@link #close()} does.
 *
 * <p>Running as root: PostgreSQL refuses to run as root. When the JVM is root, zonky itself
 * ({@link LinuxUtils#isUnshareAvailable()}) prefixes initdb, pg_ctl and so the postmaster with
 * {@code unshare -U}: a new, unmapped user namespace where the process' uid reads as 65534 (nobody)
 * while the kernel still checks file access as root, so the root-owned data directory is usable.
 * It needs util-linux {@code unshare} and user namespaces enabled; we check that up front to fail with
 * a clear message instead of "initdb: cannot be run as root".
 */
final class EmbeddedServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServer.class);

    /**
     * Zonky waits this long for "SELECT 1" to work, even when pg_ctl has already failed, so it is no longer than
     * pg_ctl's own default wait (60 s), which already covers a long crash recovery.
     */
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private static final Duration PROCESS_EXIT_WAIT = Duration.ofSeconds(60);

    private static final boolean WINDOWS = System.getProperty("os.name", "").startsWith("Windows");

    private final Path dataDirectory;
    /** The generated certificate and key of a server with {@code ssl=on}; null without. */
    private final Path tlsDirectory;

    private final int port;
    private final Map<String, String> settings;

    /** The running postmaster's zonky handle, null while stopped. */
    private EmbeddedPostgres postgres;

    private boolean closed;

    /**
     * @param dataDirectory an empty (or missing) directory for initdb, or one a previous server left behind
     * @param settings      server settings, passed as {@code -c key=value}; {@code ssl=on} without an
     *                      {@code ssl_cert_file} gets a self-signed certificate and key made for it
     */
    EmbeddedServer(Path dataDirectory, Map<String, String> settings) throws IOException {
        this.dataDirectory = dataDirectory;
        this.settings = new LinkedHashMap<>();
        // TCP only (JDBC never uses the socket). A Unix socket comes with /tmp/.s.PGSQL.<port>.lock holding the
        // postmaster's pid: after crash() the next start on this port would refuse to run until PID 1 has reaped
        // the killed postmaster, which takes seconds here. The quotes are for the shell that pg_ctl -o goes
        // through (not cmd.exe on Windows, hence the guard).
        if (!WINDOWS) {
            this.settings.put("unix_socket_directories", "''");
        }
        this.settings.putAll(settings);
        if ("on".equalsIgnoreCase(this.settings.get("ssl")) && !this.settings.containsKey("ssl_cert_file")) {
            // Beside the data directory, not in it: initdb wants an empty directory, and zonky runs initdb
            // and the first start in one go.
            tlsDirectory = dataDirectory.resolveSibling(dataDirectory.getFileName() + "-tls");
            SelfSignedCertificate certificate = SelfSignedCertificate.writeTo(tlsDirectory);
            this.settings.put(
                    "ssl_cert_file",
                    shellQuoted(certificate.certificateFile().toAbsolutePath().toString()));
            this.settings.put(
                    "ssl_key_file",
                    shellQuoted(certificate.keyFile().toAbsolutePath().toString()));
        } else {
            tlsDirectory = null;
        }
        this.port = freePort();
    }

    /** A value that survives the shell that pg_ctl -o goes through (see unix_socket_directories above). */
    private static String shellQuoted(String value) {
        if (WINDOWS) {
            return value;
        }
        if (value.contains("'")) {
            throw new IllegalArgumentException("a server setting with a single quote in it: " + value);
        }
        return "'" + value + "'";
    }

    int port() {
        return port;
    }

    Path dataDirectory() {
        return dataDirectory;
    }

    synchronized boolean isRunning() {
        return postgres != null;
    }

    /** Starts the server: initdb on first start, crash recovery after {@link #crash()}. */
    synchronized void start() throws IOException {
        if (closed) {
            throw new IllegalStateException("server closed: " + dataDirectory);
        }
        if (postgres != null) {
            return;
        }
        checkCanRunHere();
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory.toFile())
                .setCleanDataDirectory(false)
                // One JVM-wide hook (PostgresFixture) stops everything; zonky's own hook would add one per start.
                .setRegisterShutdownHook(false)
                .setPort(port)
                .setPGStartupWait(STARTUP_WAIT)
                // Same collation on every machine, whatever LANG says (and no dependency on generated locales).
                .setLocaleConfig("locale", "C");
        // Zonky starts the postmaster with -F (fsync off) and synchronous_commit=off; our defaults put both
        // back to PostgreSQL's defaults (a later -c wins over -F) unless the caller overrides them.
        settings.forEach(builder::setServerConfig);
        long t0 = System.nanoTime();
        postgres = builder.start();
        LOG.info(
                "Embedded PostgreSQL on port {} (data {}{}) started in {} ms{}",
                port,
                dataDirectory,
                tlsDirectory == null ? "" : ", TLS with a self-signed certificate",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                LinuxUtils.isUnshareAvailable() ? ", as uid 65534 in a user namespace (unshare -U)" : "");
    }

    /** Clean shutdown (pg_ctl stop -m fast), keeping the data directory. */
    synchronized void stop() {
        if (postgres == null) {
            return;
        }
        Optional<ProcessHandle> postmaster = postmaster();
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            postgres = null;
        }
        // Zonky's pg_ctl stop gives up (and only logs) after 5 s: make sure the old postmaster is gone
        // before anyone starts a new one on the same data directory.
        postmaster.ifPresent(p -> awaitExit(List.of(p)));
    }

    /**
     * Simulates a power loss: SIGKILL for the postmaster and all its children at once, no shutdown
     * checkpoint. The next {@link #start()} runs crash recovery.
     */
    synchronized void crash() {
        if (postgres == null) {
            throw new IllegalStateException("not running");
        }
        ProcessHandle postmaster =
                postmaster().orElseThrow(() -> new IllegalStateException("no live postmaster for " + dataDirectory));
        List<ProcessHandle> all = new ArrayList<>();
        all.add(postmaster);
        postmaster.descendants().forEach(all::add);
        // Postmaster first, so that it cannot fork replacements for the children we kill next.
        all.forEach(ProcessHandle::destroyForcibly);
        awaitExit(all);
        LOG.info("Crashed embedded PostgreSQL on port {}: killed {} processes", port, all.size());

        // Zonky's handle still holds the data directory's lock file, which only close() releases; close()
        // also runs "pg_ctl stop". Remove postmaster.pid first, so that pg_ctl finds no server instead of
        // signalling a pid that may have been reused. (Keeping it would also make the next start wait until
        // PID 1 has reaped the dead postmaster: PostgreSQL refuses to start while that pid still exists.)
        // It changes nothing that matters: crash recovery is driven by pg_control and the WAL.
        try {
            Files.deleteIfExists(dataDirectory.resolve("postmaster.pid"));
            LOG.info("Zonky may now log that it could not stop the postmaster: expected, it is already dead");
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            postgres = null;
        }
    }

    /**
     * Freezes the postmaster and all its processes (SIGSTOP) for {@code pause}, then lets them go on: the
     * server stops answering, and no connection breaks. Returns once they run again.
     */
    void stall(Duration pause) {
        ProcessHandle postmaster;
        synchronized (this) {
            postmaster = postmaster()
                    .orElseThrow(() -> new IllegalStateException("no live postmaster for " + dataDirectory));
        }
        ProcessStall.stall(postmaster, pause);
        LOG.info("Stalled embedded PostgreSQL on port {} for {} ms", port, pause.toMillis());
    }

    /** Stops the server (if running) and deletes its data directory. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            stop();
        } finally {
            closed = true;
            Directories.deleteRecursively(dataDirectory);
            if (tlsDirectory != null) {
                Directories.deleteRecursively(tlsDirectory);
            }
        }
    }

    /** The live postmaster, from the first line of postmaster.pid. */
    private Optional<ProcessHandle> postmaster() {
        try {
            List<String> lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"));
            return lines.isEmpty()
                    ? Optional.empty()
                    : ProcessHandle.of(Long.parseLong(lines.get(0).trim()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | NumberFormatException e) {
            LOG.warn("Cannot read postmaster.pid in {}", dataDirectory, e);
            return Optional.empty();
        }
    }

    /** Waits until each process has exited (see {@link #hasExited(ProcessHandle)}). */
    private static void awaitExit(List<ProcessHandle> processes) {
        long deadline = System.nanoTime() + PROCESS_EXIT_WAIT.toNanos();
        for (ProcessHandle p : processes) {
            while (!hasExited(p)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("PostgreSQL process " + p.pid() + " did not exit within "
                            + PROCESS_EXIT_WAIT.toSeconds() + " s");
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for pid " + p.pid(), e);
                }
            }
        }
    }

    /**
     * Dead, or a zombie. pg_ctl detaches the postmaster, so its parent is PID 1, and the JDK counts a zombie as
     * alive until PID 1 reaps it, which some inits (this sandbox's, for one) do only every second or two. A
     * zombie holds no port, shared memory or file any more, so it need not be waited for.
     */
    private static boolean hasExited(ProcessHandle p) {
        if (!p.isAlive()) {
            return true;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            int end = stat.lastIndexOf(')'); // the command name in parentheses may contain anything
            char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
            return state == 'Z' || state == 'X';
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException | RuntimeException e) { // no /proc (not Linux): trust the JDK
            return !p.isAlive();
        }
    }

    /** Fails early, with the reason, where PostgreSQL could only say "cannot be run as root". */
    private static void checkCanRunHere() {
        if ("root".equals(System.getProperty("user.name")) && !LinuxUtils.isUnshareAvailable()) {
            throw new IllegalStateException("The JVM runs as root and PostgreSQL refuses to run as root. Zonky's "
                    + "embedded PostgreSQL gets around that with 'unshare -U', which does not work here: install "
                    + "util-linux and allow user namespaces, run as a non-root user, start Docker, or point "
                    + "EOSINK_TEST_JDBC_URL at a server");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
