/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.mariadb.MariaDbDialect;
import dev.eosink.jdbc.sql.SqlIdentifier;

import javax.sql.XAConnection;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MariaDB sessions that take long to end, for the tests of the moment in which the server has detached a
 * session's prepared branch and InnoDB has not let go of it yet ({@code MariaDbXaTraits}). The server frees
 * a session's user variables after the detach and before its GET_LOCKs, and its prepared statements after
 * the GET_LOCKs and before the session leaves the process list; InnoDB lets go last. Each widens its part
 * of that moment: on 11.4.5, 15,000 prepared statements kept an idle server 0.4-0.7 s between a session's
 * release of its GET_LOCKs and its leaving the process list.
 */
final class EndingSessions {

    /** User variables a session holds: the server frees them after the detach, before the GET_LOCKs. */
    static final int USER_VARIABLES = 200_000;

    /**
     * Server-side prepared statements a session holds: the server frees them after the GET_LOCKs, before the
     * session leaves the process list (within the server's default limit of 16,382 for all sessions).
     */
    static final int PREPARED_STATEMENTS = 15_000;

    private EndingSessions() {}

    /** Sets {@value #USER_VARIABLES} user variables in the session of {@code c}. */
    static void holdUserVariables(Connection c) throws SQLException {
        int perStatement = 2_000;
        try (Statement s = c.createStatement()) {
            for (int k = 0; k < USER_VARIABLES / perStatement; k++) {
                StringBuilder set = new StringBuilder("SET ");
                for (int i = 0; i < perStatement; i++) {
                    set.append(i == 0 ? "" : ", ")
                            .append("@v")
                            .append(k)
                            .append('_')
                            .append(i)
                            .append(" = ")
                            .append(i);
                }
                s.execute(set.toString());
            }
        }
    }

    /** Prepares {@value #PREPARED_STATEMENTS} statements of 200 parameters each in the session of {@code c}. */
    static void holdPreparedStatements(Connection c) throws SQLException {
        StringBuilder select = new StringBuilder("SELECT 1");
        for (int i = 0; i < 200; i++) {
            select.append(" + ?");
        }
        try (Statement s = c.createStatement()) {
            for (int i = 0; i < PREPARED_STATEMENTS; i++) {
                s.execute("PREPARE p" + i + " FROM '" + select + "'");
            }
        }
    }

    /** Starts, writes one row and the marker row into, ends and prepares the branch of {@code id}. */
    static void prepareWithMarker(XAConnection preparer, TransactionId id, String table) throws Exception {
        Xid xid = XaIds.toXid(id);
        XAResource xa = preparer.getXAResource();
        xa.start(xid, XAResource.TMNOFLAGS);
        try (Statement s = preparer.getConnection().createStatement()) {
            s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
        }
        try (PreparedStatement marker = preparer.getConnection()
                .prepareStatement(new MariaDbDialect()
                        .markers(new SqlIdentifier(null, "eosink_markers"))
                        .insertSql())) {
            marker.setString(1, id.toString());
            marker.setString(2, id.sinkId());
            marker.setInt(3, id.subtask());
            marker.setLong(4, id.checkpointId());
            marker.setLong(5, 1);
            marker.executeUpdate();
        }
        xa.end(xid, XAResource.TMSUCCESS);
        xa.prepare(xid);
    }
}
