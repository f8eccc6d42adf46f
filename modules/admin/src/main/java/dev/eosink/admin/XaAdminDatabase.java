package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.xa.XaBranchNames;

import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.stream.Collectors;

/**
 * The XA sink's branches on MariaDB (and MySQL): listed with {@code XAResource.recover} and finished
 * with {@code commit} and {@code rollback} on an {@code XAConnection}, named as {@link XaBranchNames}
 * says; the ownership guard is a named session lock per subtask index ({@code IS_USED_LOCK}). MariaDB
 * keeps no time of a branch's prepare, and its XA is server-wide (not per database).
 */
final class XaAdminDatabase implements AdminDatabase {

    private final Credentials credentials;
    private final XAConnection xaConnection;
    private final XAResource xa;
    private final Connection connection;
    private final SqlIdentifier markerTable;
    private final String version;
    private final MarkerQueries markers;
    private final List<String> unreadable = new ArrayList<>();

    XaAdminDatabase(Credentials credentials, String markerTable) throws AdminException {
        this.credentials = credentials;
        this.markerTable = TableName.markerTable(markerTable);
        this.connection = Connections.open(credentials);
        try {
            MariaDbDataSource source = new MariaDbDataSource(credentials.url());
            if (credentials.user() != null) {
                source.setUser(credentials.user());
            }
            if (credentials.password() != null) {
                source.setPassword(credentials.password());
            }
            this.xaConnection = source.getXAConnection();
            this.xa = xaConnection.getXAResource();
            this.version = connection.getMetaData().getDatabaseProductVersion();
            // MariaDB's form of the sink's marker SQL (its dialect in eosink-xa is internal); a missing
            // table is SQLSTATE 42S02, error 1146.
            this.markers = new MarkerQueries(connection, table(), "SELECT COUNT(*), COALESCE(SUM(row_count), 0), "
                    + "MIN(checkpoint_id), MAX(checkpoint_id) FROM " + table() + " WHERE sink_id = ? AND (checkpoint_id > ? "
                    + "OR gid NOT LIKE ?) AND created_at > FROM_UNIXTIME(? / 1000)",
                    e -> "42S02".equals(e.getSQLState()) || e.getErrorCode() == 1146, this::describe, credentials);
        } catch (SQLException e) {
            close();
            throw Connections.failed(credentials, e);
        }
    }

    @Override
    public String describe() {
        return "MariaDB " + version + " at " + JdbcUrls.redact(credentials.url());
    }

    @Override
    public String ageSource() {
        return "age: unknown (MariaDB keeps no time of an XA branch's prepare)";
    }

    @Override
    public List<Prepared> prepared(Optional<String> sinkId) throws AdminException {
        Xid[] xids;
        try {
            // TMSTARTRSCAN: MariaDB Connector/J returns nothing without it.
            xids = xa.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
        } catch (XAException e) {
            throw new AdminException("XA recover (listing prepared branches) failed on " + describe() + ": error code "
                    + e.errorCode + " " + credentials.scrub(e.getMessage())
                    + ". Remedy: on MySQL 8, GRANT XA_RECOVER_ADMIN ON *.* TO the tool's user", e);
        }
        List<Prepared> found = new ArrayList<>();
        unreadable.clear();
        for (Xid xid : xids == null ? new Xid[0] : xids) {
            Optional<TransactionId> id = sinkId.isPresent() ? XaBranchNames.parse(xid, sinkId.get()) : XaBranchNames.parse(xid);
            if (id.isPresent()) {
                found.add(new Prepared(id.get(), Optional.empty(), "server", xid));
            } else if (sinkId.isEmpty() && xid.getFormatId() == XaBranchNames.FORMAT_ID) {
                unreadable.add(new String(xid.getGlobalTransactionId(), StandardCharsets.US_ASCII) + " bqual "
                        + new String(xid.getBranchQualifier(), StandardCharsets.US_ASCII));
            }
        }
        found.sort(java.util.Comparator.comparing((Prepared p) -> p.id().sinkId())
                .thenComparingLong(p -> p.id().checkpointId()).thenComparingInt(p -> p.id().subtask()));
        return found;
    }

    @Override
    public List<String> unreadable() {
        return List.copyOf(unreadable);
    }

    private String table() {
        return tableSql(markerTable);
    }

    @Override
    public CarriedWrites.Encoding carriedEncoding() {
        return CarriedWrites.Encoding.XA_OBJECTS;
    }

    @Override
    public String tableSql(SqlIdentifier table) {
        return table.schema() == null ? quote(table.name()) : quote(table.schema()) + "." + quote(table.name());
    }

    @Override
    public List<Notice> notices(String sinkId) throws AdminException {
        return markers.notices(sinkId);
    }

    /**
     * {@code INSERT ... ON DUPLICATE KEY UPDATE} of every column (as the XA sink's MariaDB dialect does: a
     * {@code _ci} key takes the last write's spelling) and {@code DELETE} by key, the values bound as the row mapper
     * made them.
     */
    @Override
    public CarriedWriting.Written writeCarried(SqlIdentifier table, String sinkId,
            SortedMap<Integer, CarriedWrites> writes, int notices) throws AdminException {
        CarriedWriting.Dialect dialect = new CarriedWriting.Dialect() {
            @Override
            public String upsertSql(String t, List<String> columns, List<String> keyColumns) {
                return "INSERT INTO " + t + " (" + columns.stream().map(XaAdminDatabase::quote).collect(Collectors.joining(", "))
                        + ") VALUES (" + columns.stream().map(c -> "?").collect(Collectors.joining(", "))
                        + ") ON DUPLICATE KEY UPDATE " + columns.stream().map(c -> quote(c) + " = VALUES(" + quote(c) + ")")
                                .collect(Collectors.joining(", "));
            }

            @Override
            public String deleteSql(String t, List<String> keyColumns) {
                return "DELETE FROM " + t + " WHERE " + keyColumns.stream().map(c -> quote(c) + " = ?")
                        .collect(Collectors.joining(" AND "));
            }

            @Override
            public void bind(PreparedStatement s, int parameter, Object value) throws SQLException {
                if (value == null) {
                    s.setNull(parameter, Types.NULL);
                } else {
                    s.setObject(parameter, value);
                }
            }

            @Override
            public String lockTimeoutSql() {
                return "SET SESSION innodb_lock_wait_timeout = " + CarriedWriting.LOCK_TIMEOUT_SECONDS;
            }
        };
        return CarriedWriting.write(connection, dialect, tableSql(table), table(), sinkId, writes, notices, credentials);
    }

    private static String quote(String identifier) {
        return '`' + identifier.replace("`", "``") + '`';
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
    public Optional<String> committedAfter(String sinkId, long checkpointId, long sinceEpochMillis,
            Optional<String> takenBy) throws AdminException {
        return markers.committedAfter(sinkId, checkpointId, sinceEpochMillis, takenBy);
    }

    @Override
    public List<String> guardHolders(String sinkId, int subtasks) throws AdminException {
        List<String> holders = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement("SELECT IS_USED_LOCK(?)")) {
            for (int subtask = 0; subtask < subtasks; subtask++) {
                // The guard: a live writer. The branch lock: a session that carries a branch of the
                // subtask, which may still be preparing it, and until it ends MariaDB lets no other
                // session finish that branch (a killed job's sessions end a moment after its guard's).
                for (String lock : List.of(XaBranchNames.guardLockName(sinkId, subtask),
                        XaBranchNames.branchLockName(sinkId, subtask))) {
                    s.setString(1, lock);
                    try (ResultSet rs = s.executeQuery()) {
                        if (rs.next() && rs.getObject(1) != null) {
                            holders.add("subtask " + subtask + ": session " + rs.getLong(1) + " holds lock '" + lock
                                    + "' (if no live job owns that session: KILL " + rs.getLong(1) + ")");
                        }
                    }
                }
            }
        } catch (SQLException e) {
            throw new AdminException("could not check the ownership guard of sink id '" + sinkId + "' on " + describe()
                    + ": " + credentials.scrub(e.getMessage()), e);
        }
        return holders;
    }

    @Override
    public void commit(Prepared tx) throws AdminException {
        try {
            xa.commit((Xid) tx.handle(), false);
        } catch (XAException e) {
            throw new AdminException("XA COMMIT of " + tx.id() + " failed on " + describe() + ": error code " + e.errorCode
                    + " " + credentials.scrub(e.getMessage()), e);
        }
    }

    @Override
    public void rollback(Prepared tx) throws AdminException {
        try {
            xa.rollback((Xid) tx.handle());
        } catch (XAException e) {
            throw new AdminException("XA ROLLBACK of " + tx.id() + " failed on " + describe() + ": error code "
                    + e.errorCode + " " + credentials.scrub(e.getMessage()), e);
        }
    }

    @Override
    public void close() {
        try {
            if (xaConnection != null) {
                xaConnection.close();
            }
        } catch (SQLException ignored) {
            // Nothing of the tool's is open on it.
        }
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException ignored) {
            // Likewise.
        }
    }
}
