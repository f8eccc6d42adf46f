/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlIdentifierTest {

    @Test
    void quotesEveryPartAndDoublesEmbeddedQuotes() {
        assertThat(new SqlIdentifier(null, "orders").sql()).isEqualTo("\"orders\"");
        assertThat(new SqlIdentifier("s", "Orders").sql()).isEqualTo("\"s\".\"Orders\"");
        assertThat(new SqlIdentifier(null, "x\"; DROP TABLE y; --").sql()).isEqualTo("\"x\"\"; DROP TABLE y; --\"");
        assertThat(SqlIdentifier.literal("it's")).isEqualTo("'it''s'");
    }

    @Test
    void refusesEmptyAndNul() {
        assertThatThrownBy(() -> new SqlIdentifier(null, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SqlIdentifier("a\0", "t")).isInstanceOf(IllegalArgumentException.class);
    }
}
