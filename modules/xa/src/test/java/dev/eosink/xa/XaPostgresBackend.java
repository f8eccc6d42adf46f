/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.hardcases.SessionScope;
import dev.eosink.xa.internal.XaIds;

import org.postgresql.xa.PGXADataSource;

import javax.sql.XADataSource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Base64;
import java.util.Map;
import java.util.Properties;

/** PostgreSQL through pgjdbc's PGXADataSource; sessions named "eosink-xa/&lt;sinkId&gt;/&lt;subtask&gt;/&lt;role&gt;". */
final class XaPostgresBackend extends XaBackend {

    private final PostgresFixture db;

    XaPostgresBackend() {
        this(PostgresFixture.get());
    }

    XaPostgresBackend(PostgresFixture db) {
        this.db = db;
    }

    @Override
    public String name() {
        return "PostgreSQL (XA)";
    }

    @Override
    XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder, String url) {
        builder.jdbcUrl(url).username(db.user());
        return db.password().isEmpty() ? builder : builder.password(db.password());
    }

    @Override
    public String jdbcUrl() {
        return db.jdbcUrl();
    }

    @Override
    public Properties connectionProperties() {
        return db.connectionProperties();
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
    public Connection connect() throws SQLException {
        return db.connect();
    }

    @Override
    public void createTable(String table) {
        execute("CREATE TABLE " + table + " (id bigint NOT NULL, payload text NOT NULL)");
    }

    @Override
    public int cutSessions(String sinkId, SessionScope scope) {
        return db.terminateBackends(sessionNames(sinkId, scope));
    }

    @Override
    public long openSessions(String sinkId) {
        return db.count(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ?", "eosink-xa/" + sinkId + "/%");
    }

    @Override
    public String prepareRequest(TransactionId id) {
        return "PREPARE TRANSACTION"; // pgjdbc: PREPARE TRANSACTION '<gid>'
    }

    /** pgjdbc names an Xid's transaction {@code <formatId>_<base64 gtrid>_<base64 bqual>}. */
    @Override
    public String commitRequest(TransactionId id) {
        Xid xid = XaIds.toXid(id);
        return "COMMIT PREPARED '" + xid.getFormatId() + "_"
                + Base64.getEncoder().encodeToString(xid.getGlobalTransactionId()) + "_"
                + Base64.getEncoder().encodeToString(xid.getBranchQualifier()) + "'";
    }

    @Override
    String dialectName() {
        return "PostgreSQL";
    }

    @Override
    boolean keepsPreparedBranchAttached() {
        return false;
    }

    @Override
    String sinkPassword() {
        return db.password();
    }

    @Override
    public OwnServer startOwnServer() {
        return OwnServer.of(PostgresFixture.startNew(Map.of()), XaPostgresBackend::new);
    }
}
