/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PgBouncer (Debian's {@code pgbouncer} package, {@code /usr/sbin/pgbouncer}, installed or unpacked by
 * {@code ./test}: {@link DebianPackages}) in front of a PostgreSQL, on a
 * free loopback port and a temporary directory of its own, in the pooling mode a test asks for. Its server login is
 * the given user and password; clients log in as that user without a password ({@code auth_type = trust}). As root it
 * runs under {@code unshare -U}, as the embedded PostgreSQL does (PgBouncer refuses to run as root).
 *
 * <p>Without the package the constructor fails, naming it: a test that needs PgBouncer must never skip
 * ({@code ./test} obtains it).
 */
public final class PgBouncer implements AutoCloseable {

    /** PgBouncer's {@code pool_mode}. */
    public enum PoolMode {
        /** A server connection per client connection, for as long as the client stays. */
        SESSION,
        /** A server connection per transaction: the next transaction of a client may run on another one. */
        TRANSACTION
    }

    private static final String BINARY = "/usr/sbin/pgbouncer";

    private final Path dir;
    private final int port;
    private final Process process;
    private final String database;

    /**
     * Starts PgBouncer in front of the server of {@code jdbcUrl} ({@code jdbc:postgresql://host:port/db}), and waits
     * until it listens.
     */
    public PgBouncer(String jdbcUrl, String user, String password, PoolMode mode)
            throws IOException, InterruptedException {
        Path binary = DebianPackages.file(BINARY);
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException(
                    "this test runs a real PgBouncer: " + DebianPackages.missing(binary, "pgbouncer"));
        }
        URI server = URI.create(jdbcUrl.substring("jdbc:".length()));
        database = server.getPath().substring(1);
        dir = Files.createTempDirectory("eosink-pgbouncer");
        port = freePort();
        Files.writeString(dir.resolve("users.txt"), "\"" + user + "\" \"\"\n");
        Files.writeString(
                dir.resolve("pgbouncer.ini"),
                String.join(
                        "\n",
                        "[databases]",
                        database + " = host=" + server.getHost() + " port=" + server.getPort() + " dbname=" + database
                                + " user=" + user
                                + (password == null || password.isEmpty() ? "" : " password=" + password),
                        "[pgbouncer]",
                        "listen_addr = 127.0.0.1",
                        "listen_port = " + port,
                        "unix_socket_dir =",
                        "auth_type = trust",
                        "auth_file = " + dir.resolve("users.txt"),
                        "pool_mode = " + mode.name().toLowerCase(java.util.Locale.ROOT),
                        "max_client_conn = 200",
                        "default_pool_size = 20",
                        // What pgjdbc sends at startup that PgBouncer does not track itself.
                        "ignore_startup_parameters = extra_float_digits,options",
                        "logfile = " + dir.resolve("pgbouncer.log"),
                        ""));
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("unshare", "-U"));
        }
        command.addAll(List.of(binary.toString(), dir.resolve("pgbouncer.ini").toString()));
        process = DebianPackages.process(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        awaitListening(Duration.ofSeconds(30));
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/<db>}, the server's database through PgBouncer. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** What PgBouncer logged so far, for a failing test's message. */
    public String log() {
        try {
            Path log = dir.resolve("pgbouncer.log");
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private void awaitListening(Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("PgBouncer exited with " + process.exitValue() + ": " + log()
                        + Files.readString(dir.resolve("stdout.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    close();
                    throw new IllegalStateException(
                            "PgBouncer did not listen on 127.0.0.1:" + port + " within " + wait + ": " + log());
                }
                Thread.sleep(50);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
