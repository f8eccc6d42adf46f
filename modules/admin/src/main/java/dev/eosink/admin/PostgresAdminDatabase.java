package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.sql.MarkerTable;
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
    private final MarkerQueries markers;

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
            // The sink's own SQL for its markers (undefined table: SQLSTATE 42P01).
            this.markers = new MarkerQueries(connection, this.markerTable.sql(),
                    new MarkerTable(this.markerTable).committedAfterSql(), e -> "42P01".equals(e.getSQLState()),
                    this::describe, credentials);
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
        return markers.markers(sinkId);
    }

    @Override
    public OptionalLong marker(TransactionId id) throws AdminException {
        return markers.marker(id);
    }

    @Override
    public Optional<String> committedAfter(String sinkId, long checkpointId, long sinceEpochMillis) throws AdminException {
        return markers.committedAfter(sinkId, checkpointId, sinceEpochMillis);
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
