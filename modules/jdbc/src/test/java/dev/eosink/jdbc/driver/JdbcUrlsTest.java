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
