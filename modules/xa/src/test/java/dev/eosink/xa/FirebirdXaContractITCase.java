/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.FirebirdFixture;

import org.firebirdsql.ds.FBXADataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The XA contract the sink needs, on Firebird 3 (Debian's package, {@link FirebirdFixture}) through Jaybird's {@link
 * FBXADataSource}: a branch prepared with {@code XAResource.prepare} survives a SIGKILL of the server and a restart,
 * is listed by {@code recover} on a new connection under the very Xid it was given (format id, gtrid and bqual
 * bytes), and is committed or rolled back from that connection; its rows are invisible before the commit and
 * visible after.
 *
 * <p>What Firebird makes of a prepared branch, which the assertions pin down: a prepared transaction whose
 * attachment is gone (closed, or the server restarted) is "in limbo", and a reader that meets one of its records
 * fails with {@code isc_rec_in_limbo} (335544459, "record from transaction N is stuck in limbo") unless its
 * transaction ignores limbo ({@code isc_tpb_ignore_limbo}), when it reads past the record. So "invisible" is asserted
 * with a reader that ignores limbo, and the default reader's refusal is asserted too: a sink's marker check on
 * Firebird sees a branch still prepared as that error. A branch committed or rolled back from another connection
 * stays in {@code RDB$TRANSACTIONS} (state 2 or 3), and Jaybird's {@code recover} goes on listing it.
 */
class FirebirdXaContractITCase {

    /** isc_rec_in_limbo: a reader met a record of a transaction in limbo. */
    private static final int REC_IN_LIMBO = 335544459;
    /** The sink's format id ("ESK1"); gtrid and bqual as the sink builds them, with bytes outside ASCII. */
    private static final int FORMAT_ID = 0x45534B31;

    private static FirebirdFixture firebird;

    private String database;

    @BeforeAll
    static void startServer() {
        firebird = FirebirdFixture.start();
    }

    @AfterAll
    static void stopServer() {
        if (firebird != null) {
            firebird.close();
        }
    }

    /** A database of its own per test, so that {@code recover}, which lists the whole database, lists its own. */
    @BeforeEach
    void createDatabase(TestInfo test) throws SQLException {
        database = test.getTestMethod().orElseThrow().getName().replaceAll("[^A-Za-z0-9]", "_");
        firebird.createDatabase(database);
        try (Connection c = connect(false);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE target (id INTEGER NOT NULL PRIMARY KEY, v VARCHAR(20))");
            // The sink's user writes and recovers: it needs no privilege for recover, only for its tables.
            s.execute("GRANT SELECT, INSERT, DELETE ON target TO " + FirebirdFixture.SINK_USER);
        }
    }

    @Test
    void aPreparedBranchSurvivesSigkillAndCommitsFromANewConnection() throws Exception {
        Xid xid = xid("eos1/orders/0/7/abcdefgh1234", new byte[] {0, 1, (byte) 0xff, 'w'});
        XAConnection preparer = dataSource().getXAConnection();
        assertThat(prepare(preparer, xid, 1, 2, 3)).isEqualTo(XAResource.XA_OK);
        // The preparing attachment lives: a reader passes over the prepared rows without an error.
        assertThat(count(false)).isZero();

        firebird.kill();
        firebird.restart();
        closeQuietly(preparer);

        XAConnection recovery = dataSource().getXAConnection();
        try {
            assertThat(recover(recovery)).containsExactly(describe(xid));
            assertInvisibleInLimbo();

            recovery.getXAResource().commit(xid, false);
            assertThat(count(false)).isEqualTo(3);
            assertThat(ids()).containsExactly(1, 2, 3);
        } finally {
            recovery.close();
        }
    }

    @Test
    void aPreparedBranchSurvivesSigkillAndRollsBackFromANewConnection() throws Exception {
        Xid xid = xid("eos1/orders/1/8/abcdefgh5678", new byte[] {(byte) 0x80, 2});
        XAConnection preparer = dataSource().getXAConnection();
        assertThat(prepare(preparer, xid, 10, 11)).isEqualTo(XAResource.XA_OK);

        firebird.kill();
        firebird.restart();
        closeQuietly(preparer);

        XAConnection recovery = dataSource().getXAConnection();
        try {
            assertThat(recover(recovery)).containsExactly(describe(xid));
            assertInvisibleInLimbo();

            recovery.getXAResource().rollback(xid);
            // Rolled back: no limbo record is left for the default reader to trip on, and no row.
            assertThat(count(false)).isZero();
            assertThat(count(true)).isZero();
        } finally {
            recovery.close();
        }
    }

    @Test
    void twoBranchesPreparedAtOnceAreListedAndResolvedApart() throws Exception {
        Xid first = xid("eos1/orders/0/9/abcdefgh0001", new byte[] {0});
        Xid second = xid("eos1/orders/1/9/abcdefgh0002", new byte[] {1});
        XAConnection a = dataSource().getXAConnection();
        XAConnection b = dataSource().getXAConnection();
        assertThat(prepare(a, first, 1, 2)).isEqualTo(XAResource.XA_OK);
        assertThat(prepare(b, second, 3, 4, 5)).isEqualTo(XAResource.XA_OK);

        firebird.kill();
        firebird.restart();
        closeQuietly(a);
        closeQuietly(b);

        XAConnection recovery = dataSource().getXAConnection();
        try {
            assertThat(recover(recovery)).containsExactlyInAnyOrder(describe(first), describe(second));
            assertInvisibleInLimbo();

            recovery.getXAResource().commit(first, false);
            recovery.getXAResource().rollback(second);
            assertThat(count(false)).isEqualTo(2);
            assertThat(ids()).containsExactly(1, 2);
        } finally {
            recovery.close();
        }
    }

    @Test
    void aBranchPreparedThenItsConnectionClosedIsStillListed() throws Exception {
        Xid xid = xid("eos1/orders/2/3/abcdefgh9999", new byte[] {7, 7});
        XAConnection preparer = dataSource().getXAConnection();
        assertThat(prepare(preparer, xid, 20, 21, 22)).isEqualTo(XAResource.XA_OK);
        preparer.close();

        XAConnection recovery = dataSource().getXAConnection();
        try {
            assertThat(recover(recovery)).containsExactly(describe(xid));
            assertInvisibleInLimbo();

            recovery.getXAResource().commit(xid, false);
            assertThat(count(false)).isEqualTo(3);
            assertThat(ids()).containsExactly(20, 21, 22);
        } finally {
            recovery.close();
        }
    }

    /**
     * What a dialect has to handle after a commit from another connection: the branch is still listed (its row in
     * {@code RDB$TRANSACTIONS} stays, with state 2, committed), and a second commit is refused as heuristically
     * completed ({@code XA_HEURCOM}, "transaction is not in limbo"), not as unknown ({@code XAER_NOTA}).
     */
    @Test
    void aBranchCommittedFromAnotherConnectionStaysListed() throws Exception {
        Xid xid = xid("eos1/orders/3/4/abcdefgh4444", new byte[] {4});
        XAConnection preparer = dataSource().getXAConnection();
        assertThat(prepare(preparer, xid, 30)).isEqualTo(XAResource.XA_OK);
        preparer.close();

        XAConnection recovery = dataSource().getXAConnection();
        try {
            recovery.getXAResource().commit(xid, false);
            assertThat(count(false)).isEqualTo(1);
            assertThat(recover(recovery)).containsExactly(describe(xid));
            assertThat(count("SELECT COUNT(*) FROM RDB$TRANSACTIONS WHERE RDB$TRANSACTION_STATE = 2"))
                    .isEqualTo(1);
            assertThat(count("SELECT COUNT(*) FROM RDB$TRANSACTIONS WHERE RDB$TRANSACTION_STATE = 1"))
                    .isZero();
            assertThatThrownBy(() -> recovery.getXAResource().commit(xid, false))
                    .isInstanceOfSatisfying(
                            XAException.class, e -> assertThat(e.errorCode).isEqualTo(XAException.XA_HEURCOM));
        } finally {
            recovery.close();
        }
    }

    /**
     * Before its commit, a branch's rows are invisible to a reader that ignores limbo, and refused to one that does
     * not.
     */
    private void assertInvisibleInLimbo() throws SQLException {
        assertThat(count(true)).isZero();
        assertThatThrownBy(() -> count(false))
                .isInstanceOfSatisfying(
                        SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(REC_IN_LIMBO));
    }

    /** Starts {@code xid} on {@code c}, inserts the rows {@code ids} as the sink's user, ends and prepares it. */
    private static int prepare(XAConnection c, Xid xid, int... ids) throws Exception {
        XAResource resource = c.getXAResource();
        resource.start(xid, XAResource.TMNOFLAGS);
        try (PreparedStatement insert =
                c.getConnection().prepareStatement("INSERT INTO target (id, v) VALUES (?, ?)")) {
            for (int id : ids) {
                insert.setInt(1, id);
                insert.setString(2, "row " + id);
                insert.addBatch();
            }
            assertThat(insert.executeBatch()).hasSize(ids.length).containsOnly(1);
        }
        resource.end(xid, XAResource.TMSUCCESS);
        return resource.prepare(xid);
    }

    /** Every branch {@code recover} lists, as text, in one scan. */
    private static List<String> recover(XAConnection c) throws XAException, SQLException {
        List<String> all = new ArrayList<>();
        for (Xid x : c.getXAResource().recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)) {
            all.add(describe(x));
        }
        return all;
    }

    private static String describe(Xid x) {
        return x.getFormatId() + "/" + Arrays.toString(x.getGlobalTransactionId()) + "/"
                + Arrays.toString(x.getBranchQualifier());
    }

    /** The sink's user, as the sink would connect. */
    private FBXADataSource dataSource() throws SQLException {
        FBXADataSource ds = new FBXADataSource();
        ds.setServerName(firebird.host());
        ds.setPortNumber(firebird.port());
        ds.setDatabaseName(firebird.databasePath(database));
        ds.setUser(FirebirdFixture.SINK_USER);
        ds.setPassword(FirebirdFixture.SINK_PASSWORD);
        return ds;
    }

    /**
     * The administrator's connection (autocommit, READ COMMITTED); {@code ignoreLimbo} gives its read committed
     * transactions {@code isc_tpb_ignore_limbo}, which Jaybird takes as the TPB of that isolation level.
     */
    private Connection connect(boolean ignoreLimbo) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.ADMIN_USER);
        p.setProperty("password", FirebirdFixture.ADMIN_PASSWORD);
        if (ignoreLimbo) {
            p.setProperty(
                    "TRANSACTION_READ_COMMITTED",
                    "isc_tpb_read_committed,isc_tpb_rec_version,isc_tpb_write,isc_tpb_nowait,isc_tpb_ignore_limbo");
        }
        return DriverManager.getConnection(firebird.url(database), p);
    }

    private long count(boolean ignoreLimbo) throws SQLException {
        try (Connection c = connect(ignoreLimbo);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM target")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection c = connect(false);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private List<Integer> ids() throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (Connection c = connect(false);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM target ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
        }
        return ids;
    }

    /** A connection to a killed server: Jaybird fails its detach, which changes nothing. */
    private static void closeQuietly(XAConnection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // the server it talked to is gone
        }
    }

    private static Xid xid(String gtrid, byte[] bqual) {
        return new TestXid(FORMAT_ID, gtrid.getBytes(StandardCharsets.US_ASCII), bqual);
    }

    private static final class TestXid implements Xid {
        private final int formatId;
        private final byte[] gtrid;
        private final byte[] bqual;

        TestXid(int formatId, byte[] gtrid, byte[] bqual) {
            this.formatId = formatId;
            this.gtrid = gtrid.clone();
            this.bqual = bqual.clone();
        }

        @Override
        public int getFormatId() {
            return formatId;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return gtrid.clone();
        }

        @Override
        public byte[] getBranchQualifier() {
            return bqual.clone();
        }
    }
}
