/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TransactionIdTest {

    @Test
    void roundTripsThroughItsName() {
        TransactionId id = new TransactionId("orders.v2-eu_1", 7, 123_456L, "abcd1234");
        assertThat(id.toString()).isEqualTo("eos1/orders.v2-eu_1/7/123456/abcd1234");
        assertThat(TransactionId.parse(id.toString())).contains(id);
    }

    @Test
    void longestNameFitsPostgresGidLimit() {
        String sinkId = "s".repeat(100);
        TransactionId id = new TransactionId(sinkId, Integer.MAX_VALUE, Long.MAX_VALUE, "zzzzzzzzzzzz");
        assertThat(id.toString().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(TransactionId.MAX_LENGTH)
                .isLessThan(200);
        assertThat(TransactionId.parse(id.toString())).contains(id);
    }

    @Test
    void namesOfOtherToolsDoNotParse() {
        assertThat(TransactionId.parse("some-other-gid")).isEmpty();
        assertThat(TransactionId.parse("eos1/sink/0/5")).isEmpty();
        assertThat(TransactionId.parse("eos2/sink/0/5/abcd1234")).isEmpty();
        assertThat(TransactionId.parse("eos1/sink/x/5/abcd1234")).isEmpty();
        assertThat(TransactionId.parse("eos1/sink/0/5/ABCD1234")).isEmpty();
        assertThat(TransactionId.parse("eos1/sink/-1/5/abcd1234")).isEmpty();
        assertThat(TransactionId.parse("eos1/sink/0/5/abcd1234/extra")).isEmpty();
        assertThat(TransactionId.parse(null)).isEmpty();
    }

    @Test
    void sinkIdsThatCouldBreakParsingOrSqlAreRefused() {
        for (String bad : new String[] {"", "a/b", "a b", "x'y", "-start", "s".repeat(101), "ü"}) {
            assertThatThrownBy(() -> TransactionId.checkSinkId(bad))
                    .as("sink id %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sink id");
        }
    }

    @Test
    void prefixSeparatesSinksWhoseIdsArePrefixesOfEachOther() {
        TransactionId other = new TransactionId("orders-2", 0, 1, "abcd1234");
        assertThat(other.toString()).doesNotStartWith(TransactionId.sinkPrefix("orders"));
    }

    @Test
    void runTokensOfOneExecutionShareItsTagAndDifferInTheRest() {
        String tag = TransactionId.executionTag("5b0f3a6e2c9d4e7f8a1b2c3d4e5f6a7b", "nonce");
        String a = TransactionId.newRunToken(tag);
        String b = TransactionId.newRunToken(tag);
        assertThat(a).matches("[a-z0-9]{12}").isNotEqualTo(b);
        assertThat(a.substring(0, 8)).isEqualTo(b.substring(0, 8)).isEqualTo(tag);
        assertThat(new TransactionId("s", 0, 1, a).executionTag()).isEqualTo(tag);
    }

    /**
     * The tag must be the same on every task manager and in every release: it is computed from the job id and
     * the nonce the job graph carries, never drawn. Two submissions under one fixed job id differ by the nonce.
     */
    @Test
    void executionTagIsStableAndDiffersBetweenSubmissionsOfOneJobId() {
        String job = "00000000000000000000000000000000";
        assertThat(TransactionId.executionTag(job, "n1"))
                .isEqualTo(TransactionId.executionTag(job, "n1"))
                .matches("[a-z0-9]{8}");
        assertThat(TransactionId.executionTag(job, "n1")).isNotEqualTo(TransactionId.executionTag(job, "n2"));
        assertThat(TransactionId.executionTag(job, "n1"))
                .isNotEqualTo(TransactionId.executionTag("00000000000000000000000000000001", "n1"));
        assertThat(TransactionId.newExecutionNonce())
                .matches("[0-9a-f]{32}")
                .isNotEqualTo(TransactionId.newExecutionNonce());
    }

    /** Names of the first layout parse, and their four-character job tag is no execution's tag. */
    @Test
    void namesOfTheFirstLayoutParseAndBelongToNoExecution() {
        TransactionId old = TransactionId.parse("eos1/s/0/5/abcd1234").orElseThrow();
        assertThat(old.executionTag()).isEqualTo("abcd").hasSize(4);
        assertThat(TransactionId.parse("eos1/s/0/5/abcd12345678").orElseThrow().executionTag())
                .isEqualTo("abcd1234");
        assertThat(TransactionId.parse("eos1/s/0/5/abcd123456")).isEmpty();
        assertThatThrownBy(() -> TransactionId.newRunToken("abcd")).isInstanceOf(IllegalArgumentException.class);
    }
}
