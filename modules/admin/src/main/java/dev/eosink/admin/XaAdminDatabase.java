/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.XaDriver;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.xa.XaBranchNames;

import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;

/**
 * The XA sink's branches on any XA database whose dialect gives an XA driver ({@link JdbcDialect}; MariaDB and
 * MySQL, and any a jar on the class path adds): listed with {@code XAResource.recover} and finished with {@code
 * commit} and {@code rollback} on an {@code XAConnection}, named as {@link XaBranchNames} says; the ownership guard's
 * holders asked of the dialect's session locks. XA keeps no time of a branch's prepare.
 */
final class XaAdminDatabase implements AdminDatabase {

    private final Credentials credentials;
    private final JdbcDialect dialect;
    private final XAConnection xaConnection;
    private final XAResource xa;
    private final Connection connection;
    private final SqlIdentifier markerTable;
    private final String version;
    private final MarkerQueries markers;
    private final List<String> unreadable = new ArrayList<>();

    XaAdminDatabase(Credentials credentials, String markerTable, JdbcDialect dialect) throws AdminException {
        this.credentials = credentials;
        this.dialect = dialect;
        this.markerTable = TableName.markerTable(markerTable);
        ClassLoader loader = XaAdminDatabase.class.getClassLoader();
        XaDriver driver = dialect.xa()
                .driver(credentials.url(), loader)
                .orElseThrow(() -> new AdminException(
                        AdminException.USAGE,
                        "--url " + JdbcUrls.redact(credentials.url()) + ": no XA driver is known for " + dialect.name()
                                + " (its dialect names none), so the tool cannot list its XA branches"));
        try {
            driver.require(loader, JdbcUrls.redact(credentials.url()));
        } catch (IllegalStateException e) {
            throw new AdminException(AdminException.USAGE, e.getMessage(), e);
        }
        XAConnection opened;
        try {
            // The plain statements run on the XA connection's own handle, as the sink's guard connection does: the
            // driver that takes the URL for XA takes it for them too.
            opened = driver.create(credentials.url(), credentials.properties(), "eosink-admin")
                    .getXAConnection();
        } catch (SQLException e) {
            throw Connections.failed(credentials, e);
        }
        this.xaConnection = opened;
        try {
            this.connection = xaConnection.getConnection();
            connection.setAutoCommit(true);
            this.xa = xaConnection.getXAResource();
            this.version = connection.getMetaData().getDatabaseProductVersion();
            this.markers = new MarkerQueries(
                    connection,
                    dialect.markers(this.markerTable),
                    dialect.errors(),
                    dialect.xa(),
                    this::describe,
                    credentials);
        } catch (SQLException e) {
            close();
            throw Connections.failed(credentials, e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public String describe() {
        return dialect.name() + " " + version + " at " + JdbcUrls.redact(credentials.url());
    }

    @Override
    public String ageSource() {
        return "age: unknown (" + dialect.name() + " keeps no time of an XA branch's prepare)";
    }

    /**
     * The branches the dialect lists as prepared ({@link dev.eosink.jdbc.dialect.XaTraits#preparedBranches}: {@code
     * recover}, less those its driver lists after they were finished).
     */
    @Override
    public List<Prepared> prepared(Optional<String> sinkId) throws AdminException {
        List<Xid> xids;
        try {
            xids = dialect.xa().preparedBranches(xa, connection);
        } catch (XAException e) {
            throw new AdminException(
                    "XA recover (listing prepared branches) failed on " + describe() + ": error code " + e.errorCode
                            + " " + credentials.scrub(e.getMessage()) + "."
                            + dialect.xa().recoverRemedy(),
                    e);
        } catch (SQLException e) {
            throw new AdminException(
                    "listing prepared branches failed on " + describe() + ": " + credentials.scrub(e.getMessage()), e);
        }
        List<Prepared> found = new ArrayList<>();
        unreadable.clear();
        for (Xid xid : xids) {
            Optional<TransactionId> id =
                    sinkId.isPresent() ? XaBranchNames.parse(xid, sinkId.get()) : XaBranchNames.parse(xid);
            if (id.isPresent()) {
                found.add(new Prepared(id.get(), Optional.empty(), "server", xid));
            } else if (sinkId.isEmpty() && xid.getFormatId() == XaBranchNames.FORMAT_ID) {
                unreadable.add(new String(xid.getGlobalTransactionId(), StandardCharsets.US_ASCII) + " bqual "
                        + new String(xid.getBranchQualifier(), StandardCharsets.US_ASCII));
            }
        }
        found.sort(java.util.Comparator.comparing((Prepared p) -> p.id().sinkId())
                .thenComparingLong(p -> p.id().checkpointId())
                .thenComparingInt(p -> p.id().subtask()));
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
        return dialect.qualified(table);
    }

    @Override
    public List<Notice> notices(String sinkId) throws AdminException {
        return markers.notices(sinkId);
    }

    /**
     * The dialect's upsert of every column (a {@code _ci} key takes the last write's spelling) and {@code DELETE} by
     * key, the values bound as the row mapper made them; lock waits bounded by the dialect's lock timeout.
     */
    @Override
    public CarriedWriting.Written writeCarried(
            SqlIdentifier table, String sinkId, SortedMap<Integer, CarriedWrites> writes, int notices)
            throws AdminException {
        CarriedWriting.Dialect carried = new CarriedWriting.Dialect() {
            @Override
            public String upsertSql(String t, List<String> columns, List<String> keyColumns) throws AdminException {
                return dialect.writes()
                        .upsertSql(table, columns, keyColumns, 1)
                        .orElseThrow(() -> new AdminException(
                                dialect.name() + " has no upsert statement in its dialect, so carried writes cannot be "
                                        + "written here"));
            }

            @Override
            public String deleteSql(String t, List<String> keyColumns) {
                return dialect.writes().deleteSql(table, keyColumns);
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
            public void boundLockWaits(Connection c) throws SQLException {
                if (dialect.lockTimeout().isPresent()) {
                    dialect.lockTimeout().get().set(c, CarriedWriting.LOCK_TIMEOUT);
                }
            }
        };
        return CarriedWriting.write(
                connection,
                carried,
                tableSql(table),
                dialect.markers(markerTable),
                sinkId,
                writes,
                notices,
                credentials);
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

    /**
     * Per subtask index, the holders of the guard (a live writer) and of the branch lock (a session that carries a
     * branch of the subtask, which may still be preparing it; a killed job's sessions end a moment after its
     * guard's), as the dialect's session locks tell.
     */
    @Override
    public List<String> guardHolders(String sinkId, int subtasks) throws AdminException {
        Optional<SessionLocks> locks = dialect.sessionLocks();
        if (locks.isEmpty()) {
            throw new AdminException(
                    dialect.name() + " has no session locks in its dialect: the tool cannot check that "
                            + "no live job owns sink id '" + sinkId
                            + "'. Remedy: make sure that no job with that sink id runs, "
                            + "and finish its branches by hand");
        }
        String hash = LockNames.sinkHash(sinkId);
        List<String> holders = new ArrayList<>();
        try {
            for (int subtask = 0; subtask < subtasks; subtask++) {
                long guard = locks.get().guardHolder(connection, hash, subtask);
                long branch = locks.get().branchLockHolder(connection, hash, subtask);
                for (long session : guard == branch ? new long[] {guard} : new long[] {guard, branch}) {
                    if (session != 0) {
                        holders.add("subtask " + subtask + ": session " + session + " holds "
                                + (session == guard ? "the ownership guard" : "the branch lock")
                                + " (if no live job owns that session: "
                                + locks.get().endSessionSql(session) + ")");
                    }
                }
            }
        } catch (SQLException e) {
            throw new AdminException(
                    "could not check the ownership guard of sink id '" + sinkId + "' on " + describe() + ": "
                            + credentials.scrub(e.getMessage()),
                    e);
        }
        return holders;
    }

    @Override
    public void commit(Prepared tx) throws AdminException {
        try {
            xa.commit((Xid) tx.handle(), false);
        } catch (XAException e) {
            throw new AdminException(
                    "XA COMMIT of " + tx.id() + " failed on " + describe() + ": error code " + e.errorCode + " "
                            + credentials.scrub(e.getMessage()),
                    e);
        }
    }

    @Override
    public void rollback(Prepared tx) throws AdminException {
        try {
            xa.rollback((Xid) tx.handle());
        } catch (XAException e) {
            throw new AdminException(
                    "XA ROLLBACK of " + tx.id() + " failed on " + describe() + ": error code " + e.errorCode + " "
                            + credentials.scrub(e.getMessage()),
                    e);
        }
    }

    @Override
    public void close() {
        try {
            if (connection != null) {
                connection.close(); // the handle, then the XA connection it belongs to
            }
        } catch (SQLException ignored) {
            // Nothing of the tool's is open on it.
        }
        try {
            if (xaConnection != null) {
                xaConnection.close();
            }
        } catch (SQLException ignored) {
            // Likewise.
        }
    }
}
