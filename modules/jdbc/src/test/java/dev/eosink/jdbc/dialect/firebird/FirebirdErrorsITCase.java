/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.testing.FirebirdFixture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FirebirdErrors#rejectsRecord} on a key that a prepared branch (an orphan of an earlier attempt, not yet rolled
 * back: Firebird has no branch lock) also inserted: no refusal of the record, so that the dead-letter path ({@code
 * XaDeadLetters.rejects}: any exception of the chain that {@code rejectsRecord}) does not keep it, since the orphan
 * is rolled back later and the record would then be in the dead-letter table only. A duplicate of a committed key
 * fails the same way (the price: dead letters on Firebird keep no duplicates), a record's own data is still refused.
 */
class FirebirdErrorsITCase {

    private static FirebirdFixture firebird;
    private static String url;
    private final JdbcDialect dialect = JdbcDialects.forUrl("jdbc:firebird://h:1/x");

    @BeforeAll
    static void start() throws Exception {
        firebird = FirebirdFixture.start();
        firebird.createDatabase("breake");
        url = firebird.url("breake");
        Properties p = admin();
        p.setProperty("encoding", "UTF8");
        try (Connection c = DriverManager.getConnection(url, p);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE T (ID BIGINT NOT NULL PRIMARY KEY)");
            s.execute("CREATE TABLE U (ID BIGINT NOT NULL, V VARCHAR(3), CONSTRAINT POS CHECK (ID >= 0))");
            s.execute("CREATE UNIQUE INDEX U_ID ON U (ID)");
            s.execute("INSERT INTO T (ID) VALUES (100)");
            s.execute("INSERT INTO U (ID) VALUES (100)");
        }
    }

    @AfterAll
    static void stop() {
        if (firebird != null) {
            firebird.close();
        }
    }

    private static Properties admin() {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.ADMIN_USER);
        p.setProperty("password", FirebirdFixture.ADMIN_PASSWORD);
        return p;
    }

    private XADataSource dataSource() throws SQLException {
        return dialect.xa()
                .driver(url, getClass().getClassLoader())
                .orElseThrow()
                .create(url, admin(), "break", Duration.ofSeconds(1));
    }

    private static Xid xid(String gtrid) {
        byte[] g = gtrid.getBytes(StandardCharsets.US_ASCII);
        return new Xid() {
            @Override
            public int getFormatId() {
                return 0x45534B31;
            }

            @Override
            public byte[] getGlobalTransactionId() {
                return g.clone();
            }

            @Override
            public byte[] getBranchQualifier() {
                return new byte[] {1};
            }
        };
    }

    /** The replay's insert, in a branch as the writer's, of the key the orphan holds; its failure. */
    private SQLException insertInABranch(XADataSource ds, long id, String gtrid) throws Exception {
        XAConnection writer = ds.getXAConnection();
        try {
            Xid xid = xid(gtrid);
            writer.getXAResource().start(xid, XAResource.TMNOFLAGS);
            try (PreparedStatement s = writer.getConnection().prepareStatement("INSERT INTO T (ID) VALUES (?)")) {
                s.setLong(1, id);
                s.executeUpdate();
                return null;
            } catch (SQLException e) {
                return e;
            } finally {
                try {
                    writer.getXAResource().end(xid, XAResource.TMFAIL);
                    writer.getXAResource().rollback(xid);
                } catch (javax.transaction.xa.XAException ignored) {
                    // Jaybird ended the branch on the failure already
                }
            }
        } finally {
            writer.close();
        }
    }

    private static String describe(SQLException e) {
        return ErrorKinds.chain(e).stream()
                .map(x -> x.getClass().getSimpleName() + "[" + x.getSQLState() + "/" + x.getErrorCode() + "] "
                        + x.getMessage())
                .collect(Collectors.joining(" | "));
    }

    private void orphanPrepares(XAConnection orphan, long id, String gtrid) throws Exception {
        Xid xid = xid(gtrid);
        orphan.getXAResource().start(xid, XAResource.TMNOFLAGS);
        try (PreparedStatement s = orphan.getConnection().prepareStatement("INSERT INTO T (ID) VALUES (?)")) {
            s.setLong(1, id);
            s.executeUpdate();
        }
        orphan.getXAResource().end(xid, XAResource.TMSUCCESS);
        orphan.getXAResource().prepare(xid);
    }

    /** The orphan's session still alive (its TaskManager dying, its PREPARE just done). */
    @Test
    void aKeyOfABranchPreparedByALiveSessionIsNoRefusedRecord() throws Exception {
        XADataSource ds = dataSource();
        XAConnection orphan = ds.getXAConnection();
        try {
            orphanPrepares(orphan, 1, "eos1/orphan/0/1/a");
            SQLException e = insertInABranch(ds, 1, "eos1/replay/0/1/b");
            assertThat((Object) e).as("the replay's insert fails").isNotNull();
            assertThat(ErrorKinds.chain(e).stream().anyMatch(dialect.errors()::rejectsRecord))
                    .as("kept as a refused record (dead letter): " + describe(e))
                    .isFalse();
        } finally {
            orphan.getXAResource().rollback(xid("eos1/orphan/0/1/a"));
            orphan.close();
        }
    }

    /** The orphan's session gone: the branch is in limbo. */
    @Test
    void aKeyOfABranchInLimboIsNoRefusedRecord() throws Exception {
        XADataSource ds = dataSource();
        XAConnection orphan = ds.getXAConnection();
        orphanPrepares(orphan, 2, "eos1/orphan/0/2/a");
        orphan.close();
        try {
            SQLException e = insertInABranch(ds, 2, "eos1/replay/0/2/b");
            assertThat((Object) e).as("the replay's insert fails").isNotNull();
            assertThat(ErrorKinds.chain(e).stream().anyMatch(dialect.errors()::rejectsRecord))
                    .as("kept as a refused record (dead letter): " + describe(e))
                    .isFalse();
        } finally {
            XAConnection resolver = ds.getXAConnection();
            try {
                resolver.getXAResource().rollback(xid("eos1/orphan/0/2/a"));
            } finally {
                resolver.close();
            }
        }
    }

    /**
     * A duplicate of a committed key reads as the live orphan's does (23000 / 335544665 from a PRIMARY KEY,
     * 335544349 from a unique index without a constraint): no refused record either, the epoch fails. A NULL, a
     * CHECK and a value too long are still the record's.
     */
    @Test
    void aDuplicateOfACommittedKeyIsNoRefusedRecordButTheRecordsOwnDataIs() throws Exception {
        XADataSource ds = dataSource();
        SQLException primary = insertInABranch(ds, 100, "eos1/dup/0/1/a");
        assertThat((Object) primary).as("the duplicate's insert fails").isNotNull();
        assertThat(primary.getErrorCode()).isEqualTo(FirebirdErrors.UNIQUE_KEY_VIOLATION);
        assertThat(ErrorKinds.chain(primary).stream().anyMatch(dialect.errors()::rejectsRecord))
                .as("kept as a refused record (dead letter): " + describe(primary))
                .isFalse();
        Properties p = admin();
        p.setProperty("encoding", "UTF8");
        try (Connection c = DriverManager.getConnection(url, p)) {
            SQLException index = update(c, "INSERT INTO U (ID) VALUES (100)");
            assertThat(index.getErrorCode()).as(describe(index)).isEqualTo(FirebirdErrors.DUPLICATE_IN_UNIQUE_INDEX);
            assertThat(ErrorKinds.chain(index).stream().anyMatch(dialect.errors()::rejectsRecord))
                    .as(describe(index))
                    .isFalse();
            for (String own : List.of(
                    "INSERT INTO U (ID) VALUES (NULL)",
                    "INSERT INTO U (ID) VALUES (-1)",
                    "INSERT INTO U (ID, V) VALUES (1, 'long')")) {
                SQLException e = update(c, own);
                assertThat((Object) e).as(own).isNotNull();
                assertThat(ErrorKinds.chain(e).stream().anyMatch(dialect.errors()::rejectsRecord))
                        .as(own + ": " + describe(e))
                        .isTrue();
            }
        }
    }

    private static SQLException update(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.executeUpdate(sql);
            return null;
        } catch (SQLException e) {
            return e;
        }
    }
}
