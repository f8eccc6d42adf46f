/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static dev.eosink.postgres.internal.Catalog.checkSchemaUsage;
import static dev.eosink.postgres.internal.Catalog.currentRole;
import static dev.eosink.postgres.internal.Catalog.exists;
import static dev.eosink.postgres.internal.Catalog.missingPrivileges;
import static dev.eosink.postgres.internal.Catalog.oneLine;
import static dev.eosink.postgres.internal.Catalog.refusesForGood;
import static dev.eosink.postgres.internal.Catalog.schemaOf;

/**
 * The tables the sink itself writes besides the target, the marker table and the optional
 * dead-letter table: each created when missing if the sink may, and checked for the privileges the
 * sink needs. Part of the {@link Preflight}. What a restart would find the same (a table missing that the
 * sink may not create, a privilege missing, a CREATE refused for the role) is a {@link
 * MisconfigurationException}; a CREATE that failed for the moment (a lock, a lost connection) is not.
 */
final class SinkTables {

    private static final Logger LOG = LoggerFactory.getLogger(SinkTables.class);

    private final Connection c;
    private final SubtaskContext context;
    /** The builder's createMarkerTable: it covers the dead-letter table too. */
    private final boolean mayCreate;

    SinkTables(Connection c, SubtaskContext context, boolean mayCreate) {
        this.c = c;
        this.context = context;
        this.mayCreate = mayCreate;
    }

    void ensureMarkerTable(MarkerTable markers) throws SQLException, SinkException {
        String role = currentRole(c);
        checkSchemaUsage(c, context, role, markers.table(), "marker table");
        if (!exists(c, markers.table())) {
            if (!mayCreate) {
                throw new MisconfigurationException(context
                        + ": marker table "
                        + markers.table()
                        + " does not exist. Remedy: have a database administrator run "
                        + "sql/01-marker-table.sql, or allow the sink to create it (createMarkerTable(true)).");
            }
            try (Statement s = c.createStatement()) {
                s.execute(PostgresDialect.INSTANCE.markers(markers.table()).createSql());
                LOG.info("{}: created marker table {}", context, markers.table());
            } catch (SQLException e) {
                // Several subtasks may race on CREATE TABLE IF NOT EXISTS; the loser sees a
                // duplicate. Anything else is a real problem (usually privileges).
                if (!exists(c, markers.table())) {
                    throw refused(
                            e,
                            context
                                    + ": could not create marker table "
                                    + markers.table()
                                    + ": "
                                    + oneLine(e)
                                    + ". Remedy: have a database administrator run sql/01-marker-table.sql and "
                                    + "GRANT INSERT, SELECT, DELETE ON "
                                    + markers.table()
                                    + " TO "
                                    + role
                                    + ", or let the sink create it: GRANT CREATE ON SCHEMA "
                                    + SqlIdentifier.quote(schemaOf(c, markers.table()))
                                    + " TO "
                                    + role
                                    + " (see sql/02-sink-role.sql).");
                }
            }
        }
        List<String> missing = missingPrivileges(c, markers.table(), "INSERT", "SELECT", "DELETE");
        if (!missing.isEmpty()) {
            throw new MisconfigurationException(context
                    + ": the role "
                    + role
                    + " lacks "
                    + missing
                    + " on marker table "
                    + markers.table()
                    + " (INSERT writes a marker inside each transaction, SELECT proves a commit, DELETE "
                    + "prunes). Remedy: GRANT INSERT, SELECT, DELETE ON "
                    + markers.table()
                    + " TO "
                    + role
                    + " (see sql/02-sink-role.sql).");
        }
    }

    /** Like the marker table: created when missing if the sink may, and the role must be able to INSERT. */
    void ensureDeadLetterTable(SqlIdentifier table) throws SQLException, SinkException {
        String role = currentRole(c);
        checkSchemaUsage(c, context, role, table, "dead-letter table");
        if (!exists(c, table)) {
            if (!mayCreate) {
                throw new MisconfigurationException(
                        context + ": dead-letter table " + table + " does not exist. Remedy: "
                                + "create it (" + DeadLetters.createSql(table) + ") and GRANT INSERT on it to " + role
                                + ", or allow the sink to create its tables (createMarkerTable(true)).");
            }
            try (Statement s = c.createStatement()) {
                s.execute(DeadLetters.createSql(table));
                LOG.info("{}: created dead-letter table {}", context, table);
            } catch (SQLException e) {
                if (!exists(c, table)) { // another subtask may have won the race
                    throw refused(
                            e,
                            context + ": could not create dead-letter table " + table + ": "
                                    + oneLine(e) + ". Remedy: create it (" + DeadLetters.createSql(table)
                                    + ") and GRANT INSERT on it to " + role + ".");
                }
            }
        }
        if (!missingPrivileges(c, table, "INSERT").isEmpty()) {
            throw new MisconfigurationException(context + ": the role " + role + " lacks INSERT on dead-letter table "
                    + table + ". Remedy: GRANT INSERT ON " + table + " TO " + role + ".");
        }
    }

    /** A CREATE that failed: for good when the server refused it for the role, else for the moment. */
    private static SinkException refused(SQLException e, String message) {
        return refusesForGood(e) ? new MisconfigurationException(message, e) : new SinkException(message, e);
    }
}
