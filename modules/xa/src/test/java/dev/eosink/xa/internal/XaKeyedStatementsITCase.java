/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.mariadb.MariaDbDialect;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements of many rows that the XA upserts send, on a real MariaDB: chunks of the batch size
 * and a shorter last one, rows applied in their order (a key written twice in one statement ends with
 * its second row, as the case-insensitive collation makes 'EU' and 'eu' one key), statements cut
 * below the server's packet limit, and the deletes, by a key of one column and of two. Rows hold a
 * NULL, a string, a number.
 */
class XaKeyedStatementsITCase {

    private static final MariaDbDialect DIALECT = new MariaDbDialect();

    private final MariaDbFixture db = MariaDbFixture.get();

    @Test
    void upsertsAndDeletesByOneColumnInChunks() throws Exception {
        String table = "keyed_one_" + System.nanoTime() % 100_000;
        db.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, label VARCHAR(20)) ENGINE=InnoDB");
        List<String> columns = List.of("id", "label");
        List<String> key = List.of("id");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            XaKeyedStatements keyed = keyed(c, table, columns, key, 3);
            XaIo io = new XaIo(
                    c,
                    Duration.ofSeconds(30),
                    "test",
                    JdbcDialects.forConnection(c).xa());
            List<Object[]> rows = new ArrayList<>();
            for (long id = 0; id < 7; id++) {
                rows.add(new Object[] {id, id == 4 ? null : "v" + id});
            }
            keyed.upsert(rows, io); // chunks of 3, 3 and 1
            keyed.upsert(List.of(new Object[] {2L, "again"}, new Object[] {7L, "new"}), io);
            keyed.delete(List.of(new Object[] {0L}, new Object[] {5L}, new Object[] {6L}, new Object[] {99L}), io);
            c.commit();
        }
        Map<Long, String> expected = new TreeMap<>();
        expected.put(1L, "v1");
        expected.put(2L, "again");
        expected.put(3L, "v3");
        expected.put(4L, null);
        expected.put(7L, "new");
        assertThat(rows("SELECT id, label FROM " + table)).isEqualTo(expected);
    }

    @Test
    void aKeyOfTwoColumnsAppliesRowsInTheirOrder() throws Exception {
        String table = "keyed_two_" + System.nanoTime() % 100_000;
        db.execute("CREATE TABLE " + table + " (region VARCHAR(10) NOT NULL, id BIGINT NOT NULL, amount BIGINT,"
                + " PRIMARY KEY (region, id)) ENGINE=InnoDB DEFAULT COLLATE utf8mb4_general_ci");
        List<String> columns = List.of("region", "id", "amount");
        List<String> key = List.of("region", "id");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            XaKeyedStatements keyed = keyed(c, table, columns, key, 2);
            XaIo io = new XaIo(
                    c,
                    Duration.ofSeconds(30),
                    "test",
                    JdbcDialects.forConnection(c).xa());
            keyed.upsert(
                    List.of(
                            new Object[] {"eu", 1L, 10L},
                            new Object[] {"EU", 1L, 11L}, // the same key to the database: the later row wins
                            new Object[] {"us", 1L, 20L},
                            new Object[] {"eu", 2L, 30L},
                            new Object[] {"us", 2L, 40L}),
                    io);
            keyed.delete(List.of(new Object[] {"us", 1L}, new Object[] {"eu", 2L}, new Object[] {"us", 9L}), io);
            c.commit();
        }
        Map<Long, String> expected = new TreeMap<>();
        expected.put(11L, "eu/1");
        expected.put(40L, "us/2");
        assertThat(rows("SELECT amount, CONCAT(LOWER(region), '/', id) FROM " + table))
                .isEqualTo(expected);
    }

    /**
     * The last record of a key wins whole, its key column's spelling included, as on PostgreSQL: under
     * a case-insensitive PAD SPACE collation 'alice', 'ALICE' and 'Alice  ' are one row, which ends as
     * the last one wrote it, whether they meet in one statement or in two, and on a row of the key alone.
     */
    @Test
    void theKeyColumnTakesTheLastRecordsSpelling() throws Exception {
        String table = "keyed_spelling_" + System.nanoTime() % 100_000;
        String keyOnly = table + "_k";
        db.execute("CREATE TABLE " + table + " (k VARCHAR(20) NOT NULL PRIMARY KEY, v BIGINT) ENGINE=InnoDB"
                + " DEFAULT COLLATE utf8mb4_general_ci");
        db.execute("CREATE TABLE " + keyOnly + " (k VARCHAR(20) NOT NULL PRIMARY KEY) ENGINE=InnoDB"
                + " DEFAULT COLLATE utf8mb4_general_ci");
        List<String> key = List.of("k");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            XaIo io = new XaIo(
                    c,
                    Duration.ofSeconds(30),
                    "test",
                    JdbcDialects.forConnection(c).xa());
            List<String> columns = List.of("k", "v");
            XaKeyedStatements keyed = keyed(c, table, columns, key, 10);
            keyed.upsert(List.of(new Object[] {"alice", 1L}, new Object[] {"bob", 1L}), io);
            keyed.upsert(List.of(new Object[] {"ALICE", 2L}, new Object[] {"bob", 2L}, new Object[] {"Bob  ", 3L}), io);
            XaKeyedStatements keys = keyed(c, keyOnly, key, key, 10);
            keys.upsert(List.<Object[]>of(new Object[] {"carol"}), io);
            keys.upsert(List.of(new Object[] {"Carol"}, new Object[] {"CAROL"}), io);
            c.commit();
        }
        Map<Long, String> expected = new TreeMap<>();
        expected.put(2L, "ALICE");
        expected.put(3L, "Bob  ");
        assertThat(rows("SELECT v, k FROM " + table)).isEqualTo(expected);
        assertThat(rows("SELECT 0, k FROM " + keyOnly)).isEqualTo(Map.of(0L, "CAROL"));
    }

    /**
     * Many columns through server-side prepared statements ({@code useServerPrepStmts=true}), whose
     * parameters the protocol counts in two bytes: 200 columns and a batch size of 1,000 (statements of
     * 327 rows, 65,400 parameters, by {@link XaKeyedStatements#MAX_PARAMETERS}), every row arrives with
     * its values. (Connector/J 3.5.7 also took one statement of 200,000 parameters here, measured with
     * the bound lifted: the bound is for drivers and servers that do not.)
     */
    @Test
    void manyColumnsThroughServerSidePreparedStatementsArriveWithTheirValues() throws Exception {
        String table = "keyed_wide_cols_" + System.nanoTime() % 100_000;
        int width = 200;
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < width; i++) {
            columns.add("c" + i);
        }
        db.execute("CREATE TABLE " + table + " ("
                + columns.stream()
                        .map(c -> c + " BIGINT" + (c.equals("c0") ? " PRIMARY KEY" : ""))
                        .collect(Collectors.joining(", "))
                + ") ENGINE=InnoDB");
        List<String> key = List.of("c0");
        int n = 1_000;
        try (Connection c =
                DriverManager.getConnection(db.jdbcUrl() + "?useServerPrepStmts=true", db.adminProperties())) {
            c.setAutoCommit(false);
            XaKeyedStatements keyed = keyed(c, table, columns, key, n);
            XaIo io = new XaIo(
                    c,
                    Duration.ofSeconds(30),
                    "test",
                    JdbcDialects.forConnection(c).xa());
            List<Object[]> rows = new ArrayList<>();
            for (long id = 0; id < n; id++) {
                Object[] row = new Object[width];
                for (int i = 0; i < width; i++) {
                    row[i] = id * width + i;
                }
                rows.add(row);
            }
            keyed.upsert(rows, io);
            c.commit();
        }
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(n);
        assertThat(db.count(
                        "SELECT count(*) FROM " + table + " WHERE c0 % ? = 0 AND c199 = c0 + 199 AND c100 = c0 + 100",
                        width))
                .as("rows with their values")
                .isEqualTo(n);
    }

    /**
     * Rows so wide that a statement of the batch size would be larger than the server's {@code
     * max_allowed_packet} (one and a half times it): the server would refuse it, and every replay of
     * the epoch the same way, where a JDBC batch of inserts is cut by the driver. The upserts are cut
     * where the packet limit says, and every row arrives whole.
     */
    @Test
    void upsertsOfRowsWiderThanThePacketLimitAllowsAreCutBelowIt() throws Exception {
        String table = "keyed_wide_" + System.nanoTime() % 100_000;
        db.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, doc MEDIUMTEXT) ENGINE=InnoDB");
        List<String> columns = List.of("id", "doc");
        List<String> key = List.of("id");
        long packet = db.count("SELECT @@max_allowed_packet");
        int n = 100;
        int width = (int) Math.min(16_000_000, packet * 3 / 2 / n);
        String doc = "d".repeat(width);
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            XaKeyedStatements keyed = keyed(c, table, columns, key, n);
            XaIo io = new XaIo(
                    c,
                    Duration.ofSeconds(30),
                    "test",
                    JdbcDialects.forConnection(c).xa());
            List<Object[]> rows = new ArrayList<>();
            for (long id = 0; id < n; id++) {
                rows.add(new Object[] {id, doc});
            }
            keyed.upsert(rows, io);
            c.commit();
        }
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(n);
        assertThat(db.count(
                        "SELECT count(*) FROM " + table + " WHERE id >= 0 AND id < ? AND LENGTH(doc) = ?", n, width))
                .as("rows whole")
                .isEqualTo(n);
    }

    /** The first column (a number) to the second, of every row. */
    private Map<Long, String> rows(String sql) throws Exception {
        Map<Long, String> rows = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getString(2));
            }
        }
        return rows;
    }

    /** The keyed statements of {@code table} on the connection, as an epoch's branch makes them. */
    static XaKeyedStatements keyed(Connection c, String table, List<String> columns, List<String> key, int batchSize)
            throws SQLException {
        return new XaKeyedStatements(
                c,
                new XaKeyedStatements.Sql(
                        n -> DIALECT.writes()
                                .upsertSql(new SqlIdentifier(null, table), columns, key, n)
                                .orElseThrow(),
                        DIALECT.writes().deleteSql(new SqlIdentifier(null, table), key),
                        columns.size(),
                        DIALECT.writes().maxRowsPerStatement()),
                batchSize,
                DIALECT.writes().maxStatementBytes(c));
    }
}
