/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.eosink.xa.internal.XaDatabase.refusesForGood;

/**
 * What an XA writer checks on its guard connection before it writes anything, so that what would fail
 * at the first record or checkpoint fails at start, with a remedy: that the dialect can name the sink's
 * tables and columns ({@link XaNames}), the server's settings for XA
 * ({@link JdbcDialect#checkServer}), that the marker table exists or can be created and may be used, that
 * the target table and columns can be read, that every table the sink writes takes part in
 * transactions, that an upsert key is a unique key of the table, and that a dead-letter table exists or
 * can be created. It runs the checks in that order, and warns when the dialect cannot guard the sink's
 * ownership.
 *
 * <p>Each check refuses with a {@link MisconfigurationException}, which fails the job without restarts,
 * when the database's answer says what a restart would find again: a setting, a table that is missing,
 * unreadable or not transactional, a missing unique key, a statement the database refuses for what it
 * is or for the user ({@link XaDatabase#refusesForGood}). A question the database could not answer (the
 * connection lost, a timeout) throws the driver's {@link SQLException}, and the job restarts.
 *
 * <p>It changes nothing but the sink's own tables (created when missing, if the sink may).
 */
final class XaPreflight<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(XaPreflight.class);

    private final Connection c;
    private final SubtaskContext context;
    private final XaDatabase<IN> database;
    private final JdbcDialect dialect;
    private final JdbcSinkOptions<IN> options;
    private final String markerSchema;
    private final String markerTable;

    private XaPreflight(Connection c, SubtaskContext context, XaDatabase<IN> database, JdbcDialect dialect) {
        this.c = c;
        this.context = context;
        this.database = database;
        this.dialect = dialect;
        this.options = database.options().common();
        this.markerSchema = database.markerSchema();
        this.markerTable = database.markerTable();
    }

    /** Runs every check on {@code c} (autocommit on); a failed one throws, naming the remedy. */
    static <IN> void run(Connection c, SubtaskContext context, XaDatabase<IN> database, JdbcDialect dialect)
            throws SQLException, SinkException {
        new XaPreflight<>(c, context, database, dialect).run();
    }

    private void run() throws SQLException, SinkException {
        Optional<String> names = XaNames.problem(dialect, options);
        if (names.isPresent()) {
            throw new MisconfigurationException(context + ": " + names.get());
        }
        XaConnector connector = database.connector();
        int maxPreparedPerSubtask = options.maxPreparedPerSubtask();
        dialect.xa().checkServer(c, context, connector.describe(), maxPreparedPerSubtask);
        ensureMarkerTable();
        checkTarget();
        if (options.writeMode() instanceof WriteMode.Upserts<IN> upserts) {
            checkUpsertKey(upserts.table().table(), upserts.key());
        }
        if (options.writeMode() instanceof WriteMode.Inserts<IN> inserts
                && inserts.refused() instanceof RefusedRecords.DeadLetterTable deadLetters) {
            ensureDeadLetterTable(deadLetters.table());
        }
        if (dialect.sessionLocks().isEmpty()) {
            LOG.warn(
                    "{}: {} has no session lock this sink knows, so a second live job with sink id '{}' "
                            + "cannot be detected (never run two), and a restarted writer cannot wait for the sessions "
                            + "of the writer before it: a branch whose XA PREPARE was still running on the server when "
                            + "its task manager died may be prepared after this writer's recovery, and then stays "
                            + "prepared until a later start rolls it back. It sets no lock timeout either.",
                    context,
                    dialect.name(),
                    context.sinkId());
        } else if (!dialect.sessionLocks().get().locksBranches()) {
            LOG.warn(
                    "{}: {} has no branch lock this sink knows (its ownership guard stands), so a restarted "
                            + "writer cannot wait for the sessions of the writer before it: a branch whose XA PREPARE was "
                            + "still running on the server when its task manager died may be prepared after this writer's "
                            + "recovery listed the prepared branches, and then stays prepared (in limbo), holding its rows, "
                            + "until the next recovery of that subtask rolls it back or an operator resolves it.",
                    context,
                    dialect.name());
        }
    }

    /**
     * An upsert needs a unique key on exactly the key columns: without one, an upsert finds no row by its
     * key (MariaDB's {@code ON DUPLICATE KEY} never fires) and every record inserts a row; with a unique
     * key on other columns only, it updates whichever row that key matches. Checked at start, before any
     * record; the remedy and the warning about other unique keys are the dialect's ({@link
     * dev.eosink.jdbc.dialect.WriteSql#addUniqueKeySql}).
     */
    private void checkUpsertKey(SqlIdentifier table, List<String> upsertKey) throws SQLException, SinkException {
        if (dialect.writes().upsertSql(table, upsertKey, upsertKey, 1).isEmpty()) {
            throw new MisconfigurationException(
                    context + ": upsert(" + String.join(", ", upsertKey) + ") into " + database.target()
                            + " is not supported through XA on " + dialect.name()
                            + ". Remedy: for PostgreSQL use PostgresSink, "
                            + "which upserts; otherwise give sql(...) with your database's own upsert statement.");
        }
        List<List<String>> keys = dialect.writes().uniqueKeys(c, table);
        Set<String> wanted = lower(upsertKey);
        if (keys.stream().noneMatch(k -> lower(k).equals(wanted))) {
            throw new MisconfigurationException(context + ": " + database.target()
                    + " has no PRIMARY KEY or UNIQUE key on exactly the upsert "
                    + "key columns " + upsertKey + " (its unique keys: " + (keys.isEmpty() ? "none" : keys.toString())
                    + "), so an upsert could not find the row of a key: it would insert a second row, or update the row "
                    + "another key matches. Remedy: " + dialect.writes().addUniqueKeySql(table, upsertKey)
                    + ", or give upsert(...) the columns of an existing unique key.");
        }
        if (keys.size() > 1) {
            LOG.warn(
                    "{}: {} has more unique keys than the upsert key {}: {}. {}",
                    context,
                    database.target(),
                    upsertKey,
                    keys,
                    dialect.writes().upsertOnOtherUniqueKeys());
        }
    }

    /** MariaDB compares column names without case. */
    private static Set<String> lower(List<String> columns) {
        return columns.stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }

    private void ensureMarkerTable() throws SQLException, SinkException {
        String marker = dialect.qualified(markerSchema, markerTable);
        if (options.createTables()
                && !readable(dialect.markers(new SqlIdentifier(markerSchema, markerTable))
                        .existsSql())) {
            try (Statement s = c.createStatement()) {
                s.execute(dialect.markers(new SqlIdentifier(markerSchema, markerTable))
                        .createSql());
                LOG.info("{}: created marker table {}", context, marker);
            } catch (SQLException e) {
                // Several subtasks race on CREATE TABLE; the loser may fail, and then finds the table.
                if (!readable(dialect.markers(new SqlIdentifier(markerSchema, markerTable))
                        .existsSql())) {
                    throw refused(
                            e,
                            context + ": could not create marker table " + marker + ": "
                                    + e.getMessage()
                                    + ". Remedy: create it (see docs/xa.md, What each database needs) and grant the sink's "
                                    + "user INSERT, SELECT, DELETE on it, or grant CREATE.");
                }
            }
        }
        if (!readable(
                dialect.markers(new SqlIdentifier(markerSchema, markerTable)).existsSql())) {
            throw new MisconfigurationException(
                    context + ": marker table " + marker + " is missing or not readable by the sink's "
                            + "user. Remedy: create it (docs/xa.md, What each database needs) and GRANT INSERT, SELECT, DELETE on it, or allow "
                            + "the sink to create it (createMarkerTable(true)).");
        }
        dialect.xa().checkTransactional(c, context, new SqlIdentifier(markerSchema, markerTable));
    }

    /** The dead-letter table: created when missing and allowed to (as the marker table), InnoDB on MariaDB. */
    private void ensureDeadLetterTable(SqlIdentifier deadLetterTable) throws SQLException, SinkException {
        String schema = deadLetterTable.schema();
        String name = deadLetterTable.name();
        Optional<String> ddl = dialect.writes().deadLetterDdl(new SqlIdentifier(schema, name));
        if (ddl.isEmpty()) {
            throw new MisconfigurationException(
                    context + ": deadLetterTable(...) is not supported through XA on " + dialect.name()
                            + " (the sink knows no DDL for it there). Remedy: drop deadLetterTable(...), or use MariaDB, MySQL "
                            + "or PostgreSQL.");
        }
        String qualified = dialect.qualified(schema, name);
        if (options.createTables()
                && !readable(dialect.markers(new SqlIdentifier(schema, name)).existsSql())) {
            try (Statement s = c.createStatement()) {
                s.execute(ddl.get());
                LOG.info("{}: created dead-letter table {}", context, qualified);
            } catch (SQLException e) {
                if (!readable(dialect.markers(new SqlIdentifier(schema, name)).existsSql())) {
                    throw refused(
                            e,
                            context + ": could not create dead-letter table " + qualified + ": "
                                    + e.getMessage() + ". Remedy: create it (" + ddl.get()
                                    + ") and grant the sink's user INSERT on it, "
                                    + "or grant CREATE.");
                }
            }
        }
        if (!readable(dialect.markers(new SqlIdentifier(schema, name)).existsSql())) {
            throw new MisconfigurationException(
                    context + ": dead-letter table " + qualified + " is missing or not readable by the "
                            + "sink's user. Remedy: create it (" + ddl.get()
                            + ") and GRANT SELECT, INSERT on it, or allow the sink to "
                            + "create it (createMarkerTable(true)).");
        }
        dialect.xa().checkTransactional(c, context, new SqlIdentifier(schema, name));
    }

    /**
     * Whether a probe of the marker table runs (for a gid that never exists): false when the database
     * refuses it for good (no such table, no privilege); anything else (a lost connection) is thrown.
     */
    private boolean readable(String existsSql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(existsSql)) {
            s.setString(1, "eosink-probe");
            s.executeQuery().close();
            return true;
        } catch (SQLException e) {
            if (refusesForGood(e)) {
                return false;
            }
            throw e;
        }
    }

    /** A CREATE that failed: for good when the database refused it for the user, else for the moment. */
    private static SinkException refused(SQLException e, String message) {
        return refusesForGood(e) ? new MisconfigurationException(message, e) : new SinkException(message, e);
    }

    private void checkTarget() throws SQLException, SinkException {
        if (!(options.statement() instanceof InsertStatement.Columns<IN> insert)) {
            return; // the user's statement is checked by the database at the first record
        }
        SqlIdentifier table = insert.table();
        List<String> columns = insert.columns();
        String probe = dialect.writes().probeSql(table, columns);
        try (Statement s = c.createStatement()) {
            s.executeQuery(probe).close();
        } catch (SQLException e) {
            if (!refusesForGood(e)) {
                throw e; // not an answer about the table: the connection, a timeout
            }
            throw new MisconfigurationException(
                    context + ": " + database.target() + " with columns " + columns + " cannot be read on "
                            + database.connector().describe() + ": " + e.getMessage()
                            + ". Remedy: create the table, fix the "
                            + "table or column names given to the sink, or grant the sink's user SELECT and INSERT on it.",
                    e);
        }
        dialect.xa().checkTransactional(c, context, new SqlIdentifier(table.schema(), table.name()));
    }
}
