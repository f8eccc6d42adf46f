/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.driver;

import org.apache.flink.util.FlinkUserCodeClassLoaders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release hook's choice of drivers, with Flink's own user-code class loader (the child-first
 * loader inside its safety-net wrapper, as a TaskManager makes one per job) over the real pgjdbc jar
 * and this module's classes, as a job's jar has them.
 */
class JdbcDriversTest {

    private static final String[] PARENT_FIRST = {
        "java.", "javax.", "org.apache.flink.", "org.slf4j", "org.apache.logging"
    };
    private static final String URL = "jdbc:postgresql://localhost:5432/postgres";

    @BeforeAll
    static void applicationDriverIsRegistered() throws SQLException {
        // DriverManager's scan of the class path, once per JVM: pgjdbc of the application class loader.
        assertThat(DriverManager.getDriver(URL)).isInstanceOf(org.postgresql.Driver.class);
    }

    @Test
    void deregistersTheDriverThatTheJobsClassLoaderLoadedAndNoOther() throws Exception {
        URL[] jar = {location(JdbcDrivers.class), location(org.postgresql.Driver.class)};
        try (URLClassLoader job = FlinkUserCodeClassLoaders.childFirst(
                jar, JdbcDriversTest.class.getClassLoader(), PARENT_FIRST, e -> {}, true)) {
            // The job loads its own pgjdbc, whose driver registers itself.
            Class<?> jobDriver = Class.forName("org.postgresql.Driver", true, job);
            assertThat(jobDriver).isNotSameAs(org.postgresql.Driver.class);
            assertThat(jobDriver.getClassLoader()).isNotSameAs(job); // defined by the loader inside the wrapper

            // The hook runs the job's own copy of this class, as a release hook registered by the job does.
            Method deregister = Class.forName(JdbcDrivers.class.getName(), true, job)
                    .getDeclaredMethod("deregisterLoadedBy", ClassLoader.class);
            deregister.setAccessible(true);
            assertThat(deregister.invoke(null, job)).isEqualTo(List.of("org.postgresql.Driver"));
            assertThat(deregister.invoke(null, job)).as("left after the hook").isEqualTo(List.of());
        }
        assertThat(DriverManager.getDriver(URL)).isInstanceOf(org.postgresql.Driver.class);
    }

    @Test
    void neverDeregistersADriverOfTheApplicationClassPath() throws Exception {
        // A MiniCluster: the job's classes come from the application class loader, under a user-code
        // class loader without jars, or Flink hands the job the application class loader itself.
        try (URLClassLoader job = FlinkUserCodeClassLoaders.childFirst(
                new URL[0], JdbcDriversTest.class.getClassLoader(), PARENT_FIRST, e -> {}, true)) {
            assertThat(JdbcDrivers.deregisterLoadedBy(job)).isEmpty();
        }
        assertThat(JdbcDrivers.deregisterLoadedBy(ClassLoader.getSystemClassLoader()))
                .isEmpty();
        assertThat(JdbcDrivers.deregisterLoadedBy(JdbcDriversTest.class.getClassLoader()))
                .isEmpty();
        assertThat(DriverManager.getDriver(URL)).isInstanceOf(org.postgresql.Driver.class);
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
