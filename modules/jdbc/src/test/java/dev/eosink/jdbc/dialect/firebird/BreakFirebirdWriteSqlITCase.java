/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.FirebirdFixture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adversarial review (break-dialects): the Firebird upsert of many rows ({@link FirebirdWriteSql#upsertSql}) as the
 * XA sink's upsert path sends it ({@code XaKeyedStatements}: up to batchSize rows per statement, cut by the values'
 * bytes only, so a table of wide columns with short values gets many rows per statement). Each row's parameters take
 * their column's declared width ({@code TYPE OF COLUMN}) in the statement's input message, whatever the value.
 */
class BreakFirebirdWriteSqlITCase {

    private static FirebirdFixture firebird;
    private static String url;
    private final JdbcDialect dialect = JdbcDialects.forUrl("jdbc:firebird://h:1/x");

    @BeforeAll
    static void start() {
        firebird = FirebirdFixture.start();
        firebird.createDatabase("breakw");
        url = firebird.url("breakw");
    }

    @AfterAll
    static void stop() {
        if (firebird != null) {
            firebird.close();
        }
    }

    private static Connection admin() throws Exception {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.ADMIN_USER);
        p.setProperty("password", FirebirdFixture.ADMIN_PASSWORD);
        p.setProperty("encoding", "UTF8");
        return DriverManager.getConnection(url, p);
    }

    /** A table of one wide text column (VARCHAR(8000) in UTF8: 32,002 bytes a parameter), short values. */
    @ParameterizedTest(name = "{0} rows")
    @ValueSource(ints = {2, 10, 100, 127, 128, 200, 255, 256, 700})
    void anUpsertOfSeveralRowsIntoAWideTextColumnRuns(int rows) throws Exception {
        String table = "WIDE" + rows;
        try (Connection c = admin()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + table
                        + " (ID BIGINT NOT NULL PRIMARY KEY, PAYLOAD VARCHAR(8000) CHARACTER SET UTF8)");
            }
            String sql = dialect.writes()
                    .upsertSql(new SqlIdentifier(null, table), List.of("ID", "PAYLOAD"), List.of("ID"), rows)
                    .orElseThrow();
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement(sql)) {
                for (int i = 0; i < rows; i++) {
                    s.setLong(2 * i + 1, i);
                    s.setString(2 * i + 2, "v" + i);
                }
                s.executeUpdate();
            }
            c.commit();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(rows);
            }
        }
    }
}
