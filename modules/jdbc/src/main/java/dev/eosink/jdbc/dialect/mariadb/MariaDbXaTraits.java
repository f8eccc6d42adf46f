/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.mariadb;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.dialect.XaDriver;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.SqlIdentifier;

import javax.sql.XADataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;

/**
 * MariaDB's and MySQL's XA (InnoDB). Measured on MariaDB 10.11 with MariaDB Connector/J 3.5:
 *
 * <ul>
 *   <li>After {@code XA PREPARE} the session can run plain statements but refuses the next {@code XA START}
 *       (XAER_RMFAIL, "global transaction is in the PREPARED state"), and while it lives, {@code XA COMMIT} of that
 *       branch from any other session fails with XAER_NOTA although {@code XA RECOVER} lists it. Once the session
 *       ends (close or connection loss), the prepared branch survives, detached, and any session (any user) can
 *       commit or roll it back. So the writer ends its connection after every prepare.
 *   <li>A session ends in steps (seen on 11.4.5; by the server's source, since 10.5): the server detaches its
 *       prepared branch (from then on another session's XA COMMIT reaches it), frees the session's user variables,
 *       locks ({@code GET_LOCK}) and prepared statements, leaves the process list, closes the socket, and only then
 *       does InnoDB let go of the branch's transaction. An XA COMMIT or XA ROLLBACK from another session in between
 *       is answered with success, does nothing, and removes the branch from XA RECOVER; InnoDB keeps it prepared,
 *       holding its locks, out of reach of every XA statement (XAER_NOTA) until the server restarts, whose recovery
 *       lists it again. So the writer's prepare returns only once the epoch session it closed has left the process
 *       list, a claim waits for the sessions it saw holding the branch lock to leave it too, and the committer and
 *       recovery prove each commit and rollback by the marker row ({@link #provesOutcomesByMarker}).
 *   <li>A prepared branch that wrote rows survives {@code kill -9} of mariadbd and commits afterwards; an empty
 *       prepared branch does not survive. Every branch of a sink writes its marker row, so none is empty.
 *   <li>{@code XA RECOVER} needs no privilege on MariaDB 10.11 (every user sees every branch); MySQL 8 needs
 *       XA_RECOVER_ADMIN.
 *   <li>Only InnoDB takes part in XA: rows in a MyISAM table are visible at once, whatever the branch does. The
 *       target and marker tables must be InnoDB ({@link #checkTransactional}).
 * </ul>
 */
final class MariaDbXaTraits implements XaTraits {

    private static final XaDriver MARIADB =
            new Driver(
                    "MariaDB Connector/J",
                    "org.mariadb.jdbc.MariaDbDataSource",
                    "org.mariadb.jdbc:mariadb-java-client") {
                @Override
                public XADataSource create(String url, Properties properties, String applicationName)
                        throws SQLException {
                    return MariaDbXaSource.create(url, properties, applicationName);
                }
            };

    private static final XaDriver MYSQL =
            new Driver("MySQL Connector/J", "com.mysql.cj.jdbc.MysqlXADataSource", "com.mysql:mysql-connector-j") {
                @Override
                public XADataSource create(String url, Properties properties, String applicationName)
                        throws SQLException {
                    return MySqlXaSource.create(url, properties, applicationName);
                }
            };

    private final MariaDbDialect dialect;

    MariaDbXaTraits(MariaDbDialect dialect) {
        this.dialect = dialect;
    }

    /**
     * MariaDB Connector/J for {@code jdbc:mariadb:}; for {@code jdbc:mysql:}, MySQL Connector/J where {@code loader}
     * finds it, else MariaDB Connector/J (which takes such URLs with {@code permitMysqlScheme}).
     */
    @Override
    public Optional<XaDriver> driver(String jdbcUrl, ClassLoader loader) {
        return Optional.of(jdbcUrl.startsWith("jdbc:mysql:") && MYSQL.present(loader) ? MYSQL : MARIADB);
    }

    /** See the class comment: a commit or a rollback in the wrong moment does nothing and drops the branch. */
    @Override
    public boolean provesOutcomesByMarker() {
        return true;
    }

    /**
     * A locking read of the marker row: it waits for the lock of a transaction that inserted the row and has not
     * ended (a branch still prepared, whether XA RECOVER lists it or not), and a second's wait tells that apart, as
     * nothing else writes a marker row. The session's lock wait timeout is restored.
     */
    @Override
    public MarkerRow markerRow(Connection c, MarkerSql markers, String gid) throws SQLException {
        Object before = Sql.single(c, "SELECT @@SESSION.innodb_lock_wait_timeout");
        Sql.execute(c, "SET SESSION innodb_lock_wait_timeout = 1");
        try {
            return Sql.single(c, markers.existsSql() + " LOCK IN SHARE MODE", gid) == null
                    ? MarkerRow.ABSENT
                    : MarkerRow.COMMITTED;
        } catch (SQLException e) {
            if (dialect.errors().isLockTimeout(e)) {
                return MarkerRow.HELD;
            }
            throw e;
        } finally {
            Sql.execute(c, "SET SESSION innodb_lock_wait_timeout = " + ((Number) before).longValue());
        }
    }

    @Override
    public void checkTransactional(Connection c, SubtaskContext context, SqlIdentifier table)
            throws SQLException, SinkException {
        Object engine = Sql.single(
                c,
                "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                        + (table.schema() == null ? "DATABASE()" : "?") + " AND TABLE_NAME = ?",
                table.schema() == null ? new Object[] {table.name()} : new Object[] {table.schema(), table.name()});
        if (engine != null && !"InnoDB".equalsIgnoreCase(engine.toString())) {
            String name = dialect.qualified(table);
            throw new MisconfigurationException(context + ": table " + name + " uses the " + engine
                    + " engine, which ignores XA transactions: its rows would be visible before their checkpoint "
                    + "completes and again after a replay. Remedy: ALTER TABLE " + name + " ENGINE=InnoDB.");
        }
    }

    @Override
    public String recoverRemedy() {
        return " Remedy: MySQL 8 lists prepared XA transactions only to users with XA_RECOVER_ADMIN: "
                + "GRANT XA_RECOVER_ADMIN ON *.* TO the sink's user.";
    }

    /**
     * A driver by its names; the subclasses' {@code create} alone refers to the driver's classes (through a class that
     * is loaded only then), so that this one loads without the driver.
     */
    private abstract static class Driver implements XaDriver {
        private final String displayName;
        private final String dataSourceClass;
        private final String artifact;

        Driver(String displayName, String dataSourceClass, String artifact) {
            this.displayName = displayName;
            this.dataSourceClass = dataSourceClass;
            this.artifact = artifact;
        }

        @Override
        public String displayName() {
            return displayName;
        }

        @Override
        public String dataSourceClass() {
            return dataSourceClass;
        }

        @Override
        public String artifact() {
            return artifact;
        }
    }
}
