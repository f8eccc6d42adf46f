/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.testing.records.UpsertRecords;

import org.apache.flink.types.RowKind;

import java.util.Map;

/**
 * The records of a {@link WriteMode#CHANGELOG} scenario, as functions of their index: each id {@code i} is
 * the row {@code (key(i), i)} of kind {@code kind(i)}. The input alternates blocks of {@value #BLOCK}
 * records of two kinds, because each shows what the other hides:
 *
 * <ul>
 *   <li><b>Hot</b> blocks: {@value #HOT_KEYS} keys written over and over ({@link UpsertRecords#hotKind}:
 *       upserts, deletes, UPDATE_BEFOREs, re-inserts), so that every epoch rewrites the rows of the one
 *       before, whose transaction may still be prepared. The last hot block leaves each hot key as its last
 *       record there, some deleted by an UPDATE_BEFORE with no UPDATE_AFTER after it.
 *   <li><b>Churn</b> blocks: each record upserts a key of its own, and from {@value #LAG} records into the
 *       block every other record deletes the key inserted {@value #LAG} records before it (by DELETE and by
 *       UPDATE_BEFORE in turn), for good. A key's delete thus often comes one epoch after its insert, and it
 *       is the key's last record: a delete that missed its row (run before the transaction that inserted it
 *       committed) shows in the final table. In a hot block it would not: the key's next write repairs it,
 *       and an upsert of a row of that transaction, run before the delete, waits for its commit anyway.
 * </ul>
 */
final class ChangelogIds {

    /** Records per block; blocks alternate churn (even blocks, from the first record) and hot. */
    static final int BLOCK = 250;
    /** Keys 0..HOT_KEYS-1 are the hot blocks' keys. */
    static final int HOT_KEYS = 24;
    /** Odd: a churn block's delete (odd offset) follows the insert (even offset) of its key by this many records. */
    static final int LAG = 81;
    /** A churn record's own key is this plus its index: never one of the hot keys. */
    static final long CHURN_KEYS = 1_000;

    private ChangelogIds() {}

    static long key(long i) {
        if (hot(i)) {
            return i % HOT_KEYS;
        }
        return deletes(i) ? CHURN_KEYS + i - LAG : CHURN_KEYS + i;
    }

    static RowKind kind(long i) {
        if (hot(i)) {
            return UpsertRecords.hotKind(i);
        }
        long offset = i % BLOCK;
        if (deletes(i)) {
            return (offset - LAG) / 2 % 2 == 0 ? RowKind.UPDATE_BEFORE : RowKind.DELETE;
        }
        return offset / 2 % 2 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER;
    }

    /** Each key's last record: key -> the index of the last record of that key among ids 0..IDS-1. */
    static Map<Long, Long> lastRecords() {
        Map<Long, Long> last = new java.util.HashMap<>();
        for (long i = 0; i < Scenario.IDS; i++) {
            last.put(key(i), i);
        }
        return last;
    }

    /** Whether record {@code i} writes its key's row (an insert or an update), rather than deleting it. */
    static boolean writes(long i) {
        RowKind kind = kind(i);
        return kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER;
    }

    /** The table once ids 0..{@link Scenario#IDS}-1 were written in order into an empty one: key -> value. */
    static Map<Long, Long> expected() {
        return UpsertRecords.replay(Scenario.IDS, ChangelogIds::key, ChangelogIds::kind);
    }

    private static boolean hot(long i) {
        return i / BLOCK % 2 == 1;
    }

    /** Whether churn record {@code i} deletes the key of record {@code i - LAG}. */
    private static boolean deletes(long i) {
        long offset = i % BLOCK;
        return offset % 2 == 1 && offset >= LAG;
    }
}
