/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.generic;

import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockTimeout;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.Internal;

import java.util.Optional;

/**
 * Any database no other dialect accepts (Oracle, SQL Server, DB2, ...), untested here: standard SQL for the marker
 * table and inserts, and the connection ended after every prepare, which the XA specification allows everywhere (a
 * prepared branch is independent of its connection). There is no portable session lock, so a second job with the
 * same sink id cannot be detected, and nothing covers the sessions that carry branches: a restarted writer cannot
 * tell whether a session of the writer before it (a TaskManager that died while its XA PREPARE still ran on the
 * server) may still prepare a branch after recovery listed the prepared ones. Such a branch stays prepared, holding
 * its locks, until a later start of this subtask rolls it back, or an operator does. The writer says so at start.
 * Never listed as a service: {@link dev.eosink.jdbc.dialect.JdbcDialects} falls back to it.
 */
@Internal
public final class GenericDialect implements JdbcDialect {

    private final String product;

    /** @param product the database's name as its driver reports it, for messages */
    public GenericDialect(String product) {
        this.product = String.valueOf(product);
    }

    @Override
    public String name() {
        return product;
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return false;
    }

    @Override
    public String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    @Override
    public MarkerSql markers(SqlIdentifier table) {
        String quoted = qualified(table);
        return new MarkerSql() {
            @Override
            public String table() {
                return quoted;
            }

            @Override
            public String createSql() {
                return "CREATE TABLE " + quoted
                        + " (gid VARCHAR(200) NOT NULL PRIMARY KEY, sink_id VARCHAR(100) NOT NULL,"
                        + " subtask INTEGER NOT NULL, checkpoint_id BIGINT NOT NULL, row_count BIGINT NOT NULL,"
                        + " created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)";
            }

            @Override
            public String pruneSql() {
                return "DELETE FROM " + quoted
                        + " WHERE sink_id = ? AND created_at < CURRENT_TIMESTAMP - ? * INTERVAL '1' SECOND";
            }

            @Override
            public Optional<String> committedAfterSql() {
                return Optional.empty();
            }
        };
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
        return new XaTraits() {};
    }

    @Override
    public String toString() {
        return name();
    }
}
