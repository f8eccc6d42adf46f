/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.jdbc.JdbcSinkBuilderBase;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.FirebirdFixture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The XA sink's upsert path on Firebird, with the default batch size, flushing 300 keys of an ordinary two-column
 * table: {@link XaKeyedStatements} cuts its statements at the dialect's rows per statement as well as by the values'
 * bytes, so that Firebird's {@code EXECUTE BLOCK} of one {@code UPDATE OR INSERT} per row stays within Firebird's
 * limit of 256 contexts per request.
 */
class XaKeyedStatementsFirebirdITCase {

    private static FirebirdFixture firebird;
    private static String url;

    @BeforeAll
    static void start() {
        firebird = FirebirdFixture.start();
        firebird.createDatabase("breaku");
        url = firebird.url("breaku");
    }

    @AfterAll
    static void stop() {
        if (firebird != null) {
            firebird.close();
        }
    }

    @Test
    void threeHundredKeysUpsertWithTheDefaultBatchSize() throws Exception {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.ADMIN_USER);
        p.setProperty("password", FirebirdFixture.ADMIN_PASSWORD);
        p.setProperty("encoding", "UTF8");
        try (Connection c = DriverManager.getConnection(url, p)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE KV (ID BIGINT NOT NULL PRIMARY KEY, PAYLOAD VARCHAR(100))");
            }
            JdbcDialect dialect = JdbcDialects.forConnection(c);
            SqlIdentifier table = new SqlIdentifier(null, "KV");
            List<String> key = List.of("ID");
            XaKeyedStatements.Sql sql = new XaKeyedStatements.Sql(
                    rows -> dialect.writes()
                            .upsertSql(table, List.of("ID", "PAYLOAD"), key, rows)
                            .orElseThrow(),
                    dialect.writes().deleteSql(table, key),
                    2,
                    dialect.writes().maxRowsPerStatement());
            XaKeyedStatements keyed = new XaKeyedStatements(
                    c,
                    sql,
                    JdbcSinkBuilderBase.DEFAULT_BATCH_SIZE,
                    dialect.writes().maxStatementBytes(c));
            XaIo io = new XaIo(c, Duration.ofSeconds(60), "break", dialect.xa());
            List<Object[]> rows = new ArrayList<>();
            for (long i = 0; i < 300; i++) {
                rows.add(new Object[] {i, "value-" + i});
            }
            c.setAutoCommit(false);
            keyed.upsert(rows, io);
            c.commit();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM KV")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(300);
            }
        }
    }
}
