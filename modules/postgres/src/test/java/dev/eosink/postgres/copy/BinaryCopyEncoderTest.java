/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.copy;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * numeric's two encodings write the same bytes: the arithmetic one for values whose unscaled value
 * fits a long, and the one through the decimal string, which takes any value. (That PostgreSQL reads
 * them as the values bound by JDBC is WriteMethodsITCase's part.)
 */
class BinaryCopyEncoderTest {

    private static final BinaryCopyEncoder NUMERIC =
            BinaryCopyEncoder.forTypes(List.of("n"), List.of("numeric")).orElseThrow();

    @Test
    void numericOfLongWritesWhatTheDigitPathWrites() {
        List<BigDecimal> values = new ArrayList<>(List.of(
                BigDecimal.ZERO,
                new BigDecimal("0.000"),
                new BigDecimal("-0.5"),
                new BigDecimal("0.0001"),
                new BigDecimal("12345.6789"),
                new BigDecimal("-12345.6789"),
                new BigDecimal("99999999.9999"),
                new BigDecimal("10000"),
                new BigDecimal("100000000"),
                new BigDecimal("0.00000001"),
                new BigDecimal("1.0000000000000001"),
                new BigDecimal("9223372036854775806"),
                new BigDecimal("-9223372036854775806"),
                new BigDecimal("0.9223372036854775"),
                new BigDecimal("922.3372036854775806"),
                new BigDecimal("1E+3"),
                new BigDecimal("-7E+12")));
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 200_000; i++) {
            long unscaled = switch (i % 4) {
                case 0 -> random.nextLong(-10_000, 10_000);
                case 1 -> random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L);
                case 2 -> random.nextLong(Long.MIN_VALUE + 2, Long.MAX_VALUE);
                default -> random.nextLong(100) * (long) Math.pow(10, random.nextInt(17));
            };
            values.add(BigDecimal.valueOf(unscaled, random.nextInt(-3, 17)));
        }
        for (BigDecimal d : values) {
            BigDecimal nonNegativeScale = d.scale() < 0 ? d.setScale(0) : d;
            BinaryCopyEncoder.Buffer digits = new BinaryCopyEncoder.Buffer(16);
            NumericEncoding.numericOfDigits(digits, nonNegativeScale);
            BinaryCopyEncoder.Buffer viaRow = new BinaryCopyEncoder.Buffer(16);
            NUMERIC.row(viaRow, new Object[] {d});
            // the row adds its field count (2 bytes) before the field
            assertThat(Arrays.copyOfRange(viaRow.array(), 2, viaRow.size()))
                    .as("%s", d.toPlainString())
                    .isEqualTo(Arrays.copyOf(digits.array(), digits.size()));
        }
    }

    @Test
    void integralNumbersAndLargeValuesTakeTheSamePathsAsTheirBigDecimals() {
        for (Object v : List.of(0L, 7, (short) -3, (byte) 100, Long.MAX_VALUE, Long.MIN_VALUE, -1L, 10_000L)) {
            BigDecimal d =
                    v instanceof Long ? BigDecimal.valueOf((Long) v) : BigDecimal.valueOf(((Number) v).longValue());
            assertThat(encode(v)).as("%s", v).isEqualTo(encode(d));
        }
        BigDecimal huge = new BigDecimal(new BigInteger("123456789012345678901234567890"), 3);
        BinaryCopyEncoder.Buffer digits = new BinaryCopyEncoder.Buffer(16);
        NumericEncoding.numericOfDigits(digits, huge);
        assertThat(Arrays.copyOfRange(encode(huge), 2, encode(huge).length))
                .isEqualTo(Arrays.copyOf(digits.array(), digits.size()));
    }

    @Test
    void asciiTextIsWrittenInPlaceAndEverythingElseAsUtf8() {
        BinaryCopyEncoder text =
                BinaryCopyEncoder.forTypes(List.of("t"), List.of("text")).orElseThrow();
        for (String s : List.of(
                "",
                "k1f2e",
                "plain ascii with spaces and \t tabs\t",
                "ünïcödé",
                "a\u00e9b",
                "x".repeat(70_000),
                "emoji \ud83d\ude00",
                "\u007f")) {
            BinaryCopyEncoder.Buffer b = new BinaryCopyEncoder.Buffer(8);
            text.row(b, new Object[] {s});
            byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            java.nio.ByteBuffer want = java.nio.ByteBuffer.allocate(2 + 4 + utf8.length)
                    .putShort((short) 1)
                    .putInt(utf8.length)
                    .put(utf8);
            assertThat(Arrays.copyOf(b.array(), b.size()))
                    .as("%s", s.length() > 40 ? s.substring(0, 40) : s)
                    .isEqualTo(want.array());
        }
        BinaryCopyEncoder.Buffer b = new BinaryCopyEncoder.Buffer(8);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> text.row(b, new Object[] {"nul\u0000inside"}))
                .hasMessageContaining("column \"t\"")
                .hasMessageContaining("NUL");
        assertThat(b.size()).as("nothing of a refused row stays in the buffer").isZero();
    }

    /**
     * varchar(n) and char(n) lengths by PostgreSQL's rule: n characters (code points, not UTF-16 units
     * or bytes), and characters beyond n are let through when all are spaces (the server cuts them);
     * anything else is refused with SQLSTATE 22001 before a byte of the row is written.
     * (BadInputITCase runs the same values through a real server.)
     */
    @Test
    void declaredLengthsAreCheckedAsPostgresChecksThem() {
        BinaryCopyEncoder bounded = BinaryCopyEncoder.forTypes(
                        List.of("v", "c"), List.of("varchar", "bpchar"), new int[] {3, 3})
                .orElseThrow();
        BinaryCopyEncoder unbounded = BinaryCopyEncoder.forTypes(List.of("v", "c"), List.of("varchar", "bpchar"))
                .orElseThrow();
        for (String fits : List.of(
                "",
                "abc",
                "ab",
                "abc   ",
                "\u00e9\u00e9\u00e9",
                "\ud83d\ude42\ud83d\ude42\ud83d\ude42",
                "\ud83d\ude42\ud83d\ude42\ud83d\ude42 ",
                "a b")) {
            BinaryCopyEncoder.Buffer b = new BinaryCopyEncoder.Buffer(8);
            BinaryCopyEncoder.Buffer want = new BinaryCopyEncoder.Buffer(8);
            bounded.row(b, new Object[] {fits, fits});
            unbounded.row(want, new Object[] {fits, fits});
            assertThat(Arrays.copyOf(b.array(), b.size()))
                    .as("'%s'", fits)
                    .isEqualTo(Arrays.copyOf(want.array(), want.size()));
        }
        for (String tooLong :
                List.of("abcd", "abc d", "ab   x", "\ud83d\ude42\ud83d\ude42\ud83d\ude42\ud83d\ude42", "abc\t")) {
            for (int column = 0; column < 2; column++) {
                Object[] row = column == 0 ? new Object[] {tooLong, "ok"} : new Object[] {"ok", tooLong};
                BinaryCopyEncoder.Buffer b = new BinaryCopyEncoder.Buffer(8);
                String declared = column == 0 ? "character varying(3)" : "character(3)";
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> bounded.row(b, row))
                        .as("'%s' in column %d", tooLong, column)
                        .isInstanceOf(BinaryCopyEncoder.Refused.class)
                        .hasMessageContaining(
                                "column \"" + (column == 0 ? "v" : "c") + "\": value too long for type " + declared)
                        .hasMessageContaining(tooLong.codePointCount(0, tooLong.length()) + " characters")
                        .satisfies(e -> assertThat(((BinaryCopyEncoder.Refused) e).sqlState())
                                .isEqualTo("22001"));
                assertThat(b.size())
                        .as("nothing of a refused row stays in the buffer")
                        .isZero();
            }
        }
    }

    private static byte[] encode(Object v) {
        BinaryCopyEncoder.Buffer b = new BinaryCopyEncoder.Buffer(16);
        NUMERIC.row(b, new Object[] {v});
        return Arrays.copyOf(b.array(), b.size());
    }
}
