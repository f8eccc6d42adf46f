/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.io;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * pgjdbc is an optional dependency of this module: on a class path without it (a MariaDB-only job),
 * readying a connection for an abortive close must neither fail for want of pgjdbc nor load the
 * pgjdbc-specific code. This module's classes and slf4j, in a class loader of their own over the
 * platform's, stand for such a class path.
 */
class AbortiveCloseWithoutPgJdbcTest {

    @Test
    void aClassPathWithoutPgJdbcNeverLoadsThePgJdbcAccess() throws Exception {
        try (RecordingLoader job =
                new RecordingLoader(new URL[] {location(AbortiveClose.class), location(org.slf4j.Logger.class)})) {
            assertThatThrownBy(() -> Class.forName("org.postgresql.core.BaseConnection", false, job))
                    .as("pgjdbc is not on this class path")
                    .isInstanceOf(ClassNotFoundException.class);
            Method ready = Class.forName(AbortiveClose.class.getName(), true, job)
                    .getDeclaredMethod("ready", Connection.class, Object.class);
            ready.setAccessible(true);

            List<String> asked = new CopyOnWriteArrayList<>();
            Connection other = (Connection)
                    Proxy.newProxyInstance(job, new Class<?>[] {Connection.class}, (self, method, args) -> {
                        asked.add(method.getName());
                        throw new UnsupportedOperationException("another driver's connection");
                    });
            assertThat(ready.invoke(null, other, "subtask one"))
                    .as("nothing to ready")
                    .isEqualTo(false);
            assertThat(asked).as("what was asked of the connection").isEmpty();

            Connection abortsItself = (Connection) Proxy.newProxyInstance(
                    job,
                    new Class<?>[] {Connection.class, Class.forName(AbortsItself.class.getName(), false, job)},
                    (self, method, args) -> {
                        asked.add(method.getName());
                        throw new UnsupportedOperationException("another driver's connection");
                    });
            assertThat(ready.invoke(null, abortsItself, "subtask two")).isEqualTo(true);
            assertThat(asked).isEmpty();

            assertThat(job.requested)
                    .as("classes this loader was asked for")
                    .doesNotContain(PgJdbcSocketAccess.class.getName())
                    .filteredOn(name -> name.startsWith("org.postgresql."))
                    .containsOnly("org.postgresql.core.BaseConnection"); // looked up by name, not found
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    /** Loads this module's classes and slf4j itself, everything else from the platform, and records every name asked for. */
    private static final class RecordingLoader extends URLClassLoader {
        final List<String> requested = new CopyOnWriteArrayList<>();

        RecordingLoader(URL[] urls) {
            super(urls, ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            requested.add(name);
            return super.loadClass(name, resolve);
        }
    }
}
