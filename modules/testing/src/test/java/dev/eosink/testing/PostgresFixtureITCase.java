/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Needs a real PostgreSQL and fails (never skips) without one: no assumptions here, on purpose.
 */
class PostgresFixtureITCase {

    /** Unique per run, so that leftovers of an earlier run on an external server cannot interfere. */
    private static final String GID_PREFIX =
            "eosink-it-" + UUID.randomUUID().toString().substring(0, 8) + "-";

    private static PostgresFixture pg;

    @BeforeAll
    static void startFixture() {
        pg = PostgresFixture.get();
    }

    @AfterEach
    void cleanUp() {
        pg.rollbackPrepared(GID_PREFIX);
    }

    @Test
    void serverAllowsPreparedTransactions() throws SQLException {
        assertThat(pg.count("SHOW max_prepared_transactions")).isGreaterThanOrEqualTo(64);
        assertThat(pg.describe()).contains(pg.source().toString()).contains("PostgreSQL ");
        if (pg.source() != PostgresFixture.Source.EXTERNAL) {
            assertThat(pg.count("SHOW max_connections")).isEqualTo(200);
            assertThat(show(pg, "fsync")).isEqualTo(PostgresFixture.setting(PostgresFixture.ENV_FSYNC, "on"));
            assertThat(show(pg, "synchronous_commit")).isEqualTo("on");
        }
        try (Connection c = pg.connect()) {
            assertThat(c.isValid(5)).isTrue();
        }
        assertThat(PostgresFixture.get()).isSameAs(pg);
    }

    @Test
    void preparedTransactionIsCommittedFromAnotherConnection() throws SQLException {
        String table = "eosink_it_" + UUID.randomUUID().toString().replace("-", "");
        String gid = GID_PREFIX + "round-trip";
        pg.execute("CREATE TABLE " + table + " (id int PRIMARY KEY)");
        try {
            try (Connection first = pg.connect();
                    Statement s = first.createStatement()) {
                s.execute("BEGIN");
                s.execute("INSERT INTO " + table + " VALUES (1)");
                s.execute("PREPARE TRANSACTION " + PostgresFixture.quoteLiteral(gid));
            } // the prepared transaction outlives its session

            assertThat(pg.preparedGids(GID_PREFIX)).containsExactly(gid);
            assertThat(pg.count("SELECT count(*) FROM " + table)).isZero();

            try (Connection second = pg.connect();
                    Statement s = second.createStatement()) {
                s.execute("COMMIT PREPARED " + PostgresFixture.quoteLiteral(gid));
            }
            assertThat(pg.preparedGids(GID_PREFIX)).isEmpty();
            assertThat(pg.count("SELECT count(*) FROM " + table + " WHERE id = ?", 1))
                    .isEqualTo(1);
        } finally {
            pg.execute("DROP TABLE " + table);
        }
    }

    @Test
    void helpersRollBackPreparedAndTerminateBackends() throws SQLException {
        try (Connection c = pg.connect();
                Statement s = c.createStatement()) {
            for (String suffix : new String[] {"a", "b"}) {
                s.execute("BEGIN");
                s.execute("SELECT txid_current()"); // PREPARE needs no writes, but give it a real xid anyway
                s.execute("PREPARE TRANSACTION " + PostgresFixture.quoteLiteral(GID_PREFIX + suffix));
            }
        }
        assertThat(pg.preparedGids(GID_PREFIX)).containsExactly(GID_PREFIX + "a", GID_PREFIX + "b");
        // A '_' in the prefix is no wildcard: this prefix matches nothing.
        assertThat(pg.preparedGids(GID_PREFIX.replace('-', '_'))).isEmpty();
        pg.rollbackPrepared(GID_PREFIX);
        assertThat(pg.preparedGids(GID_PREFIX)).isEmpty();

        String application = "eosink-it-victim-" + UUID.randomUUID();
        Properties properties = pg.connectionProperties();
        properties.setProperty("ApplicationName", application);
        try (Connection victim = DriverManager.getConnection(pg.jdbcUrl(), properties)) {
            assertThat(pg.terminateBackends(application)).isEqualTo(1);
            assertThat(victim.isValid(5)).isFalse();
        }
        assertThat(pg.terminateBackends(application)).isZero();
    }

    @Test
    void standaloneServerKeepsPreparedTransactionsAcrossRestartAndCrash() throws SQLException {
        try (StandalonePostgres own = PostgresFixture.startNew(Map.of("max_prepared_transactions", "10"))) {
            String url = own.jdbcUrl();
            assertThat(url).isNotEqualTo(pg.jdbcUrl());
            assertThat(own.count("SHOW max_prepared_transactions")).isEqualTo(10);
            assertThat(show(own, "fsync")).isEqualTo(PostgresFixture.setting(PostgresFixture.ENV_FSYNC, "on"));

            own.execute("CREATE TABLE t (id int PRIMARY KEY)");
            prepareInsert(own, 1, "p1");

            own.restart();
            assertThat(own.jdbcUrl()).isEqualTo(url);
            assertThat(own.preparedGids("p")).containsExactly("p1");
            assertThat(own.count("SELECT count(*) FROM t")).isZero();
            own.execute("COMMIT PREPARED 'p1'");
            assertThat(own.count("SELECT count(*) FROM t")).isEqualTo(1);

            prepareInsert(own, 2, "p2");
            try (Connection open = own.connect()) {
                own.crash();
                assertThat(own.isRunning()).isFalse();
                assertThat(open.isValid(2)).isFalse();
            }
            assertThatThrownBy(() -> own.count("SELECT 1")).isInstanceOf(IllegalStateException.class);

            own.start();
            assertThat(own.preparedGids("p")).containsExactly("p2");
            own.execute("COMMIT PREPARED 'p2'");
            assertThat(own.count("SELECT count(*) FROM t")).isEqualTo(2);

            own.stop();
            own.start();
            assertThat(own.count("SELECT count(*) FROM t")).isEqualTo(2);
            assertThat(own.describe()).contains("embedded").contains(String.valueOf(own.port()));
        }
    }

    /**
     * {@code ssl=on}: a certificate and key are made for the server, which encrypts the sessions that
     * ask for it and still accepts plain ones; closing it deletes them with its data.
     */
    @Test
    void standaloneServerWithSslOnOffersTls() throws SQLException {
        Path tlsFiles;
        try (StandalonePostgres own = PostgresFixture.startNew(Map.of("ssl", "on"))) {
            tlsFiles = own.dataDirectory().resolveSibling(own.dataDirectory().getFileName() + "-tls");
            assertThat(tlsFiles.resolve("server.crt")).isRegularFile();
            assertThat(tlsFiles.resolve("server.key")).isRegularFile();
            assertThat(show(own, "ssl")).isEqualTo("on");
            assertThat(sessionTls(own, "require")).isEqualTo("TLSv1.3");
            assertThat(sessionTls(own, "disable")).isEqualTo("none");
        }
        assertThat(tlsFiles).doesNotExist();
    }

    /** The TLS version of a new session with that sslmode, or "none". */
    private static String sessionTls(PostgresFixture server, String sslmode) throws SQLException {
        Properties properties = server.connectionProperties();
        properties.setProperty("sslmode", sslmode);
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), properties);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            rs.next();
            return rs.getBoolean(1) ? rs.getString(2) : "none";
        }
    }

    private static void prepareInsert(PostgresFixture server, int id, String gid) throws SQLException {
        try (Connection c = server.connect();
                Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.execute("INSERT INTO t VALUES (" + id + ")");
            s.execute("PREPARE TRANSACTION " + PostgresFixture.quoteLiteral(gid));
        }
    }

    private static String show(PostgresFixture server, String setting) throws SQLException {
        try (Connection c = server.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
