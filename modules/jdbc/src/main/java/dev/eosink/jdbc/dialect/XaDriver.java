/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import org.apache.flink.annotation.PublicEvolving;

import javax.sql.XADataSource;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/**
 * A JDBC driver's XADataSource, by URL. No driver is a dependency a user gets without asking: the job brings the one
 * its database needs, and {@link #require} fails with the Maven artifact to add before any class of the driver is
 * touched (rather than with a {@code NoClassDefFoundError}).
 */
@PublicEvolving
public interface XaDriver {

    /** "MariaDB Connector/J", for messages. */
    String displayName();

    /** The XADataSource class's name, looked up without initialising it. */
    String dataSourceClass();

    /** The driver's Maven coordinates (groupId:artifactId). */
    String artifact();

    /**
     * A data source for {@code url} with the driver properties ({@code user} and {@code password} among them, which
     * must never end in a URL a message could print), naming its sessions {@code applicationName} where the
     * database shows sessions.
     */
    XADataSource create(String url, Properties properties, String applicationName) throws SQLException;

    /**
     * {@link #create(String, Properties, String)} whose connections bound their lock waits by {@code lockTimeout},
     * for a driver that sets such a bound only on the data source, for all its connections and their XA branches
     * alike ({@link LockTimeout#set} then checks a connection rather than changes it). The default ignores the
     * bound: {@link LockTimeout#set} sets it on each connection.
     *
     * @param lockTimeout the bound, rounded up to whole seconds where the database counts seconds
     */
    default XADataSource create(String url, Properties properties, String applicationName, Duration lockTimeout)
            throws SQLException {
        return create(url, properties, applicationName);
    }

    /**
     * The driver property that bounds each read from the server, which the XA sink sets to its network timeout (in
     * milliseconds; pgjdbc's counts seconds) unless the job sets it: {@code socketTimeout} by default, as MariaDB
     * Connector/J, MySQL Connector/J and pgjdbc name it.
     */
    default String readTimeoutProperty() {
        return "socketTimeout";
    }

    /**
     * Fails unless {@code loader} finds {@link #dataSourceClass()}.
     *
     * @param redactedUrl the URL without passwords, for the message
     * @throws IllegalStateException naming the URL, the driver and the Maven artifact to add
     */
    default void require(ClassLoader loader, String redactedUrl) {
        if (!present(loader)) {
            throw new IllegalStateException("The XA sink connects to " + redactedUrl + " through " + displayName()
                    + " ("
                    + dataSourceClass() + "), which is not on the class path of its dialect: eosink-xa leaves the "
                    + "JDBC driver to the job. Remedy: add the Maven artifact " + artifact() + " where the dialect is: "
                    + "to the job's dependencies when eosink is in the job's jar, to Flink's lib/ directory when eosink "
                    + "is there (the SQL connector jar).");
        }
    }

    /** Whether {@code loader} finds {@link #dataSourceClass()}. */
    default boolean present(ClassLoader loader) {
        try {
            Class.forName(dataSourceClass(), false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
