/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockTimeout;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.Internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Firebird 3, by {@code jdbc:firebird:} and {@code jdbc:firebirdsql:} URLs, through Jaybird ({@code
 * org.firebirdsql.jdbc:jaybird}, 6.0.3 measured, on Debian's firebird3.0-server 3.0.11). What sets it apart:
 *
 * <ul>
 *   <li>No schemas: a database (file or alias) is the namespace, and a table with a schema is refused. Identifiers
 *       are at most 31 bytes; quoted ones keep their case. {@code ROW_COUNT} is a reserved word, so every column of
 *       the sink's tables is quoted, in lower case: {@code "gid"}, {@code "row_count"}.
 *   <li>No {@code CREATE TABLE IF NOT EXISTS}: DDL is an {@code EXECUTE BLOCK} that looks in {@code RDB$RELATIONS}.
 *   <li>No time zones: {@code CURRENT_TIMESTAMP} is the server's local time, and nothing gives UTC.
 *   <li>A branch prepared by a session that is gone is "in limbo", and a reader that meets one of its rows fails
 *       ({@code isc_rec_in_limbo}, 335544459) unless its transaction ignores limbo ({@link XaTraits#pastPrepared}).
 *   <li>No advisory locks: the ownership guard is a row lock ({@link FirebirdLocks}).
 *   <li>Transaction options (lock wait, limbo, record versions) are set per Jaybird data source ({@link
 *       FirebirdTpb}).
 * </ul>
 */
@Internal
public final class FirebirdDialect implements JdbcDialect {

    /** Firebird 3's longest identifier, in bytes of UTF-8 (Firebird 4 allows 63 characters). */
    static final int MAX_IDENTIFIER_BYTES = 31;

    @Override
    public String name() {
        return "Firebird";
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:firebird:") || jdbcUrl.startsWith("jdbc:firebirdsql:");
    }

    /** Double quotes, doubled inside; refuses a name longer than Firebird 3 takes, naming it. */
    @Override
    public String quote(String identifier) {
        if (identifier.getBytes(StandardCharsets.UTF_8).length > MAX_IDENTIFIER_BYTES) {
            throw new IllegalArgumentException("Firebird 3 takes identifiers of at most " + MAX_IDENTIFIER_BYTES
                    + " bytes; '" + identifier + "' is longer. Remedy: choose a shorter name.");
        }
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** The quoted name; a schema is refused: Firebird 3 has none. */
    @Override
    public String qualified(SqlIdentifier table) {
        if (table.schema() != null) {
            throw new IllegalArgumentException("Firebird 3 has no schemas, so table " + table + " cannot be reached: "
                    + "the database in the JDBC URL is the namespace. Remedy: give the table without a schema.");
        }
        return quote(table.name());
    }

    @Override
    public MarkerSql markers(SqlIdentifier table) {
        return new FirebirdMarkerSql(this, table);
    }

    @Override
    public WriteSql writes() {
        return new FirebirdWriteSql(this);
    }

    @Override
    public ErrorKinds errors() {
        return new FirebirdErrors();
    }

    @Override
    public Optional<SessionLocks> sessionLocks() {
        return Optional.of(new FirebirdLocks());
    }

    /**
     * {@code isc_tpb_lock_timeout} (whole seconds) in the READ COMMITTED transactions of the connection, XA
     * branches included. Set on a plain Jaybird connection; on a connection of an XADataSource, Jaybird sets it only
     * on the data source ({@link dev.eosink.jdbc.dialect.XaDriver#create(String, java.util.Properties, String,
     * Duration)}), so {@link LockTimeout#set} checks that the connection has it and fails naming the remedy if not.
     */
    @Override
    public Optional<LockTimeout> lockTimeout() {
        return Optional.of(new LockTimeout() {
            @Override
            public void set(Connection c, Duration timeout) throws SQLException {
                FirebirdTpb.ensure(
                        c,
                        Connection.TRANSACTION_READ_COMMITTED,
                        FirebirdTpb.branch(timeout),
                        "A lock timeout of " + FirebirdTpb.seconds(timeout) + " s",
                        "Create the XADataSource through the Firebird dialect's XaDriver with that lock timeout.");
            }

            @Override
            public String setting() {
                return "the isc_tpb_lock_timeout of the connections' READ COMMITTED transactions";
            }

            @Override
            public String holdersHint() {
                return "MON$TRANSACTIONS and MON$ATTACHMENTS (the error names the transaction holding the lock), and "
                        + "RDB$TRANSACTIONS for prepared branches (RDB$TRANSACTION_STATE = 1: in limbo)";
            }
        });
    }

    @Override
    public XaTraits xa() {
        return new FirebirdXaTraits(this);
    }

    @Override
    public String toString() {
        return name();
    }
}
