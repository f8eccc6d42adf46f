/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.admin.AdminDatabase.Markers;
import dev.eosink.admin.AdminDatabase.Notice;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.jdbc.sql.MarkerTable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The tool's reads of a sink's marker table, in the SQL the database's dialect gives ({@link MarkerSql}), with
 * the tool's messages. Each reads committed rows only, passing over those of branches still prepared ({@link
 * XaTraits#pastPrepared}): the sink's branches that the tool is about to list and resolve must not fail its reads.
 */
final class MarkerQueries {

    private final Connection connection;
    private final MarkerSql sql;
    private final ErrorKinds errors;
    private final XaTraits xa;
    private final Supplier<String> database;
    private final Credentials credentials;

    /**
     * @param connection in autocommit
     * @param database the database, as messages name it
     */
    MarkerQueries(
            Connection connection,
            MarkerSql sql,
            ErrorKinds errors,
            XaTraits xa,
            Supplier<String> database,
            Credentials credentials) {
        this.connection = connection;
        this.sql = sql;
        this.errors = errors;
        this.xa = xa;
        this.database = database;
        this.credentials = credentials;
    }

    List<Markers> markers(Optional<String> sinkId) throws AdminException {
        List<Markers> markers = new ArrayList<>();
        try {
            pastPrepared(sql.bySinkSql(sinkId.isPresent()), s -> {
                if (sinkId.isPresent()) {
                    s.setString(1, sinkId.get());
                }
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        markers.add(new Markers(
                                rs.getString(1),
                                rs.getLong(2),
                                rs.getLong(3),
                                rs.getLong(4),
                                rs.getTimestamp(5).toInstant(),
                                rs.getTimestamp(6).toInstant()));
                    }
                }
                return null;
            });
        } catch (SQLException e) {
            throw error(e);
        }
        return markers;
    }

    /** The visible notices of carried writes of {@code sinkId}, with their rows' {@code created_at}. */
    List<Notice> notices(String sinkId) throws AdminException {
        List<Notice> notices = new ArrayList<>();
        try {
            pastPrepared(sql.rowsOfSql(), s -> {
                s.setString(1, CarriedNotices.sinkIdOf(sinkId));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        Instant at = rs.getTimestamp(3).toInstant();
                        CarriedNotices.parse(rs.getString(1), rs.getLong(2))
                                .filter(n -> n.transaction().sinkId().equals(sinkId))
                                .ifPresent(n -> notices.add(new Notice(n, at)));
                    }
                }
                return null;
            });
        } catch (SQLException e) {
            throw error(e);
        }
        return notices;
    }

    OptionalLong marker(TransactionId id) throws AdminException {
        try {
            return pastPrepared(sql.rowCountSql(), s -> {
                s.setString(1, id.toString());
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                }
            });
        } catch (SQLException e) {
            throw error(e);
        }
    }

    Optional<String> committedAfter(String sinkId, long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws AdminException {
        Optional<String> committedAfter = sql.committedAfterSql();
        if (committedAfter.isEmpty()) {
            throw new AdminException("the marker table " + sql.table() + " of " + database.get() + " cannot be asked "
                    + "what committed after a checkpoint: the database's dialect cannot compare a marker's time with the "
                    + "checkpoint's, so the tool cannot tell whether this "
                    + "checkpoint is the job's last. Remedy: look at its rows (list --markers: no checkpoint newer than "
                    + "this one, no marker written after it was taken), then resolve with --allow-older-checkpoint");
        }
        try {
            return pastPrepared(committedAfter.get(), s -> {
                s.setString(1, sinkId);
                s.setLong(2, checkpointId);
                s.setString(3, MarkerTable.namedBy(takenBy));
                s.setLong(4, sql.committedAfterTime(sinceEpochMillis));
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) == 0
                            ? Optional.<String>empty()
                            : Optional.of(rs.getLong(1) + " transaction(s) (" + rs.getLong(2) + " rows) of checkpoints "
                                    + rs.getLong(3) + " to " + rs.getLong(4));
                }
            });
        } catch (SQLException e) {
            throw error(e);
        }
    }

    /** A statement's work on its result. */
    @FunctionalInterface
    private interface StatementWork<T> {
        T run(PreparedStatement s) throws SQLException;
    }

    /**
     * Prepares {@code statement} and runs {@code work} on it, both inside {@link XaTraits#pastPrepared}: a driver
     * may begin the transaction in which it runs a statement when it prepares it (Jaybird does, in autocommit).
     */
    private <T> T pastPrepared(String statement, StatementWork<T> work) throws SQLException {
        return xa.pastPrepared(connection, () -> {
            try (PreparedStatement s = connection.prepareStatement(statement)) {
                return work.run(s);
            }
        });
    }

    private AdminException error(SQLException e) {
        if (errors.isMissingTable(e)) {
            return new AdminException("the marker table " + sql.table() + " does not exist in " + database.get()
                    + ": every eosink sink writes its marker rows there. Remedy: connect to the database the sink wrote "
                    + "to, or name its marker table with --marker-table (the sink's markerTable setting)");
        }
        return new AdminException(
                "could not read the marker table " + sql.table() + " of " + database.get() + ": "
                        + credentials.scrub(e.getMessage()),
                e);
    }
}
