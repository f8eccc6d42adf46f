/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The catalog questions the writer's start-up checks ask ({@link Preflight}, {@link SinkTables}), and
 * which of the server's refusals a restart would find the same ({@link #refusesForGood}).
 */
final class Catalog {

    private Catalog() {}

    /**
     * A table in a schema the role may not use cannot be found at all (to_regclass itself fails), so
     * the schema is checked first, when it is named.
     */
    static void checkSchemaUsage(Connection c, SubtaskContext context, String role, SqlIdentifier table, String what)
            throws SQLException, SinkException {
        if (table.schema() == null) {
            return;
        }
        try (PreparedStatement s =
                c.prepareStatement("SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = ?")) {
            s.setString(1, table.schema());
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next() && !rs.getBoolean(1)) {
                    throw new MisconfigurationException(context + ": the role " + role + " lacks USAGE on schema "
                            + SqlIdentifier.quote(table.schema())
                            + ", so it cannot use " + what + " " + table + ". Remedy: GRANT USAGE ON SCHEMA "
                            + SqlIdentifier.quote(table.schema()) + " TO " + role + " (see sql/02-sink-role.sql).");
                }
            }
        }
    }

    /**
     * Whether the server refused a statement for what it is or for the role, which a restart finds the same:
     * SQLSTATE class 42 (syntax error or access rule violation: a missing table, column or privilege, an
     * upsert key without its index) and 3F000 (no such schema). Anything else (a connection lost, a timeout,
     * a lock not granted, the server shutting down) may be over by the next attempt.
     */
    static boolean refusesForGood(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("42") || state.equals("3F000"));
    }

    /** The server's message on one line (it puts Detail, Hint and Position on lines of their own). */
    static String oneLine(SQLException e) {
        return String.valueOf(e.getMessage()).replaceAll("\\s+", " ").trim();
    }

    /** The role the sink's sessions run as, quoted, for remedies the operator can paste. */
    static String currentRole(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            return SqlIdentifier.quote(rs.getString(1));
        }
    }

    /** The schema a table is or would be created in: its own, or the first usable one on the search_path. */
    static String schemaOf(Connection c, SqlIdentifier table) throws SQLException {
        if (table.schema() != null) {
            return table.schema();
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(current_schema(), 'public')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    static boolean exists(Connection c, SqlIdentifier table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, table.sql());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    static List<String> missingPrivileges(Connection c, SqlIdentifier table, String... privileges) throws SQLException {
        List<String> missing = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT has_table_privilege(to_regclass(?), ?)")) {
            for (String privilege : privileges) {
                s.setString(1, table.sql());
                s.setString(2, privilege);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        missing.add(privilege);
                    }
                }
            }
        }
        return missing;
    }
}
