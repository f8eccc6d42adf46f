/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.TcpProxy;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IoWatchdog} over TLS, against a real PostgreSQL with {@code ssl=on}, through {@link TcpProxy}s
 * that stall. Closing a JDK TLS socket waits for the lock that a write blocked in the stalled network
 * holds; the watchdog must still end that write within moments of its timeout, and one abort stuck
 * that way (a connection whose socket it cannot reach) must not hold up the watchdogs of other
 * connections in the JVM, which share its timer.
 */
class IoWatchdogITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** The watchdog's timeout, its check interval, and generous slack for a busy machine. */
    private static final long PROMPTLY_MILLIS = 5_000;

    private static StandalonePostgres server;
    private static TcpProxy proxy;
    private static TcpProxy otherProxy;

    private final List<Connection> opened = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = PostgresFixture.startNew(Map.of("ssl", "on"));
        server.execute("CREATE TABLE sink (t text)");
        proxy = TcpProxy.to(server.jdbcUrl());
        otherProxy = TcpProxy.to(server.jdbcUrl());
    }

    @AfterAll
    static void stop() {
        otherProxy.close();
        proxy.close();
        server.close();
    }

    @AfterEach
    void closeConnections() {
        proxy.resume();
        otherProxy.resume();
        for (Connection c : opened) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException e) {
                // already broken
            }
        }
    }

    /**
     * A COPY write stalled in the network over TLS is ended by the watchdog within moments of its
     * timeout, with the watchdog's explanation, and the abort itself finishes at once: it neither waits
     * for the blocked writer's TLS lock nor reads from the silent peer for the long socket timeout.
     */
    @Test
    void stalledTlsWriteIsAbortedPromptly() throws Exception {
        Connection c = tlsConnection(proxy);
        IoWatchdog io = new IoWatchdog(c, TIMEOUT, "subtask one");
        CopyIn copy = copyIn(c);

        proxy.stall();
        long t0 = System.nanoTime();
        CompletableFuture<Long> writing = writeUntilBlocked(io, copy);

        Throwable failure = failureOf(writing, 15_000);
        long millis = millisSince(t0);
        assertThat(failure).as("the stalled write's end").isInstanceOf(SQLException.class);
        assertThat(((SQLException) failure).getSQLState()).isEqualTo("08006");
        assertThat(failure)
                .hasMessageContaining("sending COPY data did not complete within the network timeout of 1 s")
                .hasMessageContaining("so the sink aborted the connection");
        assertThat(millis).as("ms from the stall to the write's end").isLessThan(PROMPTLY_MILLIS);
        awaitNoAbortInProgress(2_000);
    }

    /**
     * The driver's read timeout and the watchdog race on a call that waits for an answer (the end of a
     * COPY, a PREPARE): when the read times out first, the error names the call and the network
     * timeout just as the watchdog's would, not only the driver's "Read timed out".
     */
    @Test
    void aReadTimeoutIsExplainedLikeTheWatchdogsAbort() throws Exception {
        Connection c = tlsConnection(proxy, 1);
        IoWatchdog io = new IoWatchdog(c, Duration.ofSeconds(10), "subtask one");

        proxy.stall();
        long t0 = System.nanoTime();
        SQLException failure = null;
        try (Statement s = c.createStatement()) {
            io.call("reading the answer", () -> s.execute("SELECT 1"));
        } catch (SQLException e) {
            failure = e;
        }
        long millis = millisSince(t0);
        assertThat((Throwable) failure).as("the read's end").isNotNull();
        assertThat(failure.getSQLState()).isEqualTo("08006");
        assertThat((Throwable) failure)
                .hasMessageContaining("reading the answer did not complete within the network timeout: "
                        + "the driver's read timed out (its socketTimeout, by default the network timeout of 10 s")
                .hasMessageContaining("so the connection is lost");
        assertThat(millis)
                .as("ms from the stall to the read's end: the read timeout, not the watchdog's")
                .isLessThan(PROMPTLY_MILLIS);
    }

    /**
     * The first connection hides its socket from the watchdog, as some DataSources' wrappers do, so its
     * abort blocks in the TLS close for as long as the network stalls. Meanwhile a second connection's
     * write stalls too: its watchdog, on the same timer, still fires and ends it. Once the network
     * moves again, the first abort finishes and ends the first write too.
     */
    @Test
    void aWatchdogStillFiresWhileAnotherAbortIsStuck() throws Exception {
        Connection first = tlsConnection(proxy);
        IoWatchdog firstIo = new IoWatchdog(hidingItsSocket(first), TIMEOUT, "subtask one");
        CopyIn firstCopy = copyIn(first);
        Connection second = tlsConnection(otherProxy);
        IoWatchdog secondIo = new IoWatchdog(second, TIMEOUT, "subtask two");
        CopyIn secondCopy = copyIn(second);

        proxy.stall();
        CompletableFuture<Long> firstWriting = writeUntilBlocked(firstIo, firstCopy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (abortsInProgress() == 0) {
            assertThat(System.nanoTime())
                    .as("the first abort starts and blocks in the TLS close "
                            + "(if a JDK no longer blocks there, this test needs another abort that does)")
                    .isLessThan(deadline);
            Thread.sleep(20);
        }

        otherProxy.stall();
        long t0 = System.nanoTime();
        CompletableFuture<Long> secondWriting = writeUntilBlocked(secondIo, secondCopy);
        Throwable secondFailure = failureOf(secondWriting, 15_000);
        long millis = millisSince(t0);
        assertThat(secondFailure)
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("did not complete within the network timeout of 1 s");
        assertThat(millis)
                .as("ms from the second stall to the second write's end")
                .isLessThan(PROMPTLY_MILLIS);
        assertThat(firstWriting).as("the first write, its abort stuck").isNotDone();
        assertThat(abortsInProgress())
                .as("aborts in progress when the second write ended")
                .isPositive();

        proxy.resume();
        Throwable firstFailure = failureOf(firstWriting, 10_000);
        assertThat(firstFailure)
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("did not complete within the network timeout of 1 s");
        awaitNoAbortInProgress(5_000);
    }

    // ---------------------------------------------------------------- helpers

    /**
     * TLS required (a server without it fails the test instead of testing plain TCP), and a socket
     * timeout far longer than the watchdog's, as a DataSource of its own may have.
     */
    private Connection tlsConnection(TcpProxy via) throws SQLException {
        return tlsConnection(via, 30);
    }

    private Connection tlsConnection(TcpProxy via, int socketTimeoutSeconds) throws SQLException {
        Properties properties = server.connectionProperties();
        properties.setProperty("sslmode", "require");
        properties.setProperty("socketTimeout", String.valueOf(socketTimeoutSeconds));
        Connection c = DriverManager.getConnection(via.jdbcUrl(server.jdbcUrl()), properties);
        opened.add(c);
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            assertThat(rs.next() && rs.getBoolean(1))
                    .as("the session is encrypted")
                    .isTrue();
        }
        return c;
    }

    private static CopyIn copyIn(Connection c) throws SQLException {
        c.setAutoCommit(false);
        return c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY sink FROM STDIN");
    }

    /** Writes COPY data, watched, until the stalled network blocks it and the watchdog ends it. */
    private static CompletableFuture<Long> writeUntilBlocked(IoWatchdog io, CopyIn copy) {
        byte[] rows = new byte[1 << 20];
        Arrays.fill(rows, (byte) 'x');
        for (int i = 1023; i < rows.length; i += 1024) {
            rows[i] = '\n';
        }
        CompletableFuture<Long> writing = new CompletableFuture<>();
        Thread writer = new Thread(
                () -> {
                    try {
                        writing.complete(io.call("sending COPY data", () -> {
                            long written = 0;
                            for (int i = 0; i < 256; i++) { // 256 MiB: far more than every buffer on the way
                                copy.writeToCopy(rows, 0, rows.length);
                                copy.flushCopy();
                                written += rows.length;
                            }
                            return written;
                        }));
                    } catch (Throwable t) {
                        writing.completeExceptionally(t);
                    }
                },
                "stalled-writer");
        writer.setDaemon(true);
        writer.start();
        return writing;
    }

    private static Throwable failureOf(CompletableFuture<?> future, long timeoutMillis) throws Exception {
        try {
            Object value = future.get(timeoutMillis, TimeUnit.MILLISECONDS);
            throw new AssertionError("expected the write to fail, it returned " + value);
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    /** A connection as some DataSources hand it out: every call forwarded, but it unwraps to nothing. */
    private static Connection hidingItsSocket(Connection c) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (self, method, args) -> {
                    switch (method.getName()) {
                        case "isWrapperFor":
                            return false;
                        case "unwrap":
                            throw new SQLException("not a wrapper for " + args[0]);
                        default:
                            try {
                                return method.invoke(c, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                    }
                });
    }

    /** Threads inside an abort of the watchdog's, however they got there. */
    private static long abortsInProgress() {
        return Thread.getAllStackTraces().values().stream()
                .filter(stack -> Arrays.stream(stack)
                        .anyMatch(f -> f.getClassName().equals(IoWatchdog.class.getName())
                                && f.getMethodName().equals("abort")))
                .count();
    }

    private static void awaitNoAbortInProgress(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (abortsInProgress() > 0) {
            assertThat(System.nanoTime())
                    .as("an abort still in progress after %d ms", millis)
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static long millisSince(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }
}
