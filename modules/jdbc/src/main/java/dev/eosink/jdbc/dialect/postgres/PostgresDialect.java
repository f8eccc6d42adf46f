/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.postgres;

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
 * PostgreSQL, for the PostgreSQL sink (its marker table) and for the XA sink through pgjdbc's {@code
 * PGXADataSource} ({@link PostgresXaTraits}). Both sinks' marker tables look alike: the same DDL as
 * sql/01-marker-table.sql ({@link PostgresMarkerSql}).
 */
@Internal
public final class PostgresDialect implements JdbcDialect {

    /** The dialect, for the PostgreSQL sink, which speaks to PostgreSQL alone (a dialect is stateless). */
    public static final PostgresDialect INSTANCE = new PostgresDialect();

    @Override
    public String name() {
        return "PostgreSQL";
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    @Override
    public String quote(String identifier) {
        return SqlIdentifier.quote(identifier);
    }

    @Override
    public MarkerSql markers(SqlIdentifier table) {
        return new PostgresMarkerSql(table);
    }

    @Override
    public WriteSql writes() {
        return new WriteSql() {
            @Override
            public String quote(String identifier) {
                return SqlIdentifier.quote(identifier);
            }

            @Override
            public Optional<String> deadLetterDdl(SqlIdentifier table) {
                return Optional.of("CREATE TABLE IF NOT EXISTS " + table.sql()
                        + " (gid text NOT NULL, sink_id text NOT NULL, subtask integer NOT NULL,"
                        + " checkpoint_id bigint NOT NULL, position bigint NOT NULL, record text NOT NULL,"
                        + " sqlstate text, error text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
            }
        };
    }

    @Override
    public ErrorKinds errors() {
        return new ErrorKinds() {
            /** lock_not_available (55P03): what lock_timeout raises. */
            @Override
            public boolean isLockTimeout(SQLException e) {
                return ErrorKinds.chain(e).stream().anyMatch(x -> "55P03".equals(x.getSQLState()));
            }
        };
    }

    @Override
    public Optional<SessionLocks> sessionLocks() {
        return Optional.of(new PostgresLocks());
    }

    @Override
    public Optional<LockTimeout> lockTimeout() {
        return Optional.of(new LockTimeout() {
            @Override
            public void set(Connection c, Duration timeout) throws SQLException {
                Sql.execute(c, "SET lock_timeout = '" + Math.max(1, timeout.toMillis()) + "ms'");
            }

            @Override
            public String setting() {
                return "lock_timeout";
            }

            @Override
            public String holdersHint() {
                return "pg_locks joined with pg_stat_activity (pg_blocking_pids), and pg_prepared_xacts for prepared "
                        + "branches";
            }
        });
    }

    @Override
    public XaTraits xa() {
        return new PostgresXaTraits();
    }

    @Override
    public String toString() {
        return name();
    }
}
