/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.postgres.PostgresSinkBuilder;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules of a routed sink's settings, checked by the builder before anything runs. */
class RoutedTablesBuilderTest {

    private static RoutedTables<Long> tables() {
        return RoutedTables.<Long>route((i, out) -> out.upsert("public.kv", i, i))
                .table(RoutedTable.of("public", "kv", List.of("k", "v"), List.of("k")))
                .build();
    }

    private static PostgresSinkBuilder<Long> valid() {
        return PostgresSink.<Long>builder()
                .jdbcUrl("jdbc:postgresql://localhost:5432/db")
                .username("u")
                .password("s3cret-pw")
                .sinkId("routed")
                .tables(tables());
    }

    @Test
    void buildsNamingItsTablesAndNeverThePassword() {
        ExactlyOnceSink<Long> sink = valid().build();
        assertThat(sink.database().target()).isEqualTo("tables [\"public\".\"kv\"]");
        assertThat(sink.toString()).doesNotContain("s3cret-pw");
    }

    @Test
    void aTableModeOrSqlBesideTheTablesIsRefused() {
        assertThatThrownBy(() -> valid().table("orders")
                        .columns("id")
                        .rows(i -> new Object[] {i})
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sink 'routed': tables(...) routes records to the tables it declares")
                .hasMessageContaining("give no table(...), columns(...), rows(...) or sql(...) with it");
    }

    @Test
    void anUpsertKeyOrDeadLettersBesideTheTablesAreRefused() {
        assertThatThrownBy(() -> valid().upsert("k").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("each table by the key it declares: give no upsert(...)");
        assertThatThrownBy(() -> valid().deadLetterTable("public", "dead").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deadLetterTable(...)");
    }

    @Test
    void aTableIsDeclaredOnceWithItsKeyAmongItsColumns() {
        assertThatThrownBy(() -> RoutedTable.of(null, "kv", List.of("k", "v"), List.of("id")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("table \"kv\": the key [id] must be among the columns [k, v]");
        assertThatThrownBy(() -> RoutedTable.of(null, "kv", List.of("k"), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a table without a key cannot take upserts and deletes");
        assertThatThrownBy(() -> RoutedTables.<Long>route((i, out) -> {})
                        .table(RoutedTable.of(null, "kv", List.of("k"), List.of("k")))
                        .table(RoutedTable.of(null, "kv", List.of("k", "v"), List.of("k"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("table kv is declared twice");
        assertThatThrownBy(() -> RoutedTables.<Long>route((i, out) -> {}).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("declare at least one table");
    }
}
