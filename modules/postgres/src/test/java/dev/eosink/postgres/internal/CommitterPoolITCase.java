/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.TcpProxy;

import org.junit.jupiter.api.Test;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committer's pool ({@link PostgresConnection#pool}) against a server that goes away while the pool
 * opens its first connection: it opens connections again once the server answers.
 */
class CommitterPoolITCase {

    /**
     * HikariCP asks the first connection of a pool for the server's default isolation level and, when
     * that connection breaks meanwhile (SQLSTATE 08), goes on without it. With no isolation level
     * configured, it then set the level -1 on every later connection, which pgjdbc refuses: the pool
     * never opened a connection again, and the committer retried its commit until the job failed (seen
     * when DatabaseCrashITCase crashed the server just as a committer opened its pool's first
     * connection). Here the proxy cuts the first connection as the driver asks for the level.
     */
    @Test
    void aFirstConnectionLostWhileAskedItsIsolationLevelLeavesThePoolUsable() throws Exception {
        PostgresFixture db = PostgresFixture.get();
        try (TcpProxy proxy = TcpProxy.to(db.jdbcUrl());
                HikariDataSource pool = PostgresConnection.of(proxy.jdbcUrl(db.jdbcUrl()), db.connectionProperties())
                        .pool("committer-pool-test", "eosink/committer-pool-test/0/committer", 2)) {
            proxy.cutWhenClientSends("SHOW TRANSACTION ISOLATION LEVEL");
            try (Connection c = connectionOnceTheServerAnswers(pool);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(42);
            }
            assertThat(proxy.cuts())
                    .as("the first connection was cut as the driver asked its isolation level")
                    .isEqualTo(1);
        }
    }

    /**
     * A connection from the pool: the first attempt may meet the cut connection (the pool hands out
     * what it opened before it knew); each further one is a new connection.
     */
    private static Connection connectionOnceTheServerAnswers(HikariDataSource pool) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            Connection c = pool.getConnection();
            try (Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                return c;
            } catch (SQLException broken) {
                c.close();
                if (attempt == 3) {
                    throw broken;
                }
            }
        }
    }
}
