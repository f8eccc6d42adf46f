/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.testing.FirebirdFixture;
import dev.eosink.testing.hardcases.Capability;
import dev.eosink.testing.hardcases.HardCaseBackend;
import dev.eosink.testing.hardcases.SessionScope;
import dev.eosink.xa.internal.XaIds;

import org.firebirdsql.gds.TransactionParameterBuffer;
import org.firebirdsql.jaybird.fb.constants.TpbItems;
import org.firebirdsql.jdbc.FirebirdConnection;

import javax.sql.XADataSource;
import javax.transaction.xa.Xid;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Firebird 3: Debian's firebird3.0-server run by {@link FirebirdFixture}, one server and database for the whole
 * suite (a server of a case's own for the crash), reached through Jaybird. The sink connects as a least-privileged
 * user ({@link FirebirdFixture#SINK_USER}: CREATE TABLE for its marker and lock tables, SELECT and INSERT on each
 * target), the cases as SYSDBA.
 *
 * <p>Names: Firebird folds unquoted names to upper case, and the sink quotes every name, so the sink is given the
 * upper-case names of the table and columns that the cases' SQL writes unquoted ({@link #tableName}). The marker
 * table's names are the sink's own, quoted in lower case ({@code "eosink_markers"}, {@code "row_count"}: {@code
 * ROW_COUNT} is a reserved word), so {@link #committed} quotes them.
 *
 * <p>The cases' own reads ignore limbo: a branch prepared by a session that is gone is "in limbo" on Firebird, and
 * a default reader that meets one of its rows fails (isc_rec_in_limbo) where other databases' READ COMMITTED readers
 * pass over it; the cases read what is committed, as there.
 *
 * <p>The sink's connections are not encrypted ({@code wireCrypt=DISABLED}), so that a {@code TcpProxy} can
 * match what they send. Jaybird's protocol is binary: a prepare and the lookup that begins a commit of a branch its connection did not
 * prepare both carry the Xid as Jaybird stores it ({@link #jaybirdXid}), bytes below 128 that the {@code TcpProxy}
 * matches as characters. The sessions are told apart by {@code MON$REMOTE_PROCESS}, where Jaybird puts the sink's
 * session names.
 */
final class XaFirebirdBackend extends XaBackend {

    /**
     * The sink's connections without wire encryption (the fixture's server takes both): Jaybird encrypts by
     * default where the server allows it, and a {@code TcpProxy} matches requests in the clear only.
     */
    private static final String WIRE_CRYPT = "wireCrypt";

    private static final String WIRE_CRYPT_OFF = "DISABLED";

    /** The database of the shared server. */
    private static final String DATABASE = "hardcases";

    private final FirebirdFixture firebird;
    private final String url;

    /** The suite's shared server, started with the first backend. */
    XaFirebirdBackend() {
        this(Shared.FIREBIRD, Shared.URL);
    }

    private XaFirebirdBackend(FirebirdFixture firebird, String url) {
        this.firebird = firebird;
        this.url = url;
    }

    /** One server for every suite of the JVM, stopped by the fixture's shutdown hook. */
    private static final class Shared {
        static final FirebirdFixture FIREBIRD = FirebirdFixture.start();
        static final String URL = database(FIREBIRD);
    }

    /** Creates the database and lets the sink's user create its tables there; returns its URL. */
    private static String database(FirebirdFixture firebird) {
        firebird.createDatabase(DATABASE);
        String url = firebird.url(DATABASE);
        try (Connection c = admin(url);
                PreparedStatement s = c.prepareStatement("GRANT CREATE TABLE TO USER " + FirebirdFixture.SINK_USER)) {
            s.execute();
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare database " + DATABASE + " on " + firebird, e);
        }
        return url;
    }

    private static Connection admin(String url) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.ADMIN_USER);
        p.setProperty("password", FirebirdFixture.ADMIN_PASSWORD);
        p.setProperty("encoding", "UTF8");
        return DriverManager.getConnection(url, p);
    }

    @Override
    public String name() {
        return "Firebird (XA)";
    }

    @Override
    public Map<Capability, String> lacking() {
        return Map.of(
                Capability.WAITS_FOR_EARLIER_SESSIONS,
                        "Firebird has no lock that a connection carrying XA branches "
                                + "can hold through its prepare (a row lock ends with the branch), so the dialect takes no "
                                + "branch lock and a restarted writer cannot wait for an earlier writer's session still "
                                + "preparing: such a branch stays in limbo until the next recovery (docs/xa.md)",
                Capability.WRITES_WAIT_FOR_PREPARED_ROWS,
                        "a write that meets a row of a branch in limbo (prepared "
                                + "by a session that is gone) fails at once with isc_rec_in_limbo (335544459) instead of "
                                + "waiting for the branch to be resolved: another subtask's replay fails on the leftover's "
                                + "row before the leftover's own subtask has rolled it back at start, and the job restarts "
                                + "(docs/xa.md)",
                Capability.COMMITS_ON_THE_COMMITTERS_CONNECTION,
                        "Jaybird commits a branch its connection did not "
                                + "prepare on a connection it opens for that commit (its in-limbo completion), which the "
                                + "sink's watchdog cannot reach: a commit the network stalls is not sure to end within "
                                + "the sink's network timeout (it ends when the abort of the committer's own connection "
                                + "reaches it, when the network moves again, or at Jaybird's soTimeout) (docs/xa.md)");
    }

    @Override
    XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder, String url) {
        return builder.jdbcUrl(url)
                .username(FirebirdFixture.SINK_USER)
                .password(FirebirdFixture.SINK_PASSWORD)
                .property(WIRE_CRYPT, WIRE_CRYPT_OFF);
    }

    @Override
    String tableName(String table) {
        return table.toUpperCase(Locale.ROOT);
    }

    @Override
    List<String> targetColumns() {
        return List.of("ID", "PAYLOAD");
    }

    @Override
    public String jdbcUrl() {
        return url;
    }

    @Override
    public Properties connectionProperties() {
        Properties properties = new Properties();
        properties.setProperty("user", FirebirdFixture.SINK_USER);
        properties.setProperty("password", FirebirdFixture.SINK_PASSWORD);
        properties.setProperty(WIRE_CRYPT, WIRE_CRYPT_OFF);
        return properties;
    }

    /** The dialect's own data source, as the sink's user: the one the sink makes from the URL. */
    @Override
    XADataSource xaDataSource() throws SQLException {
        return JdbcDialects.forUrl(url)
                .xa()
                .driver(url, XaFirebirdBackend.class.getClassLoader())
                .orElseThrow()
                .create(url, connectionProperties(), "eosink-test");
    }

    /** As SYSDBA, autocommit, its READ COMMITTED transactions ignoring limbo (see the class comment). */
    @Override
    public Connection connect() throws SQLException {
        Connection c = admin(url);
        try {
            FirebirdConnection firebirdConnection = c.unwrap(FirebirdConnection.class);
            TransactionParameterBuffer tpb =
                    firebirdConnection.getTransactionParameters(Connection.TRANSACTION_READ_COMMITTED);
            tpb.addArgument(TpbItems.isc_tpb_ignore_limbo);
            firebirdConnection.setTransactionParameters(Connection.TRANSACTION_READ_COMMITTED, tpb);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    @Override
    public void createTable(String table) {
        execute("CREATE TABLE " + table + " (id BIGINT NOT NULL, payload VARCHAR(100) NOT NULL)");
        execute("GRANT SELECT, INSERT ON " + table + " TO USER " + FirebirdFixture.SINK_USER);
    }

    /** The sink's marker rows, by its own quoted names. */
    @Override
    public Map<TransactionId, Long> committed(String sinkId) {
        Map<TransactionId, Long> committed = new HashMap<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT \"gid\", \"row_count\" FROM \"" + MARKERS + "\" WHERE \"sink_id\" = ?")) {
            s.setString(1, sinkId);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    committed.put(TransactionId.parse(rs.getString(1)).orElseThrow(), rs.getLong(2));
                }
            }
            return committed;
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + name() + ": the marker rows of " + sinkId, e);
        }
    }

    /** Ends the sessions as SYSDBA ({@code DELETE FROM MON$ATTACHMENTS}): the sink's user may not. */
    @Override
    public int cutSessions(String sinkId, SessionScope scope) {
        try (Connection c = connect();
                PreparedStatement s =
                        c.prepareStatement("DELETE FROM MON$ATTACHMENTS WHERE MON$REMOTE_PROCESS LIKE ?")) {
            s.setString(1, sessionNames(sinkId, scope));
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + name() + ": ending the sessions of " + sinkId, e);
        }
    }

    @Override
    public long openSessions(String sinkId) {
        return count(
                "SELECT count(*) FROM MON$ATTACHMENTS WHERE MON$REMOTE_PROCESS LIKE ?",
                sessionNames(sinkId, SessionScope.all()));
    }

    /** Jaybird's {@code op_prepare2} carries the Xid as {@link #jaybirdXid}; nothing the writer sends before does. */
    @Override
    public String prepareRequest(TransactionId id) {
        return jaybirdXid(id);
    }

    /**
     * Jaybird commits a branch its connection did not prepare on a connection it opens for that commit (through the
     * same URL, so through a proxy too): it first looks up the branch's Firebird transaction by its Xid ({@code
     * RDB$TRANSACTIONS}, the Xid as {@link #jaybirdXid} bound as the parameter), then reconnects to it and commits.
     * The lookup is the first request of the commit that names the branch (measured: held, the commit fails).
     */
    @Override
    public String commitRequest(TransactionId id) {
        return jaybirdXid(id);
    }

    /**
     * The Xid of {@code id} as Jaybird 6 writes it (its {@code FBXid}): byte 1, byte 5, the format id (4 bytes,
     * big-endian), byte 6, the length (4 bytes) and bytes of the global transaction id, byte 4, the length and bytes
     * of the branch qualifier; every byte below 128 for the sink's Xids, so one character each.
     */
    static String jaybirdXid(TransactionId id) {
        Xid xid = XaIds.toXid(id);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(1);
        out.write(5);
        int4(out, xid.getFormatId());
        out.write(6);
        int4(out, xid.getGlobalTransactionId().length);
        out.writeBytes(xid.getGlobalTransactionId());
        out.write(4);
        int4(out, xid.getBranchQualifier().length);
        out.writeBytes(xid.getBranchQualifier());
        byte[] bytes = out.toByteArray();
        for (byte b : bytes) {
            if (b < 0) {
                throw new IllegalStateException("a byte of 128 or more in the Xid of " + id);
            }
        }
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static void int4(ByteArrayOutputStream out, int value) {
        out.write(value >>> 24);
        out.write(value >>> 16);
        out.write(value >>> 8);
        out.write(value);
    }

    @Override
    String dialectName() {
        return "Firebird";
    }

    /** Jaybird's connection starts the next branch after a prepare; the branch is no longer its. */
    @Override
    boolean keepsPreparedBranchAttached() {
        return false;
    }

    @Override
    String sinkPassword() {
        return FirebirdFixture.SINK_PASSWORD;
    }

    @Override
    public OwnServer startOwnServer() {
        FirebirdFixture own = FirebirdFixture.start();
        String ownUrl;
        try {
            ownUrl = database(own);
        } catch (RuntimeException e) {
            own.close();
            throw e;
        }
        return new OwnServer() {
            @Override
            public HardCaseBackend backend() {
                return new XaFirebirdBackend(own, ownUrl);
            }

            @Override
            public void crash() {
                own.kill();
            }

            @Override
            public void restart() {
                own.restart();
            }

            @Override
            public void stall(Duration pause) {
                own.stall(pause);
            }

            @Override
            public void close() {
                own.close();
            }
        };
    }

    @Override
    public String toString() {
        return name() + " on " + firebird;
    }
}
