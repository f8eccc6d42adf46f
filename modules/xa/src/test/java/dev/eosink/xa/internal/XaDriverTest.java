package dev.eosink.xa.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The drivers are optional dependencies of eosink-xa: a URL whose driver is missing fails with the
 * Maven artifact to add. The platform class loader, which sees no driver, stands for a job without it.
 */
class XaDriverTest {

    private static final ClassLoader WITHOUT_DRIVERS = ClassLoader.getPlatformClassLoader();
    private static final ClassLoader WITH_DRIVERS = XaDriverTest.class.getClassLoader();

    @Test
    void eachUrlHasItsDriver() {
        assertThat(XaDriver.forUrl("jdbc:mariadb://db:3306/shop")).isEqualTo(XaDriver.MARIADB);
        assertThat(XaDriver.forUrl("jdbc:mysql://db:3306/shop")).isEqualTo(XaDriver.MARIADB);
        assertThat(XaDriver.forUrl("jdbc:postgresql://db:5432/shop")).isEqualTo(XaDriver.PGJDBC);
        assertThat(XaDriver.forUrl("jdbc:oracle:thin:@db:1521/x")).isNull();
    }

    @Test
    void aMissingDriverIsNamedWithItsMavenArtifact() {
        assertThatThrownBy(() -> XaDriver.MARIADB.require(WITHOUT_DRIVERS, "jdbc:mariadb://db:3306/shop"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("jdbc:mariadb://db:3306/shop")
                .hasMessageContaining("MariaDB Connector/J (org.mariadb.jdbc.MariaDbDataSource), which is not on the class path")
                .hasMessageContaining("Remedy: add the Maven artifact org.mariadb.jdbc:mariadb-java-client");
        assertThatThrownBy(() -> XaDriver.PGJDBC.require(WITHOUT_DRIVERS, "jdbc:postgresql://db:5432/shop"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Remedy: add the Maven artifact org.postgresql:postgresql");
        assertThatCode(() -> XaDriver.MARIADB.require(WITH_DRIVERS, "jdbc:mariadb://db:3306/shop")).doesNotThrowAnyException();
        assertThatCode(() -> XaDriver.PGJDBC.require(WITH_DRIVERS, "jdbc:postgresql://db:5432/shop")).doesNotThrowAnyException();
    }
}
