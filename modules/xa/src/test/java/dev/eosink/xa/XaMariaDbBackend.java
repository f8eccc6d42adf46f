/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.hardcases.HardCaseBackend;
import dev.eosink.testing.hardcases.KeyedResource;
import dev.eosink.testing.hardcases.SessionScope;
import dev.eosink.testing.hardcases.SinkSpec;
import dev.eosink.testing.records.UpsertRecords.KeyFunction;
import dev.eosink.testing.records.UpsertRecords.KindFunction;
import dev.eosink.xa.internal.XaIds;

import org.mariadb.jdbc.MariaDbDataSource;

import com.mysql.cj.jdbc.MysqlXADataSource;

import javax.sql.XADataSource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Properties;

/**
 * MariaDB: the fixture's own mariadbd (or EOSINK_TEST_MARIADB_URL); the sink connects as a
 * least-privileged user. The server shows sessions by user only (the sink's program_name needs the
 * performance schema), so cutting sessions ends every one of the sink's user. Its changelog sink ({@link
 * KeyedResource}) upserts by {@code INSERT ... ON DUPLICATE KEY UPDATE}. Public, and in this module's test jar
 * (with {@link XaBackend}), for the explorer suite of eosink-admin.
 */
public final class XaMariaDbBackend extends XaBackend implements KeyedResource {

    private final MariaDbFixture db;
    /** Whether the sink reaches the server by {@code jdbc:mysql:} URLs, through MySQL Connector/J. */
    private final boolean mysqlDriver;

    /** The shared server of the tests. */
    public XaMariaDbBackend() {
        this(MariaDbFixture.get(), false);
    }

    XaMariaDbBackend(MariaDbFixture db) {
        this(db, false);
    }

    private XaMariaDbBackend(MariaDbFixture db, boolean mysqlDriver) {
        this.db = db;
        this.mysqlDriver = mysqlDriver;
    }

    /**
     * The shared server, which the sink and the hard cases' own XA connections reach by {@code jdbc:mysql:} URLs
     * through MySQL Connector/J's XA data source (the dialect's driver for such URLs when it is on the class path):
     * the MySQL driver's XA path, on MariaDB.
     */
    static XaMariaDbBackend throughMySqlConnectorJ() {
        return new XaMariaDbBackend(MariaDbFixture.get(), true);
    }

    @Override
    public String name() {
        return mysqlDriver ? "MariaDB (XA, MySQL Connector/J)" : "MariaDB (XA)";
    }

    @Override
    public Optional<KeyedResource> keyed() {
        return Optional.of(this);
    }

    @Override
    public ExactlyOnceSink<Long> changelogSink(SinkSpec spec, KeyFunction key, KindFunction kind, Method method) {
        if (method != Method.STATEMENTS) {
            throw new IllegalArgumentException(name() + " writes a changelog by statements only, not by " + method);
        }
        XaSinkBuilder<Long> builder = connect(
                        XaSink.<Long>builder(), spec.jdbcUrl().orElse(jdbcUrl()))
                .sinkId(spec.sinkId())
                .table(spec.table())
                .columns("k", "v")
                .rows(i -> new Object[] {key.of(i), i})
                .upsert("k")
                .changelog(kind::of)
                .batchSize(spec.batchSize())
                .claimWait(spec.claimWait())
                .commitRetryBackoff(spec.commitRetryBackoff());
        spec.leftoverPolicy().ifPresent(builder::leftoverPolicy);
        spec.rewindPolicy().ifPresent(builder::rewindPolicy);
        return builder.build();
    }

    /** The sink's user may update (and, as everywhere in the database, delete): an upsert sink needs both. */
    @Override
    public void createKeyedTarget(String target) {
        execute("CREATE TABLE " + target + " (k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB");
        execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + target + " TO '" + MariaDbFixture.SINK_USER
                + "'@'%'");
    }

    @Override
    XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder, String url) {
        return builder.jdbcUrl(url).username(MariaDbFixture.SINK_USER).password(MariaDbFixture.SINK_PASSWORD);
    }

    @Override
    public String jdbcUrl() {
        return mysqlDriver ? db.jdbcUrl().replaceFirst("^jdbc:mariadb:", "jdbc:mysql:") : db.jdbcUrl();
    }

    @Override
    public Properties connectionProperties() {
        Properties properties = new Properties();
        properties.setProperty("user", MariaDbFixture.SINK_USER);
        properties.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        return properties;
    }

    @Override
    XADataSource xaDataSource() throws SQLException {
        if (mysqlDriver) {
            MysqlXADataSource mysql = new MysqlXADataSource();
            mysql.setUrl(jdbcUrl());
            mysql.setUser(MariaDbFixture.SINK_USER);
            mysql.setPassword(MariaDbFixture.SINK_PASSWORD);
            return mysql;
        }
        MariaDbDataSource ds = new MariaDbDataSource(db.jdbcUrl());
        ds.setUser(MariaDbFixture.SINK_USER);
        ds.setPassword(MariaDbFixture.SINK_PASSWORD);
        return ds;
    }

    @Override
    public Connection connect() throws SQLException {
        return db.connect();
    }

    @Override
    public void createTable(String table) {
        execute("CREATE TABLE " + table + " (id BIGINT NOT NULL, payload VARCHAR(100) NOT NULL) ENGINE=InnoDB");
    }

    @Override
    public int cutSessions(String sinkId, SessionScope scope) {
        if (!db.showsProgramNames()) {
            throw new IllegalStateException(db + " does not show connection attributes, by which the "
                    + "tests find the sink's sessions: start it with --performance-schema=ON");
        }
        return db.killSessionsNamed(sessionNames(sinkId, scope));
    }

    @Override
    public long openSessions(String sinkId) {
        return db.count("SELECT count(*) FROM information_schema.PROCESSLIST WHERE USER = ?", MariaDbFixture.SINK_USER);
    }

    @Override
    public String prepareRequest(TransactionId id) {
        return "XA PREPARE"; // Connector/J: XA PREPARE 0x<gtrid>,0x<bqual>,<formatId>
    }

    /**
     * MariaDB Connector/J writes an Xid as {@code 0x<gtrid>,0x<bqual>,0x<formatId>}: the two ids in upper-case
     * hex, the format id in lower case; MySQL Connector/J writes all three in lower case.
     */
    @Override
    public String commitRequest(TransactionId id) {
        Xid xid = XaIds.toXid(id);
        HexFormat hex = mysqlDriver ? HexFormat.of() : HexFormat.of().withUpperCase();
        return "XA COMMIT 0x" + hex.formatHex(xid.getGlobalTransactionId())
                + ",0x" + hex.formatHex(xid.getBranchQualifier())
                + ",0x" + Integer.toHexString(xid.getFormatId());
    }

    @Override
    String dialectName() {
        return "MariaDB";
    }

    @Override
    boolean keepsPreparedBranchAttached() {
        return true;
    }

    @Override
    String sinkPassword() {
        return MariaDbFixture.SINK_PASSWORD;
    }

    @Override
    public OwnServer startOwnServer() {
        MariaDbFixture own = MariaDbFixture.startNew();
        return new OwnServer() {
            @Override
            public HardCaseBackend backend() {
                return new XaMariaDbBackend(own);
            }

            @Override
            public void crash() {
                own.crash();
            }

            @Override
            public void restart() {
                own.restart();
            }

            @Override
            public void stall(java.time.Duration pause) {
                own.stall(pause);
            }

            @Override
            public void close() {
                own.close();
            }
        };
    }
}
