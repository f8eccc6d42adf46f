/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.core.TransactionId;
import dev.eosink.xa.XaBranchNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The few places where the demo's own SQL (table, verdict, leftovers) differs between PostgreSQL,
 * written by the PostgreSQL sink, and MariaDB, written by the XA sink. Chosen by the JDBC URL.
 */
enum DemoDatabase {
    POSTGRES,
    MARIADB;

    static DemoDatabase of(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:") ? MARIADB : POSTGRES;
    }

    static DemoDatabase of(Connection c) throws SQLException {
        return of(c.getMetaData().getURL());
    }

    String quote(String table) {
        return this == MARIADB ? '`' + table.replace("`", "``") + '`' : '"' + table.replace("\"", "\"\"") + '"';
    }

    /** A timestamp column as epoch milliseconds. MariaDB's DATETIME holds UTC here (see {@link Jobs}). */
    String epochMillis(String column) {
        return this == MARIADB
                ? "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + column + ") DIV 1000"
                : "(extract(epoch FROM " + column + ") * 1000)::bigint";
    }

    String createTableSql(String job, String table) {
        if (this == POSTGRES) {
            return Jobs.createTableSql(job, table);
        }
        if ("events".equals(job)) {
            return "CREATE TABLE " + quote(table) + " (order_id BIGINT NOT NULL, customer INT NOT NULL, "
                    + "amount_cents BIGINT NOT NULL, event_time DATETIME(3) NOT NULL) ENGINE=InnoDB";
        }
        return "CREATE TABLE " + quote(table) + " (customer INT NOT NULL, window_start DATETIME(3) NOT NULL, "
                + "window_end DATETIME(3) NOT NULL, order_count BIGINT NOT NULL, amount_cents BIGINT NOT NULL) ENGINE=InnoDB";
    }

    boolean tableMissing(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT 1 FROM " + quote(table) + " WHERE 1 = 0").close();
            return false;
        } catch (SQLException e) {
            return true;
        }
    }

    /** The sink's prepared transactions: PostgreSQL gids, or MariaDB XA branches as XA ROLLBACK arguments. */
    List<String> prepared(Connection c, String sinkId) throws SQLException {
        List<String> found = new ArrayList<>();
        if (this == POSTGRES) {
            try (PreparedStatement s =
                    c.prepareStatement("SELECT gid FROM pg_prepared_xacts WHERE starts_with(gid, ?)")) {
                s.setString(1, TransactionId.sinkPrefix(sinkId));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        found.add("'" + rs.getString(1).replace("'", "''") + "'");
                    }
                }
            }
            return found;
        }
        byte[] bqual = XaBranchNames.branchQualifier(sinkId);
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("XA RECOVER")) {
            while (rs.next()) {
                byte[] data = rs.getBytes(4);
                int gtrid = rs.getInt(2);
                byte[] branch = Arrays.copyOfRange(data, gtrid, data.length);
                if (rs.getInt(1) == XaBranchNames.FORMAT_ID && Arrays.equals(branch, bqual)) {
                    found.add("X'" + HexFormat.of().formatHex(data, 0, gtrid) + "',X'"
                            + HexFormat.of().formatHex(branch) + "'," + XaBranchNames.FORMAT_ID);
                }
            }
        }
        return found;
    }

    void rollback(Connection c, String prepared) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute((this == MARIADB ? "XA ROLLBACK " : "ROLLBACK PREPARED ") + prepared);
        }
    }
}
