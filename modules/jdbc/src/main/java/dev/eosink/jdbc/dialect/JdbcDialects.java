/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.jdbc.dialect.generic.GenericDialect;

import org.apache.flink.annotation.PublicEvolving;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Finds the dialect of a database by its JDBC URL among those {@link ServiceLoader} lists in {@code
 * META-INF/services/dev.eosink.jdbc.dialect.JdbcDialect}: the built-in ones (PostgreSQL, MariaDB and MySQL) and any
 * a jar on the job's class path adds. Nothing is cached: a cache would keep a finished job's class loader alive on a
 * session cluster.
 */
@PublicEvolving
public final class JdbcDialects {

    private JdbcDialects() {}

    /** The dialect that accepts {@code jdbcUrl}, if one does. */
    public static Optional<JdbcDialect> find(String jdbcUrl) {
        for (JdbcDialect dialect : all()) {
            if (dialect.acceptsUrl(jdbcUrl)) {
                return Optional.of(dialect);
            }
        }
        return Optional.empty();
    }

    /** The dialect that accepts {@code jdbcUrl}, or the generic one, named after the URL's scheme. */
    public static JdbcDialect forUrl(String jdbcUrl) {
        return find(jdbcUrl).orElseGet(() -> new GenericDialect(scheme(jdbcUrl)));
    }

    /**
     * The dialect of the database {@code c} talks to, by the URL its metadata reports (a data source the job built
     * reports one too); the generic dialect, named after the database product, when none accepts it.
     */
    public static JdbcDialect forConnection(Connection c) throws SQLException {
        DatabaseMetaData metaData = c.getMetaData();
        String url = metaData.getURL();
        Optional<JdbcDialect> found = url == null ? Optional.empty() : find(url);
        return found.isPresent() ? found.get() : new GenericDialect(metaData.getDatabaseProductName());
    }

    /** Every dialect the context class loader and this library's own class loader find, each once, in that order. */
    public static List<JdbcDialect> all() {
        Set<Class<?>> seen = new LinkedHashSet<>();
        List<JdbcDialect> found = new ArrayList<>();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        for (ClassLoader loader : context == null
                ? List.of(JdbcDialect.class.getClassLoader())
                : List.of(context, JdbcDialect.class.getClassLoader())) {
            for (JdbcDialect dialect : ServiceLoader.load(JdbcDialect.class, loader)) {
                if (seen.add(dialect.getClass())) {
                    found.add(dialect);
                }
            }
        }
        return found;
    }

    private static String scheme(String jdbcUrl) {
        String[] parts = jdbcUrl.split(":", 3);
        return parts.length >= 2 ? parts[1] : jdbcUrl;
    }
}
