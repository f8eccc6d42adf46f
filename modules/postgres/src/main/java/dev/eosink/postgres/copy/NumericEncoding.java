/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.copy;

import org.apache.flink.annotation.Internal;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * numeric's binary "send" form, for {@link BinaryCopyEncoder} and the RowData encoders: ndigits,
 * weight, sign, dscale, then base-10000 digits, without leading or trailing zero groups, as
 * PostgreSQL's own numeric_send writes it. Kept apart from the other types' encoders because it is
 * the one with arithmetic of its own.
 */
@Internal
public final class NumericEncoding {

    private NumericEncoding() {}

    /** The largest display scale {@link #numericOfLong} takes: 10^16 times a fraction below 1 still fits a long. */
    private static final int LONG_NUMERIC_MAX_SCALE = 16;

    private static final long[] POWERS_OF_TEN = new long[LONG_NUMERIC_MAX_SCALE + 1];

    static {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    /**
     * Appends a BigDecimal, BigInteger, integral Number, Double or Float as a numeric field. Almost
     * every value (any whose unscaled value fits a long, with at most 16 decimals) takes {@link
     * #numericOfLong}, by arithmetic; the rest {@link #numericOfDigits}, through the decimal string.
     * Both write the same bytes for the same value (BinaryCopyEncoderTest).
     */
    public static void encode(BinaryCopyEncoder.Buffer out, Object v) {
        BigDecimal d;
        if (v instanceof BigDecimal) {
            d = (BigDecimal) v;
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long l = ((Number) v).longValue();
            if (l != Long.MIN_VALUE) {
                numericOfLong(out, l, 0);
                return;
            }
            d = BigDecimal.valueOf(l);
        } else if (v instanceof BigInteger) {
            d = new BigDecimal((BigInteger) v);
        } else if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            if (Double.isNaN(x)) {
                out.int32(8);
                out.int16(0);
                out.int16(0);
                out.int16(0xC000);
                out.int16(0);
                return;
            }
            if (Double.isInfinite(x)) {
                throw new IllegalArgumentException("infinite value for numeric");
            }
            d = new BigDecimal(Double.toString(x));
        } else {
            throw ColumnEncoders.mismatch(v, "numeric (BigDecimal or a Number)");
        }
        if (d.scale() < 0) {
            d = d.setScale(0); // numeric has no negative display scale: 1E+3 is stored as 1000
        }
        if (d.scale() <= LONG_NUMERIC_MAX_SCALE) {
            BigInteger unscaled = d.unscaledValue();
            if (unscaled.bitLength() < Long.SIZE - 1) {
                numericOfLong(out, unscaled.longValue(), d.scale());
                return;
            }
        }
        numericOfDigits(out, d);
    }

    /**
     * Appends {@code unscaled} x 10^-{@code scale} as a numeric field, with display scale {@code scale}
     * (at least 0): for a decimal held as its unscaled long (Flink's compact DecimalData), without a
     * BigDecimal where {@link #numericOfLong} can take it. The same bytes as {@link #encode} of the
     * equal BigDecimal.
     */
    public static void encode(BinaryCopyEncoder.Buffer out, long unscaled, int scale) {
        if (scale >= 0 && scale <= LONG_NUMERIC_MAX_SCALE && unscaled != Long.MIN_VALUE) {
            numericOfLong(out, unscaled, scale);
        } else {
            encode(out, BigDecimal.valueOf(unscaled, scale));
        }
    }

    /**
     * A numeric of {@code unscaled} x 10^-dscale, for {@code |unscaled| < 2^63 - 1} and {@code 0 <=
     * dscale <= 16}: the integer part's base-10000 digits, then the fraction's, padded on the right to
     * whole groups.
     */
    static void numericOfLong(BinaryCopyEncoder.Buffer out, long unscaled, int dscale) {
        int sign = unscaled < 0 ? 0x4000 : 0;
        long abs = Math.abs(unscaled);
        long integer = abs / POWERS_OF_TEN[dscale];
        int fractionGroups = (dscale + 3) / 4;
        long fraction = abs % POWERS_OF_TEN[dscale] * POWERS_OF_TEN[fractionGroups * 4 - dscale];
        int integerGroups = 0;
        for (long x = integer; x > 0; x /= 10_000) {
            integerGroups++;
        }
        short[] groups = new short[integerGroups + fractionGroups];
        for (int i = integerGroups - 1; i >= 0; i--) {
            groups[i] = (short) (integer % 10_000);
            integer /= 10_000;
        }
        for (int i = groups.length - 1; i >= integerGroups; i--) {
            groups[i] = (short) (fraction % 10_000);
            fraction /= 10_000;
        }
        numericGroups(out, groups, integerGroups, sign, dscale);
    }

    /** A numeric of any size and a scale of at least 0 ({@link #encode} sets 1E+3's to 0), through its decimal digits. */
    static void numericOfDigits(BinaryCopyEncoder.Buffer out, BigDecimal d) {
        int sign = d.signum() < 0 ? 0x4000 : 0;
        d = d.abs();
        int dscale = d.scale();
        String digits = d.unscaledValue().toString();
        String intPart = digits.length() > dscale ? digits.substring(0, digits.length() - dscale) : "";
        String fracPart = digits.length() > dscale
                ? digits.substring(digits.length() - dscale)
                : "0".repeat(dscale - digits.length()) + digits;
        int intPad = (4 - intPart.length() % 4) % 4;
        intPart = "0".repeat(intPad) + intPart;
        int fracPad = (4 - fracPart.length() % 4) % 4;
        fracPart = fracPart + "0".repeat(fracPad);
        int intGroups = intPart.length() / 4;
        short[] groups = new short[intGroups + fracPart.length() / 4];
        for (int i = 0; i < groups.length; i++) {
            String g = i < intGroups
                    ? intPart.substring(i * 4, i * 4 + 4)
                    : fracPart.substring((i - intGroups) * 4, (i - intGroups) * 4 + 4);
            groups[i] = Short.parseShort(g);
        }
        numericGroups(out, groups, intGroups, sign, dscale);
    }

    /**
     * Writes a numeric from its base-10000 groups, the first {@code integerGroups} of them before the
     * decimal point, without leading or trailing zero groups (as PostgreSQL's own numeric_send); zero
     * has no groups, weight 0 and a positive sign.
     */
    private static void numericGroups(
            BinaryCopyEncoder.Buffer out, short[] groups, int integerGroups, int sign, int dscale) {
        int weight = integerGroups - 1;
        int first = 0;
        while (first < groups.length && groups[first] == 0) {
            first++;
            weight--;
        }
        int last = groups.length;
        while (last > first && groups[last - 1] == 0) {
            last--;
        }
        if (first == last) {
            weight = 0;
            sign = 0;
        }
        out.int32(8 + 2 * (last - first));
        out.int16(last - first);
        out.int16(weight);
        out.int16(sign);
        out.int16(dscale);
        for (int i = first; i < last; i++) {
            out.int16(groups[i]);
        }
    }
}
