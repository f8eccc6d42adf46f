/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.driver;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JdbcUrlsTest {

    @Test
    void passwordsInTheUrlAreRedacted() {
        assertThat(JdbcUrls.redact("jdbc:postgresql://h/db?user=u&password=s3cret-pw&ssl=true"))
                .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&ssl=true");
        assertThat(JdbcUrls.redact("jdbc:mariadb://h/db?sslPassword=k3y;Password=pw"))
                .isEqualTo("jdbc:mariadb://h/db?sslPassword=***;Password=***");
        assertThat(JdbcUrls.redact(null)).isNull();
    }

    /**
     * MySQL Connector/J takes a password in the user info and multi-factor passwords as password1..3; every driver
     * may name key store passwords: none may show.
     */
    @Test
    void passwordsInTheUserInfoAndUnderOtherNamesAreRedacted() {
        assertThat(JdbcUrls.redact("jdbc:mysql://sink:s3cret-pw@127.0.0.1:3306/shop"))
                .isEqualTo("jdbc:mysql://sink:***@127.0.0.1:3306/shop");
        assertThat(JdbcUrls.redact("jdbc:mysql://127.0.0.1:3306/shop?user=sink&password1=a&password3=b"))
                .isEqualTo("jdbc:mysql://127.0.0.1:3306/shop?user=sink&password1=***&password3=***");
        assertThat(JdbcUrls.redact("jdbc:mysql://h/shop?trustCertificateKeyStorePassword=k"))
                .isEqualTo("jdbc:mysql://h/shop?trustCertificateKeyStorePassword=***");
        // Host and port, IPv6 and Firebird's path are no user info.
        assertThat(JdbcUrls.redact("jdbc:postgresql://h:5432/db?user=u"))
                .isEqualTo("jdbc:postgresql://h:5432/db?user=u");
        assertThat(JdbcUrls.redact("jdbc:postgresql://[::1]:5432/db")).isEqualTo("jdbc:postgresql://[::1]:5432/db");
        assertThat(JdbcUrls.redact("jdbc:firebird://h:3050//var/db/a.fdb?encoding=UTF8"))
                .isEqualTo("jdbc:firebird://h:3050//var/db/a.fdb?encoding=UTF8");
    }

    @Test
    void aPropertyIsSetByTheQueryOnly() {
        assertThat(JdbcUrls.sets("jdbc:postgresql://h/db?ssl=true&socketTimeout=7", "socketTimeout"))
                .isTrue();
        assertThat(JdbcUrls.sets("jdbc:postgresql://h/db?tcpKeepAlive", "tcpKeepAlive"))
                .isTrue();
        assertThat(JdbcUrls.sets("jdbc:postgresql://h/db?socketTimeoutX=7", "socketTimeout"))
                .isFalse();
        assertThat(JdbcUrls.sets("jdbc:postgresql://h/socketTimeout", "socketTimeout"))
                .isFalse();
    }
}
