package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.PostgresOwnership;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * PostgreSQL's own two-phase commit, as the PostgreSQL sink uses it: prepared transactions from
 * {@code pg_prepared_xacts} (gid {@code eos1/<sink>/<subtask>/<checkpoint>/<run>}, with the time of
 * the prepare), {@code COMMIT PREPARED} and {@code ROLLBACK PREPARED} (which must run in the database
 * the transaction was prepared in), and the ownership guard as granted advisory locks in
 * {@code pg_locks} of this database.
 */
final class PostgresAdminDatabase implements AdminDatabase {

    private final Credentials credentials;
    private final Connection connection;
    private final SqlIdentifier markerTable;
    private final String databaseName;
    private final String version;

    PostgresAdminDatabase(Credentials credentials, String markerTable) throws AdminException {
        this.credentials = credentials;
        this.markerTable = MarkerTableName.parse(markerTable);
        this.connection = Connections.open(credentials);
        try {
            connection.setAutoCommit(true); // COMMIT PREPARED cannot run inside a transaction block
            try (Statement s = connection.createStatement();
                    ResultSet rs = s.executeQuery("SELECT current_database(), current_setting('server_version')")) {
                rs.next();
                databaseName = rs.getString(1);
                version = rs.getString(2);
            }
        } catch (SQLException e) {
            close();
            throw Connections.failed(credentials, e);
        }
    }

    @Override
    public String describe() {
        return "PostgreSQL " + version + " at " + JdbcUrls.redact(credentials.url()) + " (database " + databaseName + ")";
    }

    @Override
    public String ageSource() {
        return "age: since pg_prepared_xacts.prepared";
    }

    @Override
    public List<Prepared> prepared(Optional<String> sinkId) throws AdminException {
        String prefix = sinkId.map(TransactionId::sinkPrefix).orElse(TransactionId.PREFIX + "/");
        List<Prepared> found = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT gid, prepared, database FROM pg_prepared_xacts WHERE starts_with(gid, ?) ORDER BY prepared, gid")) {
            s.setString(1, prefix);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String gid = rs.getString(1);
                    Timestamp at = rs.getTimestamp(2);
                    String database = rs.getString(3);
                    TransactionId.parse(gid).ifPresent(id -> found.add(
                            new Prepared(id, Optional.ofNullable(at).map(Timestamp::toInstant), database, gid)));
                }
            }
        } catch (SQLException e) {
            throw new AdminException("could not list the prepared transactions (pg_prepared_xacts) of " + describe()
                    + ": " + credentials.scrub(e.getMessage()), e);
        }
        return found;
    }

    @Override
    public List<Markers> markers(Optional<String> sinkId) throws AdminException {
        String sql = "SELECT sink_id, count(*), min(checkpoint_id), max(checkpoint_id), min(created_at), max(created_at) FROM "
                + markerTable.sql() + (sinkId.isPresent() ? " WHERE sink_id = ?" : "") + " GROUP BY sink_id ORDER BY sink_id";
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
            throw markerTableError(e);
        }
        return markers;
    }

    @Override
    public OptionalLong marker(TransactionId id) throws AdminException {
        try (PreparedStatement s = connection.prepareStatement("SELECT row_count FROM " + markerTable.sql() + " WHERE gid = ?")) {
            s.setString(1, id.toString());
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        } catch (SQLException e) {
            throw markerTableError(e);
        }
    }

    private AdminException markerTableError(SQLException e) {
        if ("42P01".equals(e.getSQLState())) {
            return new AdminException("the marker table " + markerTable.sql() + " does not exist in " + describe()
                    + ": every eosink sink writes its marker rows there. Remedy: connect to the database the sink wrote "
                    + "to, or name its marker table with --marker-table (the sink's markerTable setting)");
        }
        return new AdminException("could not read the marker table " + markerTable.sql() + " of " + describe() + ": "
                + credentials.scrub(e.getMessage()), e);
    }

    @Override
    public Optional<String> committedAfter(String sinkId, long checkpointId, long sinceEpochMillis) throws AdminException {
        String sql = "SELECT count(*), coalesce(sum(row_count), 0), min(checkpoint_id), max(checkpoint_id) FROM " + markerTable.sql()
                + " WHERE sink_id = ? AND checkpoint_id > ? AND created_at > to_timestamp(? / 1000.0)";
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setString(1, sinkId);
            s.setLong(2, checkpointId);
            s.setLong(3, sinceEpochMillis);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1) == 0 ? Optional.empty() : Optional.of(rs.getLong(1) + " transaction(s) (" + rs.getLong(2)
                        + " rows) of checkpoints " + rs.getLong(3) + " to " + rs.getLong(4));
            }
        } catch (SQLException e) {
            throw markerTableError(e);
        }
    }

    @Override
    public List<String> guardHolders(String sinkId, int subtasks) throws AdminException {
        String sql = "SELECT l.objid, l.pid, a.application_name, a.client_addr, a.backend_start FROM pg_locks l "
                + "LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                + "AND l.classid = ?::oid AND l.objsubid = 2 "
                + "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY l.objid";
        List<String> holders = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setLong(1, Integer.toUnsignedLong(PostgresOwnership.guardLockClass(sinkId)));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    holders.add("subtask " + rs.getLong(1) + ": backend pid " + rs.getInt(2) + ", application_name '"
                            + rs.getString(3) + "', client " + rs.getString(4) + ", connected since " + rs.getTimestamp(5));
                }
            }
        } catch (SQLException e) {
            throw new AdminException("could not read pg_locks of " + describe() + " to check that no live job owns sink id '"
                    + sinkId + "': " + credentials.scrub(e.getMessage()), e);
        }
        return holders;
    }

    @Override
    public void commit(Prepared tx) throws AdminException {
        finish("COMMIT PREPARED", tx);
    }

    @Override
    public void rollback(Prepared tx) throws AdminException {
        finish("ROLLBACK PREPARED", tx);
    }

    private void finish(String verb, Prepared tx) throws AdminException {
        if (!tx.database().equals(databaseName)) {
            throw new AdminException(tx.id() + " was prepared in database " + tx.database() + ", not " + databaseName
                    + ": PostgreSQL finishes a prepared transaction only in its own database. Remedy: run the tool "
                    + "again with a --url of database " + tx.database());
        }
        try (Statement s = connection.createStatement()) {
            s.execute(verb + " " + SqlIdentifier.literal((String) tx.handle()));
        } catch (SQLException e) {
            throw new AdminException(verb + " '" + tx.handle() + "' failed on " + describe() + ": "
                    + credentials.scrub(e.getMessage()) + ". Remedy: run it as the sink's role or a superuser", e);
        }
    }

    @Override
    public void close() {
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException ignored) {
            // Closing a session the tool is done with: nothing to finish.
        }
    }
}
