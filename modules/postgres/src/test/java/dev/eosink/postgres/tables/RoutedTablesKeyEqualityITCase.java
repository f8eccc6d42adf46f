/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/tables.md: "Keys compare as the table's unique index compares them". The sink compares a routed key by
 * the text of its Java value (BigDecimal normalized), which is not always the column's equality: two keys the
 * sink tells apart may be one row, and one key it merges may be two. Bounded jobs at parallelism 1, a run after
 * every record (batch size 1), paced by nothing but the records.
 */
class RoutedTablesKeyEqualityITCase extends ExactlyOnceTestBase {

    private void runToTheEnd(RoutedTables<Long> tables, long records) throws Exception {
        StreamExecutionEnvironment env = TestJobs.env(1, 200, TestJobs.noRestarts());
        TestJobs.ids(env, records, 1_000)
                .sinkTo(PostgresSink.<Long>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(tables)
                        .batchSize(1)
                        .claimWait(Duration.ofSeconds(20))
                        .build());
        env.execute("routed tables, key equality");
    }

    private List<String> rows(String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(rs.getString(1) + "," + rs.getString(2));
            }
        }
        return rows;
    }

    /**
     * A text key given as a BigDecimal: the upsert stores its plain text ('1.50'), the delete of the very same
     * value goes by the normalized text ('1.5'), which matches no row. Record 0 upserts key 1.50, record 1
     * deletes it (each its own run): the row survives.
     */
    @Test
    void aDeleteOfADecimalKeyOfATextColumnDeletesTheRowItsUpsertWrote() throws Exception {
        String t = table + "_t";
        db.execute("CREATE TABLE " + t + " (code text PRIMARY KEY, v text)");
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> {
                    if (i == 0) {
                        out.upsert(t, new BigDecimal("1.50"), "x");
                    } else {
                        out.delete(t, new BigDecimal("1.50"));
                    }
                })
                .table(RoutedTable.of(null, t, List.of("code", "v"), List.of("code")))
                .build();

        runToTheEnd(tables, 2);

        assertThat(rows("SELECT code, v FROM " + t))
                .as("rows once key 1.50 was upserted, then deleted")
                .isEmpty();
    }

    /**
     * A timestamptz key given as OffsetDateTime: 10:00+01:00 and 09:00Z are one instant, one row, but two keys
     * to the sink. The one record deletes the row by one spelling and writes it again by the other: in the run,
     * every upsert goes before every delete, so the row ends deleted.
     */
    @Test
    void oneInstantSpelledInTwoOffsetsIsOneKey() throws Exception {
        String t = table + "_t";
        db.execute("CREATE TABLE " + t + " (at timestamptz PRIMARY KEY, v text)");
        db.execute("INSERT INTO " + t + " VALUES ('2026-01-01T09:00:00Z', 'before')");
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> {
                    out.delete(t, OffsetDateTime.parse("2026-01-01T10:00:00+01:00"));
                    out.upsert(t, OffsetDateTime.parse("2026-01-01T09:00:00Z"), "after");
                })
                .table(RoutedTable.of(null, t, List.of("at", "v"), List.of("at")))
                .build();

        runToTheEnd(tables, 1);

        assertThat(rows("SELECT extract(epoch FROM at)::bigint, v FROM " + t))
                .as("the row of that instant, deleted and written again by one record")
                .containsExactly(OffsetDateTime.parse("2026-01-01T09:00:00Z").toEpochSecond() + ",after");
    }
}
