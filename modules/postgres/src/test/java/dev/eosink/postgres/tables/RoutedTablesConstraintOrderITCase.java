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

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchException;

/**
 * Source transactions whose states before and after both satisfy every constraint, over routed tables whose
 * constraints the sink must order its statements for. Each job is bounded, at parallelism 1, and must end with
 * the source's state; nothing here paces by the clock (the tests are one record each, or a few in one run).
 */
class RoutedTablesConstraintOrderITCase extends ExactlyOnceTestBase {

    private void runToTheEnd(RoutedTables<Long> tables, long records) throws Exception {
        StreamExecutionEnvironment env = TestJobs.env(1, 200, TestJobs.noRestarts());
        TestJobs.ids(env, records, 1_000)
                .sinkTo(PostgresSink.<Long>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(tables)
                        .batchSize(1) // a run after every record: each record a run of its own
                        .claimWait(Duration.ofSeconds(20))
                        .build());
        env.execute("routed tables, constraints");
    }

    private List<String> rows(String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int col = 1; col <= rs.getMetaData().getColumnCount(); col++) {
                    row.add(rs.getString(col));
                }
                rows.add(String.join(",", row));
            }
        }
        return rows;
    }

    /**
     * A parent keyed by citext (its key compared by the database: one deduplicating statement per run, which
     * would delete as well as upsert in the parents' upsert pass) and a child that refers to it NOT DEFERRABLE.
     * The one record deletes the child, then the parent. Such a key cannot take the order the foreign keys need:
     * refused at start, naming the table and the remedy, nothing written.
     */
    @Test
    void aParentKeyedByCitextIsRefusedAtStart() throws Exception {
        db.execute("CREATE EXTENSION IF NOT EXISTS citext");
        String parent = table + "_parent";
        String child = table + "_child";
        db.execute("CREATE TABLE " + parent + " (code citext PRIMARY KEY, name text)");
        db.execute("CREATE TABLE " + child + " (id bigint PRIMARY KEY, parent_code citext REFERENCES " + parent + ")");
        db.execute("INSERT INTO " + parent + " VALUES ('a', 'the parent')");
        db.execute("INSERT INTO " + child + " VALUES (1, 'a')");
        String p = parent; // the route is shipped with the job: it must not capture the test
        String c = child;
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> {
                    out.delete(c, 1L);
                    out.delete(p, "a");
                })
                .table(RoutedTable.of(null, child, List.of("id", "parent_code"), List.of("id")))
                .table(RoutedTable.of(null, parent, List.of("code", "name"), List.of("code")))
                .build();

        Exception refused = catchException(() -> runToTheEnd(tables, 1));

        assertThat(TestJobs.messages(refused))
                .as("the refusal")
                .contains("routed table \"" + parent + "\"", "citext", "Remedy");
        assertThat(rows("SELECT * FROM " + child)).as("children").containsExactly("1,a");
        assertThat(rows("SELECT * FROM " + parent)).as("parents").containsExactly("a,the parent");
        assertThat(preparedLeft()).as("prepared left").isEmpty();
    }

    /**
     * A child refers NOT DEFERRABLE to a unique column of its parent that is not the parent's key (a natural
     * key). A source transaction that moves the parent's code from A to B and its child with it (before, parent
     * (1, A) and child (10, A); after, (1, B) and (10, B), both consistent) has no order of whole statements that
     * is valid statement by statement: refused at start, with the remedy (DEFERRABLE), nothing written.
     */
    @Test
    void aNotDeferrableForeignKeyOntoANaturalKeyIsRefusedAtStart() throws Exception {
        String parent = table + "_parent";
        String child = table + "_child";
        db.execute("CREATE TABLE " + parent + " (id bigint PRIMARY KEY, code text NOT NULL UNIQUE)");
        db.execute("CREATE TABLE " + child + " (id bigint PRIMARY KEY, parent_code text REFERENCES " + parent
                + " (code))");
        db.execute("INSERT INTO " + parent + " VALUES (1, 'A')");
        db.execute("INSERT INTO " + child + " VALUES (10, 'A')");
        String p = parent;
        String c = child;
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> {
                    out.upsert(c, 10L, null);
                    out.upsert(p, 1L, "B");
                    out.upsert(c, 10L, "B");
                })
                .table(RoutedTable.of(null, parent, List.of("id", "code"), List.of("id")))
                .table(RoutedTable.of(null, child, List.of("id", "parent_code"), List.of("id")))
                .build();

        Exception refused = catchException(() -> runToTheEnd(tables, 1));

        assertThat(TestJobs.messages(refused))
                .as("the refusal")
                .contains("refers to [code] of \"" + parent + "\", not to its key [id]", "DEFERRABLE", "Remedy");
        assertThat(rows("SELECT * FROM " + parent)).as("parents").containsExactly("1,A");
        assertThat(rows("SELECT * FROM " + child)).as("children").containsExactly("10,A");
        assertThat(preparedLeft()).as("prepared left").isEmpty();
    }

    /**
     * A NOT DEFERRABLE unique column besides the key, and a source transaction that deletes one row and gives
     * its value to a new row: no swap between two upserted rows (the case docs/tables.md warns of), a delete
     * and an insert. Every upsert of a run goes before every delete, so the new row meets the old one's value.
     */
    @Test
    void aUniqueValueFreedByADeleteCanBeTakenByAnInsertInTheSameRecord() throws Exception {
        String users = table + "_users";
        db.execute("CREATE TABLE " + users + " (id bigint PRIMARY KEY, email text NOT NULL UNIQUE)");
        db.execute("INSERT INTO " + users + " VALUES (1, 'a@example.org')");
        String u = users;
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> {
                    out.delete(u, 1L);
                    out.upsert(u, 2L, "a@example.org");
                })
                .table(RoutedTable.of(null, users, List.of("id", "email"), List.of("id")))
                .build();

        runToTheEnd(tables, 1);

        assertThat(rows("SELECT * FROM " + users)).as("users").containsExactly("2,a@example.org");
    }

    /**
     * One table declared twice, once with its schema and once without: two names, two buffers, one table. The
     * sink accepts it, and a record that upserts a key under one name, deletes it under the other and upserts
     * it again under the first ends with the key deleted (every table's upserts run before any table's
     * deletes). It should be refused at start, or end with the row.
     */
    @Test
    void oneTableDeclaredUnderTwoNamesIsRefusedOrKeepsTheRecordsOrder() throws Exception {
        db.execute("CREATE TABLE " + table + "_t (id bigint PRIMARY KEY, v text)");
        String t = table + "_t";
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> {
                    out.upsert(t, 1L, "x");
                    out.delete("public." + t, 1L);
                    out.upsert(t, 1L, "y");
                })
                .table(RoutedTable.of(null, t, List.of("id", "v"), List.of("id")))
                .table(RoutedTable.of("public", t, List.of("id", "v"), List.of("id")))
                .build();

        Exception refused = null;
        try {
            runToTheEnd(tables, 1);
        } catch (Exception e) {
            refused = e;
        }

        if (refused == null) {
            assertThat(rows("SELECT * FROM " + t))
                    .as("the table, once the record upserted, deleted and upserted key 1 (accepted at start)")
                    .containsExactly("1,y");
        } else {
            assertThat(TestJobs.messages(refused)).as("the refusal").contains(t, "twice");
        }
    }
}
