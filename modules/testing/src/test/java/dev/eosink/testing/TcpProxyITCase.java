/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The proxy against the real PostgreSQL, and what its faults do to pgjdbc: what a socket timeout
 * bounds and, above all, what it does not (a write into a stalled peer).
 */
class TcpProxyITCase {

    private static PostgresFixture pg;
    private static TcpProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        pg = PostgresFixture.get();
        proxy = TcpProxy.to(pg.jdbcUrl());
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    private static Connection throughProxy(int socketTimeoutSeconds) throws SQLException {
        Properties properties = pg.connectionProperties();
        properties.setProperty("socketTimeout", String.valueOf(socketTimeoutSeconds));
        return DriverManager.getConnection(proxy.jdbcUrl(pg.jdbcUrl()), properties);
    }

    @Test
    void forwardsAndCutsEveryConnection() throws Exception {
        assertThat(proxy.jdbcUrl("jdbc:postgresql://db.example:5432/shop?ssl=true"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/shop?ssl=true");
        int cutsBefore = proxy.cuts();
        try (Connection a = throughProxy(5);
                Connection b = throughProxy(5)) {
            assertThat(count(a, "SELECT 41 + 1")).isEqualTo(42);
            assertThat(proxy.openConnections()).isGreaterThanOrEqualTo(2);
            proxy.cutAll();
            assertThatThrownBy(() -> count(a, "SELECT 1"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("I/O error");
            assertThatThrownBy(() -> count(b, "SELECT 1")).isInstanceOf(SQLException.class);
        }
        assertThat(proxy.cuts() - cutsBefore).isGreaterThanOrEqualTo(2);
        try (Connection again = throughProxy(5)) {
            assertThat(count(again, "SELECT 1")).isEqualTo(1);
        }
    }

    /**
     * A stalled read ends with the socket timeout; once the stall is over, new connections work. The
     * stall lasts until the test ends it, so the read cannot have ended with the stall, however late
     * a busy machine lets the timeout fire; a read the timeout does not end fails the test after 60 s
     * instead of holding up the build.
     */
    @Test
    @Timeout(60)
    void stalledReadEndsWithTheSocketTimeout() throws Exception {
        try (Connection c = throughProxy(1)) {
            proxy.stall();
            try {
                long t0 = System.nanoTime();
                assertThatThrownBy(() -> count(c, "SELECT 1"))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("I/O error");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
                        .as("ms to the read's end")
                        .isGreaterThanOrEqualTo(900L);
                assertThat(proxy.isStalled()).isTrue();
            } finally {
                proxy.resume();
            }
        }
        try (Connection c = throughProxy(5)) {
            assertThat(count(c, "SELECT 1")).isEqualTo(1);
        }
    }

    /** A stall armed for a request catches that request, not what the client sends before it. */
    @Test
    void aStallArmedForARequestCatchesThatRequest() throws Exception {
        try (Connection c = throughProxy(1)) {
            proxy.stallWhenClientSends("SELECT 4242", Duration.ofSeconds(60));
            try {
                assertThat(count(c, "SELECT 41 + 1"))
                        .as("another request goes through")
                        .isEqualTo(42);
                assertThat(proxy.isStalled()).isFalse();
                assertThatThrownBy(() -> count(c, "SELECT 4242"))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("I/O error");
                assertThat(proxy.isStalled()).as("stalled by the armed request").isTrue();
            } finally {
                proxy.resume();
            }
        }
        try (Connection c = throughProxy(5)) {
            assertThat(count(c, "SELECT 4242"))
                    .as("armed once: the same request later goes through")
                    .isEqualTo(4242);
        }
    }

    /**
     * The trap: a socket timeout bounds reads only. COPY data written into a stalled peer blocks once
     * the buffers in between are full, and stays blocked however long the socket timeout is past; only
     * aborting the connection from another thread (pgjdbc closes the socket) ends the write.
     */
    @Test
    void stalledWriteIgnoresTheSocketTimeoutUntilTheConnectionIsAborted() throws Exception {
        String table = "proxy_copy_" + UUID.randomUUID().toString().replace("-", "");
        pg.execute("CREATE TABLE " + table + " (t text)");
        try (Connection c = throughProxy(1)) {
            c.setAutoCommit(false);
            CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + table + " FROM STDIN");
            byte[] rows = new byte[1 << 20];
            Arrays.fill(rows, (byte) 'x');
            for (int i = 1023; i < rows.length; i += 1024) {
                rows[i] = '\n';
            }
            proxy.stall();
            CompletableFuture<Long> writing = CompletableFuture.supplyAsync(() -> {
                long written = 0;
                try {
                    for (int i = 0; i < 256; i++) { // 256 MiB: far more than any buffer on the way
                        copy.writeToCopy(rows, 0, rows.length);
                        copy.flushCopy();
                        written += rows.length;
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException("write ended after " + written + " bytes", e);
                }
                return written;
            });
            try {
                Thread.sleep(4_000); // four socket timeouts
                assertThat(writing)
                        .as("COPY write into a stalled peer, 4 s after a 1 s socket timeout")
                        .isNotDone();

                long t0 = System.nanoTime();
                c.abort(Runnable::run);
                assertThatThrownBy(() -> writing.get(10, TimeUnit.SECONDS))
                        .hasRootCauseInstanceOf(java.io.IOException.class);
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
                        .as("ms from abort to the write's end")
                        .isLessThan(2_000);
            } finally {
                proxy.resume();
            }
        } finally {
            pg.execute("DROP TABLE " + table);
        }
    }

    /** The request reaches the server and is carried out; its answer never reaches the client. */
    @Test
    void cutWhenTheClientSendsARequestLosesOnlyTheAnswer() throws Exception {
        String table = "proxy_cut_" + UUID.randomUUID().toString().replace("-", "");
        pg.execute("CREATE TABLE " + table + " (id int)");
        try (Connection c = throughProxy(5)) {
            proxy.cutWhenClientSends("INSERT INTO " + table);
            int cutsBefore = proxy.cuts();
            assertThatThrownBy(() -> {
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                        }
                    })
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("I/O error");
            assertThat(proxy.cuts() - cutsBefore).isEqualTo(1);
            assertThat(pg.count("SELECT count(*) FROM " + table))
                    .as("the insert was committed")
                    .isEqualTo(1);
        } finally {
            pg.execute("DROP TABLE " + table);
        }
    }

    /**
     * A held request: the client is reset at once, the server's session stays open without it, and
     * runs it only once released, after its client is gone (what a server busy with a request does
     * when its client dies).
     */
    @Test
    void aHeldRequestReachesTheServerOnlyWhenReleasedAfterTheClientIsGone() throws Exception {
        assertThat(proxy.jdbcUrl("jdbc:mariadb://db.example:3306/shop"))
                .isEqualTo("jdbc:mariadb://127.0.0.1:" + proxy.port() + "/shop");
        String table = "proxy_hold_" + UUID.randomUUID().toString().replace("-", "");
        pg.execute("CREATE TABLE " + table + " (id int)");
        try (Connection c = throughProxy(5)) {
            String application = "proxy-hold-" + table.substring(11, 19);
            try (Statement s = c.createStatement()) {
                s.execute("SET application_name = '" + application + "'");
            }
            proxy.holdWhenClientSends("INSERT INTO " + table);
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> {
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                        }
                    })
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("I/O error");
            assertThat(Duration.ofNanos(System.nanoTime() - t0))
                    .as("the client is reset at once")
                    .isLessThan(Duration.ofSeconds(2));
            assertThat(proxy.holds()).isEqualTo(1);
            Thread.sleep(300);
            assertThat(pg.count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", application))
                    .as("the server's session outlives its client")
                    .isEqualTo(1);
            assertThat(pg.count("SELECT count(*) FROM " + table))
                    .as("nothing ran yet")
                    .isZero();
            proxy.releaseHeld();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (pg.count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", application) > 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(pg.count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", application))
                    .as("the session ended after the request")
                    .isZero();
            assertThat(pg.count("SELECT count(*) FROM " + table))
                    .as("the request ran after its client died")
                    .isEqualTo(1);
        } finally {
            pg.execute("DROP TABLE " + table);
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
