/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.mariadb;

import com.mysql.cj.jdbc.MysqlXADataSource;

import javax.sql.XADataSource;

import java.sql.SQLException;
import java.util.Properties;

/**
 * MySQL Connector/J's XADataSource for a {@code jdbc:mysql:} URL. This class alone refers to the driver, and is
 * loaded only when such a data source is created: the driver is optional.
 */
final class MySqlXaSource {

    private MySqlXaSource() {}

    /**
     * Driver properties in the URL ({@link UrlOptions}). The sessions carry the name in {@code performance_schema.session_connect_attrs}
     * ({@code program_name}).
     */
    static XADataSource create(String url, Properties properties, String applicationName) throws SQLException {
        StringBuilder full = UrlOptions.append(url, properties);
        MysqlXADataSource mysql = new MysqlXADataSource();
        mysql.setUrl(full.toString());
        if (properties.getProperty("user") != null) {
            mysql.setUser(properties.getProperty("user"));
        }
        if (properties.getProperty("password") != null) {
            mysql.setPassword(properties.getProperty("password"));
        }
        mysql.setConnectionAttributes("program_name:" + applicationName);
        return mysql;
    }
}
