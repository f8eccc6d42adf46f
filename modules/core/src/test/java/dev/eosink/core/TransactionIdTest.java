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
        TransactionId id = new TransactionId(sinkId, Short.MAX_VALUE, Long.MAX_VALUE, "zzzzzzzz");
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
    void runTokensOfOneJobShareTheJobTagAndDifferInTheRest() {
        String job = "5b0f3a6e2c9d4e7f8a1b2c3d4e5f6a7b";
        String a = TransactionId.newRunToken(job);
        String b = TransactionId.newRunToken(job);
        assertThat(a).matches("[a-z0-9]{8}").isNotEqualTo(b);
        assertThat(a.substring(0, 4)).isEqualTo(b.substring(0, 4)).isEqualTo(TransactionId.jobTag(job));
        assertThat(new TransactionId("s", 0, 1, a).jobTag()).isEqualTo(TransactionId.jobTag(job));
    }

    /** The tag must be the same on every task manager and in every release: it is computed, never random. */
    @Test
    void jobTagIsStable() {
        assertThat(TransactionId.jobTag("00000000000000000000000000000000")).isEqualTo(
                TransactionId.jobTag("00000000000000000000000000000000")).matches("[a-z0-9]{4}");
        assertThat(TransactionId.jobTag("00000000000000000000000000000000"))
                .isNotEqualTo(TransactionId.jobTag("00000000000000000000000000000001"));
    }
}
