/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each dialect names its XA driver by URL; a missing driver is named with the Maven artifact to add. */
class XaDriverTest {

    private static final ClassLoader WITHOUT_DRIVERS = ClassLoader.getPlatformClassLoader();
    private static final ClassLoader WITH_DRIVERS = XaDriverTest.class.getClassLoader();

    private static XaDriver driver(String url) {
        return JdbcDialects.forUrl(url).xa().driver(url, WITH_DRIVERS).orElseThrow();
    }

    @Test
    void eachUrlHasItsDriver() {
        assertThat(driver("jdbc:mariadb://db:3306/shop").artifact()).isEqualTo("org.mariadb.jdbc:mariadb-java-client");
        assertThat(driver("jdbc:mysql://db:3306/shop").artifact()).isEqualTo("com.mysql:mysql-connector-j");
        assertThat(driver("jdbc:postgresql://db:5432/shop").artifact()).isEqualTo("org.postgresql:postgresql");
        assertThat(JdbcDialects.forUrl("jdbc:oracle:thin:@db:1521/x")
                        .xa()
                        .driver("jdbc:oracle:thin:@db:1521/x", WITH_DRIVERS))
                .isEmpty();
    }

    @Test
    void aMissingDriverIsNamedWithItsMavenArtifact() {
        XaDriver maria = driver("jdbc:mariadb://db:3306/shop");
        XaDriver pg = driver("jdbc:postgresql://db:5432/shop");
        assertThatThrownBy(() -> maria.require(WITHOUT_DRIVERS, "jdbc:mariadb://db:3306/shop"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("jdbc:mariadb://db:3306/shop")
                .hasMessageContaining(
                        "MariaDB Connector/J (org.mariadb.jdbc.MariaDbDataSource), which is not on the " + "class path")
                .hasMessageContaining("Remedy: add the Maven artifact org.mariadb.jdbc:mariadb-java-client");
        assertThatThrownBy(() -> pg.require(WITHOUT_DRIVERS, "jdbc:postgresql://db:5432/shop"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Remedy: add the Maven artifact org.postgresql:postgresql");
        assertThatCode(() -> maria.require(WITH_DRIVERS, "jdbc:mariadb://db:3306/shop"))
                .doesNotThrowAnyException();
        assertThatCode(() -> pg.require(WITH_DRIVERS, "jdbc:postgresql://db:5432/shop"))
                .doesNotThrowAnyException();
    }
}
