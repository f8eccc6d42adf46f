/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Optional;

/**
 * What one database's SQL and behaviour look like to this project's JDBC sinks and to its admin tool, as narrow
 * roles: the marker table's SQL ({@link #markers}), the SQL of the write paths ({@link #writes}), how errors sort
 * ({@link #errors}), the session locks that guard a sink's ownership ({@link #sessionLocks}), the bound on lock waits
 * ({@link #lockTimeout}) and how its XA transactions behave ({@link #xa}). Nothing outside a dialect holds SQL text
 * for a database, except the sinks' own statement builders for the protocol they alone speak (PostgreSQL's COPY,
 * {@code PREPARE TRANSACTION}).
 *
 * <p>Dialects are found by {@link java.util.ServiceLoader} from a JDBC URL ({@link JdbcDialects#forUrl}): a jar that
 * adds a database lists its dialect in {@code META-INF/services/dev.eosink.jdbc.dialect.JdbcDialect}. A dialect is
 * stateless and thread-safe; it is created where it is used (on the TaskManagers), never serialized.
 *
 * <p>A capability a database lacks is an empty {@link Optional}, never a method that does nothing: a sink refuses at
 * start what needs it (an upsert without an upsert statement), or says at start what it cannot guard (a second job
 * with the same sink id, without session locks).
 */
@PublicEvolving
public interface JdbcDialect {

    /** The database's name for messages: "PostgreSQL", "MariaDB". */
    String name();

    /**
     * Whether this dialect speaks to the database behind {@code jdbcUrl} ({@code jdbc:mariadb://...}). Checked in
     * {@link java.util.ServiceLoader} order; no two dialects should accept the same URL.
     */
    boolean acceptsUrl(String jdbcUrl);

    /** Quotes one identifier in this database's way (double quotes, backticks), doubling embedded quotes. */
    String quote(String identifier);

    /** A possibly schema-qualified name, each part quoted. */
    default String qualified(SqlIdentifier table) {
        return table.schema() == null ? quote(table.name()) : quote(table.schema()) + "." + quote(table.name());
    }

    /** {@code name}, in {@code schema} unless it is null, quoted. */
    default String qualified(String schema, String name) {
        return qualified(new SqlIdentifier(schema, name));
    }

    /** The marker table's SQL, for the table {@code table}. */
    MarkerSql markers(SqlIdentifier table);

    /** The SQL of the write paths: inserts, upserts, deletes, the dead-letter table. */
    WriteSql writes();

    /** How this database's errors sort: a refused record, a lock timeout, a missing table. */
    ErrorKinds errors();

    /**
     * The session locks that guard a sink's ownership of a subtask index, and tell who holds them; empty where the
     * database has none (a second job with the same sink id then goes unseen, and the sink says so at start).
     */
    Optional<SessionLocks> sessionLocks();

    /** How a session bounds its waits for another transaction's locks; empty where the dialect knows no setting. */
    Optional<LockTimeout> lockTimeout();

    /** How this database's XA transactions behave, for the XA sink and the admin tool. */
    XaTraits xa();
}
