/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import org.apache.flink.annotation.Internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Small statement runners the dialects share. */
@Internal
public final class Sql {

    private Sql() {}

    /** Runs a query with parameters and returns the first column of its first row, or null without rows. */
    public static Object single(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getObject(1) : null;
            }
        }
    }

    /** Runs a statement without parameters. */
    public static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
