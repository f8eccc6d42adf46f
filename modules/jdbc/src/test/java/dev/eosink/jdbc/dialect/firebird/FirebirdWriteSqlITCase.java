/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.FirebirdFixture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link FirebirdWriteSql}'s statements of many rows as the XA sink sends them ({@code XaKeyedStatements}: at most
 * {@link FirebirdWriteSql#maxRowsPerStatement()} rows per statement, and by the values' bytes, so that a table of wide
 * columns with short values gets the most rows per statement). Each row's parameters take their column's declared
 * width ({@code TYPE OF COLUMN}) in the statement's input message, whatever the value; each row's statement takes
 * contexts of Firebird's 256 per request.
 */
class FirebirdWriteSqlITCase {

    private static FirebirdFixture firebird;
    private static String url;
    private final JdbcDialect dialect = JdbcDialects.forUrl("jdbc:firebird://h:1/x");

    @BeforeAll
    static void start() {
        firebird = FirebirdFixture.start();
        firebird.createDatabase("writesql");
        url = firebird.url("writesql");
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
    @ValueSource(ints = {2, 10, 80, 100, 127, 128, 200, 255, 256, 700})
    void anUpsertOfSeveralRowsIntoAWideTextColumnRuns(int rows) throws Exception {
        String table = "WIDE" + rows;
        assertThat(rowsRun(
                        table,
                        rows,
                        n -> dialect.writes()
                                .upsertSql(new SqlIdentifier(null, table), List.of("ID", "PAYLOAD"), List.of("ID"), n)
                                .orElseThrow()))
                .isEqualTo(rows);
    }

    /** The insert of many rows, an {@code EXECUTE BLOCK} of one INSERT per row, into the same kind of table. */
    @ParameterizedTest(name = "{0} rows")
    @ValueSource(ints = {2, 80, 81, 256, 257, 700, 1000})
    void anInsertOfSeveralRowsIntoAWideTextColumnRuns(int rows) throws Exception {
        String table = "INS" + rows;
        assertThat(rowsRun(
                        table,
                        rows,
                        n -> dialect.writes().insertSql(new SqlIdentifier(null, table), List.of("ID", "PAYLOAD"), n)))
                .isEqualTo(rows);
    }

    /** More rows than Firebird's contexts allow are refused before they reach the server, by the bound's name. */
    @Test
    void aStatementOfMoreRowsThanTheBoundIsRefused() {
        WriteSql writes = dialect.writes();
        assertThat(writes.maxRowsPerStatement()).isEqualTo(80);
        SqlIdentifier table = new SqlIdentifier(null, "T");
        assertThatThrownBy(() -> writes.upsertSql(table, List.of("ID"), List.of("ID"), 81))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxRowsPerStatement()");
        assertThatThrownBy(() -> writes.insertSql(table, List.of("ID"), 700))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 80 rows");
    }

    /**
     * {@code UPDATE OR INSERT ... MATCHING} looks up the upsert key alone: a new key whose value another unique key's
     * row holds fails with that key's violation (what {@link FirebirdWriteSql#upsertOnOtherUniqueKeys()} warns of).
     */
    @Test
    void anUpsertMatchingAnotherUniqueKeysRowFails() throws Exception {
        try (Connection c = admin()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE TWOKEYS (ID BIGINT NOT NULL PRIMARY KEY, CODE VARCHAR(10) UNIQUE)");
                s.execute("INSERT INTO TWOKEYS (ID, CODE) VALUES (1, 'a')");
            }
            String sql = dialect.writes()
                    .upsertSql(new SqlIdentifier(null, "TWOKEYS"), List.of("ID", "CODE"), List.of("ID"), 1)
                    .orElseThrow();
            try (PreparedStatement s = c.prepareStatement(sql)) {
                s.setLong(1, 2);
                s.setString(2, "a");
                assertThatThrownBy(s::executeUpdate)
                        .isInstanceOf(SQLException.class)
                        .extracting(e -> ((SQLException) e).getErrorCode())
                        .isEqualTo(FirebirdErrors.UNIQUE_KEY_VIOLATION);
            }
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM TWOKEYS")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
        }
    }

    /**
     * Creates {@code table}, sends {@code rows} rows in statements of at most {@link WriteSql#maxRowsPerStatement()}
     * rows each, commits, and answers the rows in the table.
     */
    private long rowsRun(String table, int rows, IntFunction<String> sqlOfRows) throws Exception {
        try (Connection c = admin()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + table
                        + " (ID BIGINT NOT NULL PRIMARY KEY, PAYLOAD VARCHAR(8000) CHARACTER SET UTF8)");
            }
            c.setAutoCommit(false);
            int bound = dialect.writes().maxRowsPerStatement();
            for (int from = 0; from < rows; from += bound) {
                int n = Math.min(bound, rows - from);
                try (PreparedStatement s = c.prepareStatement(sqlOfRows.apply(n))) {
                    for (int i = 0; i < n; i++) {
                        s.setLong(2 * i + 1, from + i);
                        s.setString(2 * i + 2, "v" + (from + i));
                    }
                    assertThat(s.executeUpdate()).isEqualTo(n);
                }
            }
            c.commit();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
