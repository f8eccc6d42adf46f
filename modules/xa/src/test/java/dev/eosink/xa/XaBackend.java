package dev.eosink.xa;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.xa.internal.XaDialect;
import dev.eosink.xa.internal.XaIds;

import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * One real database the XA hard-case suite runs against: how to reach it as the sink and as an
 * administrator, and how to ask it, in its own terms, which XA branches are prepared.
 */
abstract class XaBackend {

    static final String MARKERS = XaSinkBuilder.DEFAULT_MARKER_TABLE;

    abstract String name();

    /** The sink's connection settings. */
    XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder) {
        return connect(builder, jdbcUrl());
    }

    /** The sink's connection settings, with {@code url} (the database's, or a proxy's to it). */
    abstract XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder, String url);

    /** The JDBC URL of the sink's database. */
    abstract String jdbcUrl();

    /** What the driver sends, in ASCII, to prepare a branch: for a proxy to hold it. */
    abstract String prepareRequest();

    /** An XADataSource as the sink's user, for staging leftovers and cleaning up. */
    abstract XADataSource xaDataSource() throws SQLException;

    abstract Connection admin() throws SQLException;

    /** The target table of a test: (id, payload), both NOT NULL, transactional. */
    abstract void createTable(String table);

    /** The gtrids of the sink's prepared branches, read from the database's own list. */
    abstract List<String> preparedGtrids(String sinkId);

    /** Cuts every connection the sink has open, as a network failure would. */
    abstract int killSinkSessions(String sinkId);

    /**
     * Whether a prepared branch stays attached to the session that prepared it until that session ends
     * (MariaDB), rather than leaving it idle at once (pgjdbc). What the dialect assumes, pinned by a test.
     */
    abstract boolean keepsPreparedBranchAttached();

    /** The password the sink connects with, for the test that it never shows. */
    abstract String sinkPassword();

    long count(String sql, Object... params) {
        try (Connection c = admin(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }

    void execute(String sql) {
        try (Connection c = admin(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }

    /**
     * Leaves a prepared branch named after {@code id} holding ids {@code from..to-1} and its marker,
     * as a run that died after prepare would.
     */
    void stagePrepared(String table, TransactionId id, long from, long to) throws Exception {
        XAConnection xa = xaDataSource().getXAConnection();
        try {
            Connection c = xa.getConnection();
            XaDialect dialect = XaDialect.of(c);
            try (Statement s = c.createStatement()) {
                s.executeQuery(dialect.markerExistsSql(null, MARKERS).replace("?", "''")).close();
            } catch (SQLException missing) {
                // Only when missing: PostgreSQL's CREATE INDEX IF NOT EXISTS would wait for prepared branches' locks.
                try (Statement s = c.createStatement()) {
                    s.execute(dialect.markerDdl(null, MARKERS));
                }
            }
            Xid xid = XaIds.toXid(id);
            XAResource resource = xa.getXAResource();
            resource.start(xid, XAResource.TMNOFLAGS);
            try (PreparedStatement rows = c.prepareStatement(dialect.insertSql(null, table, List.of("id", "payload")));
                    PreparedStatement marker = c.prepareStatement(dialect.markerInsertSql(null, MARKERS))) {
                for (long i = from; i < to; i++) {
                    rows.setLong(1, i);
                    rows.setString(2, "staged");
                    rows.addBatch();
                }
                rows.executeBatch();
                marker.setString(1, id.toString());
                marker.setString(2, id.sinkId());
                marker.setInt(3, id.subtask());
                marker.setLong(4, id.checkpointId());
                marker.setLong(5, to - from);
                marker.executeUpdate();
            }
            resource.end(xid, XAResource.TMSUCCESS);
            resource.prepare(xid);
        } finally {
            xa.close(); // MariaDB: detaches the prepared branch
        }
    }

    /** Rolls back one prepared branch from outside the job, as an operator might. */
    void rollbackOne(TransactionId id) throws Exception {
        XAConnection xa = xaDataSource().getXAConnection();
        try {
            xa.getXAResource().rollback(XaIds.toXid(id));
        } finally {
            xa.close();
        }
    }

    /** Rolls back every prepared branch of the sink: cleanup after a test, whatever happened. */
    void rollbackPrepared(String sinkId) {
        try {
            XAConnection xa = xaDataSource().getXAConnection();
            try {
                XAResource resource = xa.getXAResource();
                for (Xid xid : resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)) {
                    if (XaIds.parse(xid, sinkId).isPresent()) {
                        try {
                            resource.rollback(xid);
                        } catch (XAException gone) {
                            // finished meanwhile
                        }
                    }
                }
            } finally {
                xa.close();
            }
        } catch (SQLException | XAException e) {
            throw new IllegalStateException("cleanup of " + sinkId + "'s prepared branches failed", e);
        }
    }

    @Override
    public String toString() {
        return name();
    }

    /** MariaDB: the fixture's own mariadbd (or EOSINK_TEST_MARIADB_URL); the sink connects as a least-privileged user. */
    static final class MariaDb extends XaBackend {
        private final MariaDbFixture db;

        MariaDb() {
            this(MariaDbFixture.get());
        }

        MariaDb(MariaDbFixture db) {
            this.db = db;
        }

        MariaDbFixture fixture() {
            return db;
        }

        @Override
        String name() {
            return "MariaDB";
        }

        @Override
        XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder, String url) {
            return builder.jdbcUrl(url).username(MariaDbFixture.SINK_USER).password(MariaDbFixture.SINK_PASSWORD);
        }

        @Override
        String jdbcUrl() {
            return db.jdbcUrl();
        }

        @Override
        String prepareRequest() {
            return "XA PREPARE"; // Connector/J: XA PREPARE 0x<gtrid>,0x<bqual>,<formatId>
        }

        @Override
        XADataSource xaDataSource() throws SQLException {
            MariaDbDataSource ds = new MariaDbDataSource(db.jdbcUrl());
            ds.setUser(MariaDbFixture.SINK_USER);
            ds.setPassword(MariaDbFixture.SINK_PASSWORD);
            return ds;
        }

        @Override
        Connection admin() throws SQLException {
            return db.connect();
        }

        @Override
        void createTable(String table) {
            execute("CREATE TABLE " + table + " (id BIGINT NOT NULL, payload VARCHAR(100) NOT NULL) ENGINE=InnoDB");
        }

        @Override
        List<String> preparedGtrids(String sinkId) {
            List<String> gtrids = new ArrayList<>();
            String bqual = new String(bqualOf(sinkId), StandardCharsets.ISO_8859_1);
            for (String[] row : db.xaRecover()) { // XA RECOVER: formatID, gtrid, bqual
                if (row[0].equals(String.valueOf(XaIds.FORMAT_ID)) && row[2].equals(bqual)) {
                    gtrids.add(row[1]);
                }
            }
            return gtrids;
        }

        @Override
        int killSinkSessions(String sinkId) {
            return db.killSessionsOf(MariaDbFixture.SINK_USER);
        }

        @Override
        boolean keepsPreparedBranchAttached() {
            return true;
        }

        @Override
        String sinkPassword() {
            return MariaDbFixture.SINK_PASSWORD;
        }
    }

    /** PostgreSQL through pgjdbc's PGXADataSource, on the shared PostgresFixture. */
    static final class Postgres extends XaBackend {
        private final PostgresFixture db = PostgresFixture.get();

        @Override
        String name() {
            return "PostgreSQL-XA";
        }

        @Override
        XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder, String url) {
            builder.jdbcUrl(url).username(db.user());
            return db.password().isEmpty() ? builder : builder.password(db.password());
        }

        @Override
        String jdbcUrl() {
            return db.jdbcUrl();
        }

        @Override
        String prepareRequest() {
            return "PREPARE TRANSACTION"; // pgjdbc: PREPARE TRANSACTION '<gid>'
        }

        @Override
        XADataSource xaDataSource() {
            PGXADataSource ds = new PGXADataSource();
            ds.setUrl(db.jdbcUrl());
            ds.setUser(db.user());
            ds.setPassword(db.password());
            return ds;
        }

        @Override
        Connection admin() throws SQLException {
            return db.connect();
        }

        @Override
        void createTable(String table) {
            execute("CREATE TABLE " + table + " (id bigint NOT NULL, payload text NOT NULL)");
        }

        /** pg_prepared_xacts holds pgjdbc's gid {@code <formatId>_<base64 gtrid>_<base64 bqual>}. */
        @Override
        List<String> preparedGtrids(String sinkId) {
            List<String> gtrids = new ArrayList<>();
            String bqual = Base64.getEncoder().encodeToString(bqualOf(sinkId));
            try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                    "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, ?)")) {
                s.setString(1, XaIds.FORMAT_ID + "_");
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        String[] parts = rs.getString(1).split("_");
                        if (parts.length == 3 && parts[2].equals(bqual)) {
                            gtrids.add(new String(Base64.getDecoder().decode(parts[1]), StandardCharsets.US_ASCII));
                        }
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("could not read pg_prepared_xacts", e);
            }
            return gtrids;
        }

        @Override
        int killSinkSessions(String sinkId) {
            return db.terminateBackends("eosink-xa/" + sinkId + "/%");
        }

        @Override
        boolean keepsPreparedBranchAttached() {
            return false;
        }

        @Override
        String sinkPassword() {
            return db.password();
        }
    }

    static byte[] bqualOf(String sinkId) {
        return XaIds.toXid(new TransactionId(sinkId, 0, 0, "aaaaaaaa")).getBranchQualifier();
    }
}
