/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.mariadb;

import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.XADataSource;

import java.sql.SQLException;
import java.util.Properties;

/**
 * MariaDB Connector/J's XADataSource for a {@code jdbc:mariadb:} or {@code jdbc:mysql:} URL. This class alone refers
 * to the driver, and is loaded only when such a data source is created: the driver is optional for sinks into other
 * databases.
 */
final class MariaDbXaSource {

    private MariaDbXaSource() {}

    /**
     * Connector/J takes options in the URL only ({@link UrlOptions}). Its DataSource connects through its driver directly, never through
     * DriverManager (the driver still registers itself when loaded).
     */
    static XADataSource create(String url, Properties properties, String applicationName) throws SQLException {
        StringBuilder full = UrlOptions.append(
                url.startsWith("jdbc:mysql:") ? url + (url.contains("?") ? "&" : "?") + "permitMysqlScheme" : url,
                properties);
        String separator = full.indexOf("?") >= 0 ? "&" : "?";
        // program_name in performance_schema.session_connect_attrs. The name is [A-Za-z0-9_.-/] (sink ids are), none
        // of which the URL or the attribute list treats specially.
        full.append(separator).append("connectionAttributes=program_name:").append(applicationName);
        MariaDbDataSource maria = new MariaDbDataSource(full.toString());
        if (properties.getProperty("user") != null) {
            maria.setUser(properties.getProperty("user"));
        }
        if (properties.getProperty("password") != null) {
            maria.setPassword(properties.getProperty("password"));
        }
        return maria;
    }
}
