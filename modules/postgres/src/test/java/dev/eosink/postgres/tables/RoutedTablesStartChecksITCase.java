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

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a routed sink says when its tables or its route cannot work: a message that names the table and the
 * remedy, and, for what a restart cannot change, no restarts.
 */
class RoutedTablesStartChecksITCase extends ExactlyOnceTestBase {

    /**
     * The job's failure; under Flink's default restarts ({@code restarts}) only a refusal that suppresses them
     * ends the job, else it fails at once.
     */
    private Throwable failure(RoutedTables<Long> tables, boolean restarts) throws Exception {
        StreamExecutionEnvironment env =
                restarts ? TestJobs.envWithDefaultRestarts(1, 200) : TestJobs.env(1, 200, TestJobs.noRestarts());
        TestJobs.ids(env, 10, 1_000)
                .sinkTo(PostgresSink.<Long>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(tables)
                        .claimWait(Duration.ofSeconds(5))
                        .build());
        return TestJobs.failureWithin(env.executeAsync("a routed sink that cannot work"), Duration.ofSeconds(15));
    }

    /**
     * The docs recommend DEFERRABLE constraints for replicated tables; a DEFERRABLE primary key cannot be the
     * arbiter of INSERT ... ON CONFLICT. The start check should say so, naming the table and the remedy, once
     * (a restart finds the same). The EXPLAIN of the upsert passes (PostgreSQL refuses such an arbiter only when
     * the statement runs), so the first run fails, reported as a lost connection (SQLSTATE 55000 is taken for a
     * transient error), and the job restarts without end.
     */
    @Test
    void aDeferrableKeyIsRefusedAtStartNamingTheTableAndTheRemedy() throws Exception {
        String t = table + "_t";
        db.execute("CREATE TABLE " + t + " (id bigint PRIMARY KEY DEFERRABLE INITIALLY IMMEDIATE, v text)");
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> out.upsert(t, i, "v"))
                .table(RoutedTable.of(null, t, List.of("id", "v"), List.of("id")))
                .build();

        String messages = TestJobs.messages(failure(tables, true));

        assertThat(messages).as("the refusal").contains("sink '" + sinkId + "' subtask 0/1", t, "DEFERRABLE", "Remedy");
    }

    /**
     * A null key value fails the record; the message should name the table and its key, as for a row of the
     * wrong width (docs/tables.md: "fails the record with a message naming the record, the table and what it
     * expects").
     */
    @Test
    void aNullKeyValueFailsTheRecordNamingTheTableAndItsKey() throws Exception {
        String t = table + "_t";
        db.execute("CREATE TABLE " + t + " (id bigint PRIMARY KEY, v text)");
        RoutedTables<Long> tables = RoutedTables.<Long>route((i, out) -> out.upsert(t, null, "v"))
                .table(RoutedTable.of(null, t, List.of("id", "v"), List.of("id")))
                .build();

        String message = TestJobs.messageContaining(failure(tables, false), "routing record #0");

        assertThat(message).as("the failure").contains("key column value is null", t, "[id]");
    }
}
