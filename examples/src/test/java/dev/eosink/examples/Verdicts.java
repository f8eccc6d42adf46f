/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import static org.assertj.core.api.Assertions.assertThat;

/** The end of every exactly-once test of the examples: the verdict, count by count. */
final class Verdicts {

    private Verdicts() {}

    /** Expected rows, zero duplicates, zero missing or unexpected, zero wrong values, nothing prepared left. */
    static void assertExact(Verdict v) {
        assertThat(v.duplicates).as(v.toString()).isZero();
        assertThat(v.missing).as(v.toString()).isZero();
        assertThat(v.unexpected).as(v.toString()).isZero();
        assertThat(v.wrong).as(v.toString()).isZero();
        assertThat(v.preparedLeft).as(v.toString()).isZero();
        assertThat(v.rows).as(v.toString()).isEqualTo(v.expected);
        assertThat(v.exact()).as(v.toString()).isTrue();
    }
}
