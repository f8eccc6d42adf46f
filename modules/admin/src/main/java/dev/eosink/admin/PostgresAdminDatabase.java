/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.PostgresOwnership;
import dev.eosink.xa.XaBranchNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.stream.Collectors;

/**
 * PostgreSQL's own two-phase commit, as the PostgreSQL sink uses it, and as pgjdbc's XA uses it for the XA sink:
 * prepared transactions from {@code pg_prepared_xacts} (gid {@code eos1/<sink>/<subtask>/<checkpoint>/<run>}, or an
 * XA branch's Xid in pgjdbc's form: {@link PgXaGids}; with the time of the prepare), {@code COMMIT PREPARED} and
 * {@code ROLLBACK PREPARED} (which must run in the database the transaction was prepared in), and the ownership
 * guards (the PostgreSQL sink's, and the XA sink's of its dialect) as granted advisory locks in {@code pg_locks} of
 * this database.
 */
final class PostgresAdminDatabase implements AdminDatabase {

    private final Credentials credentials;
    private final Connection connection;
    private final SqlIdentifier markerTable;
    private final String databaseName;
    private final String version;
    private final MarkerQueries markers;
    private final MarkerSql markerSql;
    private final JdbcDialect dialect = new PostgresDialect();

    PostgresAdminDatabase(Credentials credentials, String markerTable) throws AdminException {
        this.credentials = credentials;
        this.markerTable = TableName.markerTable(markerTable);
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
            this.markerSql = dialect.markers(this.markerTable);
            this.markers = new MarkerQueries(
                    connection, markerSql, dialect.errors(), dialect.xa(), this::describe, credentials);
        } catch (SQLException e) {
            close();
            throw Connections.failed(credentials, e);
        }
    }

    @Override
    public String describe() {
        return "PostgreSQL " + version + " at " + JdbcUrls.redact(credentials.url()) + " (database " + databaseName
                + ")";
    }

    @Override
    public String ageSource() {
        return "age: since pg_prepared_xacts.prepared";
    }

    @Override
    public List<Prepared> prepared(Optional<String> sinkId) throws AdminException {
        String prefix = sinkId.map(TransactionId::sinkPrefix).orElse(TransactionId.PREFIX + "/");
        List<Prepared> found = new ArrayList<>();
        // The PostgreSQL sink's transactions by their names, and the XA sink's branches by pgjdbc's form of an Xid.
        try (PreparedStatement s = connection.prepareStatement("SELECT gid, prepared, database FROM pg_prepared_xacts"
                + " WHERE starts_with(gid, ?) OR starts_with(gid, ?) ORDER BY prepared, gid")) {
            s.setString(1, prefix);
            s.setString(2, PgXaGids.PREFIX);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String gid = rs.getString(1);
                    Timestamp at = rs.getTimestamp(2);
                    String database = rs.getString(3);
                    Optional<TransactionId> id = gid.startsWith(PgXaGids.PREFIX)
                            ? PgXaGids.parse(gid)
                                    .flatMap(x -> sinkId.isPresent()
                                            ? XaBranchNames.parse(x, sinkId.get())
                                            : XaBranchNames.parse(x))
                            : TransactionId.parse(gid);
                    id.ifPresent(t -> found.add(
                            new Prepared(t, Optional.ofNullable(at).map(Timestamp::toInstant), database, gid)));
                }
            }
        } catch (SQLException e) {
            throw new AdminException(
                    "could not list the prepared transactions (pg_prepared_xacts) of " + describe() + ": "
                            + credentials.scrub(e.getMessage()),
                    e);
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
    public Optional<String> committedAfter(
            String sinkId, long checkpointId, long sinceEpochMillis, Optional<String> takenBy) throws AdminException {
        return markers.committedAfter(sinkId, checkpointId, sinceEpochMillis, takenBy);
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
                            + rs.getString(3) + "', client " + rs.getString(4) + ", connected since "
                            + rs.getTimestamp(5));
                }
            }
            // The XA sink's guards on PostgreSQL: its dialect's advisory locks, one per subtask index.
            SessionLocks xaLocks = dialect.sessionLocks().orElseThrow();
            String hash = LockNames.sinkHash(sinkId);
            for (int subtask = 0; subtask < subtasks; subtask++) {
                long pid = xaLocks.guardHolder(connection, hash, subtask);
                if (pid != 0) {
                    holders.add(
                            "subtask " + subtask + ": backend pid " + pid + " holds the XA sink's ownership guard (if "
                                    + "no live job owns it: " + xaLocks.endSessionSql(pid) + ")");
                }
            }
        } catch (SQLException e) {
            throw new AdminException(
                    "could not read pg_locks of " + describe() + " to check that no live job owns sink id '" + sinkId
                            + "': " + credentials.scrub(e.getMessage()),
                    e);
        }
        return holders;
    }

    @Override
    public List<Notice> notices(String sinkId) throws AdminException {
        return markers.notices(sinkId);
    }

    @Override
    public CarriedWrites.Encoding carriedEncoding() {
        return CarriedWrites.Encoding.POSTGRES_TEXT;
    }

    @Override
    public String tableSql(SqlIdentifier table) {
        return table.sql();
    }

    /**
     * {@code INSERT ... ON CONFLICT (key) DO UPDATE} and {@code DELETE} by key, every value bound as the text the
     * sink carried and cast by the server to its column's type (as the sink's own statements do), so every column
     * type with a text form works and type modifiers are enforced.
     */
    @Override
    public CarriedWriting.Written writeCarried(
            SqlIdentifier table, String sinkId, SortedMap<Integer, CarriedWrites> writes, int notices)
            throws AdminException {
        Map<String, String> types = columnTypes(table);
        CarriedWriting.Dialect dialect = new CarriedWriting.Dialect() {
            @Override
            public String upsertSql(String t, List<String> columns, List<String> keyColumns) throws AdminException {
                List<String> others =
                        columns.stream().filter(c -> !keyColumns.contains(c)).toList();
                return "INSERT INTO " + t + " ("
                        + columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                        + ") VALUES (" + casts(columns) + ") ON CONFLICT ("
                        + keyColumns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", ")) + ") "
                        + (others.isEmpty()
                                ? "DO NOTHING"
                                : "DO UPDATE SET "
                                        + others.stream()
                                                .map(c -> SqlIdentifier.quote(c) + " = EXCLUDED."
                                                        + SqlIdentifier.quote(c))
                                                .collect(Collectors.joining(", ")));
            }

            @Override
            public String deleteSql(String t, List<String> keyColumns) throws AdminException {
                List<String> conditions = new ArrayList<>();
                for (String k : keyColumns) {
                    conditions.add(SqlIdentifier.quote(k) + " = ?::text::" + type(k));
                }
                return "DELETE FROM " + t + " WHERE " + String.join(" AND ", conditions);
            }

            private String casts(List<String> columns) throws AdminException {
                List<String> casts = new ArrayList<>();
                for (String c : columns) {
                    casts.add("?::text::" + type(c));
                }
                return String.join(", ", casts);
            }

            private String type(String column) throws AdminException {
                String type = types.get(column);
                if (type == null) {
                    throw new AdminException("table " + table.sql() + " has no column " + SqlIdentifier.quote(column)
                            + ", which the carried writes are for (its columns: " + types.keySet()
                            + "). Remedy: give the "
                            + "sink's table with --table");
                }
                return type;
            }

            @Override
            public void bind(PreparedStatement s, int parameter, Object value) throws SQLException {
                s.setString(parameter, (String) value);
            }

            @Override
            public void boundLockWaits(Connection c) throws SQLException {
                try (var s = c.createStatement()) {
                    s.execute("SET LOCAL lock_timeout = '" + CarriedWriting.LOCK_TIMEOUT.toSeconds() + "s'");
                }
            }
        };
        return CarriedWriting.write(connection, dialect, table.sql(), markerSql, sinkId, writes, notices, credentials);
    }

    /** The table's columns and their types as format_type names them ("numeric(10,2)"); refused when it is missing. */
    private Map<String, String> columnTypes(SqlIdentifier table) throws AdminException {
        Map<String, String> types = new HashMap<>();
        try (PreparedStatement s = connection.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod) "
                + "FROM pg_attribute a WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped")) {
            s.setString(1, table.sql());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    types.put(rs.getString(1), rs.getString(2));
                }
            }
        } catch (SQLException e) {
            throw new AdminException(
                    "could not read the columns of " + table.sql() + " in " + describe() + ": "
                            + credentials.scrub(e.getMessage()),
                    e);
        }
        if (types.isEmpty()) {
            throw new AdminException("table " + table.sql() + " does not exist in " + describe() + " (or this user "
                    + "cannot see it). Remedy: give the sink's table with --table [schema.]name");
        }
        return types;
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
            throw new AdminException(
                    verb + " '" + tx.handle() + "' failed on " + describe() + ": " + credentials.scrub(e.getMessage())
                            + ". Remedy: run it as the sink's role or a superuser",
                    e);
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
