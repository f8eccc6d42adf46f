/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockTimeout;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.dialect.XaDriver;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.sql.XADataSource;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A user's own dialect and its XA driver in the job's jar, the sink in Flink's
 * lib/ (the SQL connector jar, say). On a TaskManager the task's context class loader is the job's, which {@code
 * JdbcDialects} searches, so the dialect is found; its driver must then be found by the dialect's own loader, the one
 * that links it. Simulated here:
 * the job's class loader is a child of the test's, holding the dialect's service entry and the driver's class, which
 * the test's (the "lib/") loader does not see.
 */
class XaConnectorJobJarTest {

    static final String DRIVER_CLASS = "com.acme.breakdb.BreakXaDataSource";

    @Test
    void aDriverInTheJobsJarIsFoundForADialectInTheJobsJar(@TempDir Path jobJar) throws Exception {
        // The driver's class, compiled into the "job jar" only.
        Path source = jobJar.resolve("src/com/acme/breakdb/BreakXaDataSource.java");
        Files.createDirectories(source.getParent());
        Files.writeString(
                source,
                "package com.acme.breakdb;\n"
                        + "public class BreakXaDataSource {\n"
                        + "  public static javax.sql.XADataSource make() {\n"
                        + "    return (javax.sql.XADataSource) java.lang.reflect.Proxy.newProxyInstance(\n"
                        + "      BreakXaDataSource.class.getClassLoader(), new Class<?>[] {javax.sql.XADataSource.class},\n"
                        + "      (p, m, a) -> { throw new java.sql.SQLException(\"reached the driver\"); });\n"
                        + "  }\n"
                        + "}\n",
                StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Path classes = jobJar.resolve("classes");
        Files.createDirectories(classes);
        assertThat(javac.run(null, null, null, "-d", classes.toString(), source.toString()))
                .isZero();
        // The dialect's service entry, in the "job jar" only.
        Path services = classes.resolve("META-INF/services/" + JdbcDialect.class.getName());
        Files.createDirectories(services.getParent());
        Files.writeString(services, UserDialect.class.getName() + "\n", StandardCharsets.UTF_8);

        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader job = new JobClassLoader(classes)) {
            Thread.currentThread().setContextClassLoader(job);
            XaConnector connector = XaConnector.of("jdbc:breakdb://db/x", new Properties());
            Throwable opened = catchThrowable(() -> connector.open("app"));
            assertThat(opened)
                    .as("the driver, in the job's jar beside the dialect, is used (not refused as missing)")
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("reached the driver");
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
    }

    /**
     * The job's class loader: the "job jar" (the driver, the service entry) and the user's dialect, whose classes it
     * defines itself (child first, as Flink's job class loader does), so that the dialect's own loader is the job's;
     * everything else from the test's loader, "lib/".
     */
    private static final class JobClassLoader extends URLClassLoader {
        private static final String DIALECT = UserDialect.class.getName();

        JobClassLoader(Path classes) throws Exception {
            super(
                    new URL[] {
                        classes.toUri().toURL(),
                        UserDialect.class.getProtectionDomain().getCodeSource().getLocation()
                    },
                    XaConnectorJobJarTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(DIALECT)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                return loaded != null ? loaded : findClass(name);
            }
        }
    }

    /** A user's dialect, as a job's jar would carry it; its driver's classes are the job's. */
    public static final class UserDialect implements JdbcDialect {
        @Override
        public String name() {
            return "BreakDB";
        }

        @Override
        public boolean acceptsUrl(String jdbcUrl) {
            return jdbcUrl.startsWith("jdbc:breakdb:");
        }

        @Override
        public String quote(String identifier) {
            return '"' + identifier + '"';
        }

        @Override
        public MarkerSql markers(SqlIdentifier table) {
            throw new UnsupportedOperationException();
        }

        @Override
        public WriteSql writes() {
            return this::quote;
        }

        @Override
        public ErrorKinds errors() {
            return new ErrorKinds() {};
        }

        @Override
        public Optional<SessionLocks> sessionLocks() {
            return Optional.empty();
        }

        @Override
        public Optional<LockTimeout> lockTimeout() {
            return Optional.empty();
        }

        @Override
        public XaTraits xa() {
            return new XaTraits() {
                @Override
                public Optional<XaDriver> driver(String jdbcUrl, ClassLoader loader) {
                    return Optional.of(new XaDriver() {
                        @Override
                        public String displayName() {
                            return "BreakDB JDBC";
                        }

                        @Override
                        public String dataSourceClass() {
                            return DRIVER_CLASS;
                        }

                        @Override
                        public String artifact() {
                            return "com.acme:breakdb-jdbc";
                        }

                        /** In a real job jar: new BreakXaDataSource(), linked by the dialect's own loader. */
                        @Override
                        public XADataSource create(String url, Properties properties, String applicationName)
                                throws SQLException {
                            try {
                                return (XADataSource)
                                        Class.forName(DRIVER_CLASS, true, UserDialect.class.getClassLoader())
                                                .getMethod("make")
                                                .invoke(null);
                            } catch (ReflectiveOperationException e) {
                                throw new SQLException(e);
                            }
                        }
                    });
                }
            };
        }
    }
}
