/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link KeyFilter}, the Bloom filter that decides which keys an upsert writer may send by COPY. Its
 * one correctness duty is to have no false negatives: a key once added must never again be answered
 * "never added" (until {@link KeyFilter#clear}), or a later write of that key would take the COPY path
 * and could land before or instead of the key's earlier writes. Its false positives only cost speed,
 * so they are bounded here by what the filter's size promises, not required to be zero.
 */
class KeyFilterTest {

    /** Random keys, distinct (a Set), in a fixed order: the same run every time. */
    private static List<String> distinctKeys(int n, long seed) {
        Random random = new Random(seed);
        Set<String> seen = new HashSet<>();
        List<String> keys = new ArrayList<>(n);
        while (keys.size() < n) {
            String key = Long.toString(random.nextLong(), 36) + "/" + random.nextInt(1000);
            if (seen.add(key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    /**
     * No false negatives over a million random keys: after they are all added, every one of them is
     * answered "perhaps added", however full the filter is.
     */
    @Test
    void noKeyOnceAddedIsEverAnsweredNeverAdded() {
        KeyFilter filter = new KeyFilter();
        List<String> keys = distinctKeys(1_000_000, 1);
        keys.forEach(filter::add);
        long falseNegatives = keys.stream().filter(filter::add).count();
        assertThat(falseNegatives)
                .as("keys added before and answered 'never added'")
                .isZero();

        // The same holds in a tiny, overfull filter (every bit may be set: then nothing is "new").
        KeyFilter tiny = new KeyFilter(8);
        List<String> few = distinctKeys(5_000, 2);
        few.forEach(tiny::add);
        assertThat(few.stream().filter(tiny::add).count()).isZero();
    }

    /**
     * The first add of a key never seen is answered "never added" except for the rare false
     * positive: with the default 2^25 bits, the class promises about 1 in 1,700 wrong answers after
     * a million keys (fewer before), so over the first million keys far less than 0.1% may be wrong.
     */
    @Test
    void firstAddOfANewKeyIsAnsweredNeverAddedAlmostAlways() {
        KeyFilter filter = new KeyFilter();
        List<String> keys = distinctKeys(1_000_000, 3);
        long falsePositives = keys.stream().filter(k -> !filter.add(k)).count();
        assertThat(falsePositives)
                .as("new keys answered 'perhaps added' among 1,000,000")
                .isLessThan(1_000);
        assertThat(filter.saturated()).isFalse();
    }

    /**
     * Saturated means more than half the bits set: never before (bits / 2) / 3 keys (each key sets at
     * most three bits), always once enough keys went in. Clearing forgets everything: the filter is
     * no longer saturated and answers exactly as a new one.
     */
    @Test
    void saturatesWhenHalfTheBitsAreSetAndClearForgetsEverything() {
        KeyFilter filter = new KeyFilter(10); // 1,024 bits: saturated above 512 set
        List<String> keys = distinctKeys(2_000, 4);
        for (int i = 0; i < 170; i++) {
            filter.add(keys.get(i));
            assertThat(filter.saturated())
                    .as("after %d keys (at most %d bits set)", i + 1, 3 * (i + 1))
                    .isFalse();
        }
        int added = 170;
        while (!filter.saturated()) {
            assertThat(added).as("keys added without saturating 1,024 bits").isLessThan(2_000);
            filter.add(keys.get(added++));
        }
        // Half full: a new key is now often answered "perhaps added" (the reason to clear).
        long perhaps =
                keys.subList(added, 2_000).stream().filter(k -> !filter.add(k)).count();
        assertThat(perhaps).as("false positives in a saturated filter").isPositive();

        filter.clear();
        assertThat(filter.saturated()).isFalse();
        assertThat(filter.add(keys.get(0))).as("a key added before the clear").isTrue();
        // From then on it answers exactly as a new filter does.
        KeyFilter fresh = new KeyFilter(10);
        fresh.add(keys.get(0));
        for (String key : keys) {
            assertThat(filter.add(key)).as("cleared vs new filter on %s", key).isEqualTo(fresh.add(key));
            assertThat(filter.saturated()).isEqualTo(fresh.saturated());
        }
    }

    /**
     * Keys of a composite upsert key are lists of the columns' texts, and a list hashes with a
     * separator after every part: ("ab", "c") and ("a", "bc") are different keys and hash apart, a
     * one-part list differs from the plain string of a single-column key, and equal lists (whatever
     * their class) hash the same, so the filter answers by content.
     */
    @Test
    void compositeKeysHashByTheirPartsNotTheirConcatenation() {
        assertThat(KeyFilter.hash(List.of("ab", "c"))).isNotEqualTo(KeyFilter.hash(List.of("a", "bc")));
        assertThat(KeyFilter.hash(List.of("abc"))).isNotEqualTo(KeyFilter.hash(List.of("ab", "c")));
        assertThat(KeyFilter.hash(List.of("a"))).isNotEqualTo(KeyFilter.hash("a"));
        assertThat(KeyFilter.hash(List.of("a", "b"))).isNotEqualTo(KeyFilter.hash("ab"));
        assertThat(KeyFilter.hash(List.of("", "x"))).isNotEqualTo(KeyFilter.hash(List.of("x", "")));
        assertThat(KeyFilter.hash(new ArrayList<>(List.of("x", "y")))).isEqualTo(KeyFilter.hash(List.of("x", "y")));
        assertThat(KeyFilter.hash("x")).isEqualTo(KeyFilter.hash(new String(new char[] {'x'})));

        KeyFilter filter = new KeyFilter();
        assertThat(filter.add(List.of("ab", "c"))).isTrue();
        assertThat(filter.add(List.of("a", "bc")))
                .as("a different composite key")
                .isTrue();
        assertThat(filter.add("abc")).as("a single-column key").isTrue();
        assertThat(filter.add(new ArrayList<>(List.of("ab", "c"))))
                .as("the first key again, as another List")
                .isFalse();
        assertThat(filter.add(List.of("a", "bc"))).isFalse();
        assertThat(filter.add("abc")).isFalse();

        // Composite keys keep the no-false-negative promise too.
        Random random = new Random(5);
        List<List<String>> composite = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            composite.add(List.of(Integer.toString(random.nextInt(1000)), Long.toString(random.nextLong(), 36)));
        }
        composite.forEach(filter::add);
        assertThat(composite.stream().filter(filter::add).count()).isZero();
    }

    @Test
    void sizeIsBounded() {
        assertThatThrownBy(() -> new KeyFilter(5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KeyFilter(32)).isInstanceOf(IllegalArgumentException.class);
        KeyFilter smallest = new KeyFilter(6);
        assertThat(smallest.add("k")).isTrue();
        assertThat(smallest.add("k")).isFalse();
    }
}
