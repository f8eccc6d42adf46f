/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.mariadb;

import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockTimeout;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.Internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * MariaDB and MySQL (InnoDB), by {@code jdbc:mariadb:} and {@code jdbc:mysql:} URLs: through MariaDB Connector/J, or
 * MySQL Connector/J for {@code jdbc:mysql:} when it is on the class path ({@link MariaDbXaTraits}). Its XA is
 * server-wide, not per database: {@code XA RECOVER} and {@code GET_LOCK} see every database of the server, so a sink
 * id must be unique per server (the guard refuses a sink with the same id on another database of the server like a
 * second job).
 */
@Internal
public final class MariaDbDialect implements JdbcDialect {

    @Override
    public String name() {
        return "MariaDB";
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:");
    }

    @Override
    public String quote(String identifier) {
        return '`' + identifier.replace("`", "``") + '`';
    }

    @Override
    public MarkerSql markers(SqlIdentifier table) {
        String quoted = qualified(table);
        String index = quote(table.name() + "_sink_created");
        return new MarkerSql() {
            @Override
            public String table() {
                return quoted;
            }

            /** InnoDB explicitly: a marker in a non-transactional table would prove nothing. */
            @Override
            public String createSql() {
                return "CREATE TABLE IF NOT EXISTS " + quoted
                        + " (gid VARCHAR(200) NOT NULL PRIMARY KEY, sink_id VARCHAR(100) NOT NULL, subtask INT NOT NULL,"
                        + " checkpoint_id BIGINT NOT NULL, row_count BIGINT NOT NULL,"
                        + " created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
                        + " KEY " + index + " (sink_id, created_at)) ENGINE=InnoDB";
            }

            @Override
            public String pruneSql() {
                return "DELETE FROM " + quoted + " WHERE sink_id = ? AND created_at < NOW(6) - INTERVAL ? SECOND";
            }

            @Override
            public Optional<String> committedAfterSql() {
                return Optional.of("SELECT COUNT(*), COALESCE(SUM(row_count), 0), MIN(checkpoint_id), "
                        + "MAX(checkpoint_id) FROM " + quoted + " WHERE sink_id = ? AND (checkpoint_id > ? OR gid NOT "
                        + "LIKE ?) AND created_at > FROM_UNIXTIME(? / 1000)");
            }
        };
    }

    @Override
    public WriteSql writes() {
        return new MariaDbWriteSql(this);
    }

    @Override
    public ErrorKinds errors() {
        return new ErrorKinds() {
            /**
             * Besides SQLSTATE classes 22 and 23: errors strict mode raises for a value the column does not take whose
             * SQLSTATE is the generic HY000 (1366 incorrect value, 1292 truncated incorrect value, 1264 out of range,
             * 4025 CHECK constraint failed).
             */
            @Override
            public boolean rejectsRecord(SQLException e) {
                int code = e.getErrorCode();
                return ErrorKinds.super.rejectsRecord(e)
                        || code == 1366
                        || code == 1292
                        || code == 1264
                        || code == 4025;
            }

            /** ER_LOCK_WAIT_TIMEOUT (1205), for row and metadata locks alike. */
            @Override
            public boolean isLockTimeout(SQLException e) {
                return ErrorKinds.chain(e).stream().anyMatch(x -> x.getErrorCode() == 1205);
            }

            /** ER_NO_SUCH_TABLE (1146), SQLSTATE 42S02. */
            @Override
            public boolean isMissingTable(SQLException e) {
                return ErrorKinds.super.isMissingTable(e)
                        || ErrorKinds.chain(e).stream().anyMatch(x -> x.getErrorCode() == 1146);
            }
        };
    }

    @Override
    public Optional<SessionLocks> sessionLocks() {
        return Optional.of(new MariaDbLocks());
    }

    @Override
    public Optional<LockTimeout> lockTimeout() {
        return Optional.of(new LockTimeout() {
            /**
             * innodb_lock_wait_timeout bounds row-lock waits (a row of a prepared branch, or of another client's open
             * transaction); lock_wait_timeout bounds metadata-lock waits (ALTER TABLE, LOCK TABLES), which otherwise
             * wait a year by default. Both count whole seconds.
             */
            @Override
            public void set(Connection c, Duration timeout) throws SQLException {
                long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
                Sql.execute(
                        c,
                        "SET SESSION innodb_lock_wait_timeout = " + seconds + ", SESSION lock_wait_timeout = "
                                + seconds);
            }

            @Override
            public String setting() {
                return "innodb_lock_wait_timeout and lock_wait_timeout";
            }

            @Override
            public String holdersHint() {
                return "information_schema.INNODB_LOCK_WAITS and INNODB_TRX, SHOW PROCESSLIST, and XA RECOVER for "
                        + "prepared branches";
            }
        });
    }

    @Override
    public XaTraits xa() {
        return new MariaDbXaTraits(this);
    }

    @Override
    public String toString() {
        return name();
    }
}
