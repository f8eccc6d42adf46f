/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InsertStatementTest {

    @Test
    void columnsQuoteEveryIdentifierAndTakeTheDatabasesParameters() {
        InsertStatement.Columns<long[]> insert = InsertStatement.forColumns(
                new SqlIdentifier("s", "Orders"), List.of("id", "we\"ird"), r -> new Object[] {r[0], r[1]});
        assertThat(insert.sql(List.of("?", "?::jsonb")))
                .isEqualTo("INSERT INTO \"s\".\"Orders\" (\"id\", \"we\"\"ird\") VALUES (?, ?::jsonb)");
        assertThat(insert.describe()).isEqualTo("table \"s\".\"Orders\"");
        assertThatThrownBy(() -> insert.sql(List.of("?"))).hasMessageContaining("1 parameters for 2 columns");
    }

    @Test
    void aRowOfTheWrongSizeIsRefusedNamingTheColumns() {
        InsertStatement.Columns<Long> insert =
                InsertStatement.forColumns(new SqlIdentifier(null, "t"), List.of("a", "b"), r -> new Object[] {r});
        assertThatThrownBy(() -> insert.toRow(1L)).hasMessage("the row mapper returned 1 values for 2 columns [a, b]");
        InsertStatement.Columns<Long> none =
                InsertStatement.forColumns(new SqlIdentifier(null, "t"), List.of("a"), r -> null);
        assertThatThrownBy(() -> none.toRow(1L)).hasMessage("the row mapper returned null for 1 columns [a]");
    }

    @Test
    void userSqlIsDescribedOnOneLineCutShort() {
        InsertStatement.UserSql<Long> sql = InsertStatement.forSql(
                "INSERT INTO t (a)\n   VALUES (?) -- " + "x".repeat(200), (ps, r) -> ps.setLong(1, r));
        assertThat(sql.describe())
                .startsWith("statement 'INSERT INTO t (a) VALUES (?) -- xxx")
                .endsWith("...'")
                .hasSize("statement ''".length() + 120);
    }

    @Test
    void recordsAreShownCutShort() {
        assertThat(RecordText.bracketed("order 1")).isEqualTo("[order 1]");
        assertThat(RecordText.plain("y".repeat(400)))
                .hasSize(RecordText.MAX_CHARS + 3)
                .endsWith("y...");
        Object failing = new Object() {
            @Override
            public String toString() {
                throw new IllegalStateException("no");
            }
        };
        assertThat(RecordText.plain(failing)).endsWith(" (toString failed)");
    }
}
