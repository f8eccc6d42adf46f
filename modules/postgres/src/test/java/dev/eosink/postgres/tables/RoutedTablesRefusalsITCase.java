/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.SinkException;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableRoute;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A routed sink that cannot work says so, naming the sink, the subtask, the table and the remedy: what the
 * tables lack at start (a cycle of NOT DEFERRABLE foreign keys, a key without a unique index), and what a
 * route does wrong at its first record (a table the sink does not declare, a row of the wrong width). Nothing
 * is committed, nothing is left prepared, and a refusal at start is not retried.
 */
class RoutedTablesRefusalsITCase extends ExactlyOnceTestBase {

    private String parent;
    private String child;

    private void parentAndChild(String childKey) {
        parent = table + "_parent";
        child = table + "_child";
        db.execute("CREATE TABLE " + parent + " (id bigint PRIMARY KEY, v bigint)");
        db.execute(
                "CREATE TABLE " + child + " (id bigint " + childKey + ", parent_id bigint REFERENCES " + parent + ")");
    }

    private RoutedTables<Long> tables(TableRoute<Long> route) {
        return RoutedTables.route(route)
                .table(RoutedTable.of(null, child, List.of("id", "parent_id"), List.of("id")))
                .table(RoutedTable.of(null, parent, List.of("id", "v"), List.of("id")))
                .build();
    }

    private SinkException fails(RoutedTables<Long> tables) throws Exception {
        StreamExecutionEnvironment env = TestJobs.env(1, TestJobs.MANUAL, TestJobs.noRestarts());
        TestJobs.ids(env, 100, 1_000)
                .sinkTo(FaultInjectingDatabase.wrap(PostgresSink.<Long>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(tables)
                        .build()));
        Throwable thrown = TestJobs.failureWithin(env.executeAsync("a routed sink that cannot work"), TestJobs.TIMEOUT);
        SinkException e = ExceptionUtils.findThrowable(thrown, SinkException.class)
                .orElseThrow(
                        () -> new AssertionError("no SinkException in\n" + ExceptionUtils.stringifyException(thrown)));
        assertThat(Faults.writerStarts(sinkId, 0)).as("writer starts").containsExactly(0);
        assertThat(db.count("SELECT count(*) FROM " + parent) + db.count("SELECT count(*) FROM " + child))
                .as("rows committed")
                .isZero();
        assertThat(preparedLeft()).as("prepared left").isEmpty();
        return e;
    }

    @Test
    void aCycleOfNotDeferrableForeignKeysIsRefusedAtStart() throws Exception {
        parentAndChild("PRIMARY KEY");
        db.execute("ALTER TABLE " + parent + " ADD COLUMN child_id bigint REFERENCES " + child);
        String p = parent; // the route is shipped with the job: it must not capture the test
        SinkException e = fails(tables((i, out) -> out.upsert(p, i, i)));
        assertThat(e.getMessage())
                .containsSubsequence(
                        "sink '" + sinkId + "' subtask 0/1",
                        "the foreign keys between the routed tables",
                        child + "_parent_id_fkey",
                        parent + "_child_id_fkey",
                        "form a cycle of NOT DEFERRABLE constraints",
                        "Remedy: make one of them deferrable");
    }

    @Test
    void aKeyWithoutAUniqueIndexIsRefusedAtStart() throws Exception {
        parentAndChild("NOT NULL");
        String p = parent; // the route is shipped with the job: it must not capture the test
        SinkException e = fails(tables((i, out) -> out.upsert(p, i, i)));
        assertThat(e.getMessage())
                .containsSubsequence(
                        "sink '" + sinkId + "' subtask 0/1",
                        "upsert key [id] of table \"" + child + "\" has no unique index or constraint",
                        "Remedy: CREATE UNIQUE INDEX ON \"" + child + "\" (\"id\")");
    }

    @Test
    void aTableTheSinkDoesNotDeclareFailsTheRecordNamingTheDeclaredOnes() throws Exception {
        parentAndChild("PRIMARY KEY");
        String p = parent;
        SinkException e = fails(tables((i, out) -> {
            out.upsert(p, i, i);
            out.upsert("public.nowhere", i);
        }));
        assertThat(e.getMessage())
                .containsSubsequence(
                        "routing record #0 of the epoch",
                        "the route names table public.nowhere, which the sink does not declare: it writes [" + parent
                                + ", " + child + "]",
                        "Nothing of this epoch becomes visible");
    }

    @Test
    void aRowOfTheWrongWidthFailsTheRecordNamingTheColumns() throws Exception {
        parentAndChild("PRIMARY KEY");
        String c = child;
        SinkException e = fails(tables((i, out) -> out.upsert(c, i)));
        assertThat(e.getMessage())
                .containsSubsequence(
                        "routing record #0 of the epoch",
                        "an upsert of table " + child
                                + " takes 2 values, one per column [id, parent_id], in that order; " + "got 1: [0]");
    }
}
