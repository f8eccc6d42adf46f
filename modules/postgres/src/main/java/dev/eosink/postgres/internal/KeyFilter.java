/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import java.util.List;

/**
 * The keys a writer subtask has written, as a Bloom filter: a fixed-size bit array (4 MiB), three
 * bits per key. {@link #add} answers "never added before" only when that is certain; it may answer
 * "perhaps added" for a key never added (rarely, more often as the filter fills). That one-sided
 * error is what {@link UpsertWriter} needs: a key wrongly thought written only takes the slower
 * path, while a key never wrongly thought new keeps the order of its writes.
 */
final class KeyFilter {

    /** 2^25 bits: about 1 in 1,700 keys wrongly "perhaps added" after 1 million keys, 1 in 20 after 5 million. */
    static final int DEFAULT_BITS_LOG2 = 25;

    private final long[] words;
    private final int mask;
    private long bitsSet;
    private long clears;

    KeyFilter() {
        this(DEFAULT_BITS_LOG2);
    }

    KeyFilter(int bitsLog2) {
        if (bitsLog2 < 6 || bitsLog2 > 31) {
            throw new IllegalArgumentException("bitsLog2 must be within 6..31: " + bitsLog2);
        }
        this.words = new long[1 << (bitsLog2 - 6)];
        this.mask = (int) ((1L << bitsLog2) - 1);
    }

    /** Adds the key; true if it was certainly never added before (since the last {@link #clear}). */
    boolean add(Object key) {
        return add(hash(key));
    }

    /** {@link #add(Object)} with the key's {@link #hash}, when the caller has it already. */
    boolean add(long h) {
        int h1 = (int) h;
        int h2 = (int) (h >>> 32) | 1;
        boolean added = false;
        for (int i = 0; i < 3; i++) {
            int bit = (h1 + i * h2) & mask;
            long word = words[bit >>> 6];
            long b = 1L << bit;
            if ((word & b) == 0) {
                words[bit >>> 6] = word | b;
                bitsSet++;
                added = true;
            }
        }
        return added;
    }

    /** Whether half the bits are set: from there on, wrong "perhaps added" answers become common. */
    boolean saturated() {
        return bitsSet > (mask + 1L) / 2;
    }

    void clear() {
        java.util.Arrays.fill(words, 0L);
        bitsSet = 0;
        clears++;
    }

    /** How often it was cleared, for logs and tests. */
    long clears() {
        return clears;
    }

    /**
     * A 64-bit hash of a key (its text form, or a list of them): FNV-1a over the characters, then
     * SplitMix64's finalizer. String.hashCode's 32 bits would make the three bits far less independent.
     */
    static long hash(Object key) {
        long h = 0xcbf29ce484222325L;
        if (key instanceof String) {
            h = fnv(h, (String) key);
        } else {
            for (Object part : (List<?>) key) {
                h = fnv(h, (String) part);
                h = (h ^ 0x1f) * 0x100000001b3L; // a separator: ("ab", "c") and ("a", "bc") differ
            }
        }
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        return h ^ (h >>> 31);
    }

    private static long fnv(long h, String text) {
        for (int i = 0; i < text.length(); i++) {
            h = (h ^ text.charAt(i)) * 0x100000001b3L;
        }
        return h;
    }
}
