/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.postgres;

import org.postgresql.xa.PGXADataSource;

import javax.sql.XADataSource;

import java.sql.SQLException;
import java.util.Properties;

/** pgjdbc's XADataSource. This class alone refers to the driver, and is loaded for its URLs only. */
final class PgJdbcXaSource {

    private PgJdbcXaSource() {}

    /**
     * PGXADataSource asks java.sql.DriverManager, but from pgjdbc's own class, whose class loader has just loaded
     * and registered its driver (BaseDataSource's static initializer does): that lookup finds the driver of this
     * job's copy of pgjdbc, whatever earlier jobs registered on a session cluster. (The PostgreSQL sink's own
     * connections by URL cannot rely on that: see its PostgresConnection.) The registration is undone when the job's
     * class loader is released (the XA sink's release hooks).
     */
    static XADataSource create(String url, Properties properties, String applicationName) throws SQLException {
        PGXADataSource pg = new PGXADataSource();
        pg.setUrl(url);
        for (String key : properties.stringPropertyNames()) {
            pg.setProperty(key, properties.getProperty(key));
        }
        pg.setApplicationName(applicationName);
        return pg;
    }
}
