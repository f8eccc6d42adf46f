package dev.eosink.admin;

import dev.eosink.admin.AdminDatabase.Markers;
import dev.eosink.admin.AdminDatabase.Notice;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.CarriedNotices;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The tool's reads of a sink's marker table, the same for every database: each sink writes the same
 * columns ({@code gid}, {@code sink_id}, {@code checkpoint_id}, {@code row_count}, {@code created_at}),
 * only the table's quoting, the date arithmetic of {@link #committedAfter} and the SQLSTATE of a
 * missing table differ, and the database gives those.
 */
final class MarkerQueries {

    private final Connection connection;
    private final String table;
    private final String committedAfterSql;
    private final Predicate<SQLException> missingTable;
    private final Supplier<String> database;
    private final Credentials credentials;

    /**
     * @param table the marker table as the database's SQL names it (quoted)
     * @param committedAfterSql count, rows, lowest and highest checkpoint of a sink's ({@code ?1}) markers
     *     named after checkpoint {@code ?2} or not matching the name pattern {@code ?3}, whose epoch began after
     *     {@code ?4} (epoch milliseconds)
     * @param missingTable whether an error says that the table does not exist
     * @param database the database, as messages name it
     */
    MarkerQueries(Connection connection, String table, String committedAfterSql, Predicate<SQLException> missingTable,
            Supplier<String> database, Credentials credentials) {
        this.connection = connection;
        this.table = table;
        this.committedAfterSql = committedAfterSql;
        this.missingTable = missingTable;
        this.database = database;
        this.credentials = credentials;
    }

    List<Markers> markers(Optional<String> sinkId) throws AdminException {
        // Notices of carried writes share the table, under '<sink id>/carried': they are no sink's markers.
        String sql = "SELECT sink_id, COUNT(*), MIN(checkpoint_id), MAX(checkpoint_id), MIN(created_at), MAX(created_at) FROM "
                + table + (sinkId.isPresent() ? " WHERE sink_id = ?" : " WHERE sink_id NOT LIKE '%" + CarriedNotices.SUFFIX + "'")
                + " GROUP BY sink_id ORDER BY sink_id";
        List<Markers> markers = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            if (sinkId.isPresent()) {
                s.setString(1, sinkId.get());
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    markers.add(new Markers(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                            rs.getTimestamp(5).toInstant(), rs.getTimestamp(6).toInstant()));
                }
            }
        } catch (SQLException e) {
            throw error(e);
        }
        return markers;
    }

    /** The visible notices of carried writes of {@code sinkId}, with their rows' {@code created_at}. */
    List<Notice> notices(String sinkId) throws AdminException {
        List<Notice> notices = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement("SELECT gid, row_count, created_at FROM " + table
                + " WHERE sink_id = ? ORDER BY subtask, checkpoint_id")) {
            s.setString(1, CarriedNotices.sinkIdOf(sinkId));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Instant at = rs.getTimestamp(3).toInstant();
                    CarriedNotices.parse(rs.getString(1), rs.getLong(2)).filter(n -> n.transaction().sinkId().equals(sinkId))
                            .ifPresent(n -> notices.add(new Notice(n, at)));
                }
            }
        } catch (SQLException e) {
            throw error(e);
        }
        return notices;
    }

    OptionalLong marker(TransactionId id) throws AdminException {
        try (PreparedStatement s = connection.prepareStatement("SELECT row_count FROM " + table + " WHERE gid = ?")) {
            s.setString(1, id.toString());
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        } catch (SQLException e) {
            throw error(e);
        }
    }

    Optional<String> committedAfter(String sinkId, long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws AdminException {
        try (PreparedStatement s = connection.prepareStatement(committedAfterSql)) {
            s.setString(1, sinkId);
            s.setLong(2, checkpointId);
            s.setString(3, MarkerTable.namedBy(takenBy));
            s.setLong(4, sinceEpochMillis);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1) == 0 ? Optional.empty() : Optional.of(rs.getLong(1) + " transaction(s) (" + rs.getLong(2)
                        + " rows) of checkpoints " + rs.getLong(3) + " to " + rs.getLong(4));
            }
        } catch (SQLException e) {
            throw error(e);
        }
    }

    private AdminException error(SQLException e) {
        if (missingTable.test(e)) {
            return new AdminException("the marker table " + table + " does not exist in " + database.get()
                    + ": every eosink sink writes its marker rows there. Remedy: connect to the database the sink wrote "
                    + "to, or name its marker table with --marker-table (the sink's markerTable setting)");
        }
        return new AdminException("could not read the marker table " + table + " of " + database.get() + ": "
                + credentials.scrub(e.getMessage()), e);
    }
}
