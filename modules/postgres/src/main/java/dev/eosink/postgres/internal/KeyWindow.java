/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import java.util.Arrays;

/**
 * The new keys' rows that {@link UpsertWriter} holds back before COPY, oldest first, found by key.
 *
 * <p>A ring of slots (insertion order, for eviction) and an open-addressing index over them keyed
 * by the key's 64-bit hash, which the writer computes once per record for {@link KeyFilter} anyway.
 * Why not a {@code LinkedHashMap}: every record of an upsert stream passes through here, and the
 * map's entry and wrapper objects, its iterator per eviction and the key's hashCode cost about a
 * fifth of the writer thread's time (JFR profile of the benchmark at parallelism 2).
 *
 * <p>A removed entry (a delete of a held key) leaves a hole in the ring until it reaches the head;
 * holes are skipped when the eldest is taken. The index uses linear probing with backward-shift
 * deletion, so it never accumulates tombstones.
 *
 * @param <R> the rows held
 */
final class KeyWindow<R> {

    private final int capacity;
    private final Object[] keys;
    /** The held rows, as R: an array of a type variable can only be an Object[]. */
    private final Object[] rows;

    private final long[] positions;
    private final long[] hashes;
    /** Ring: slots head .. head + used - 1 (mod capacity), holes included. */
    private int head;

    private int used;
    private int live;

    /** index[i] = slot + 1, or 0 when empty; four times the capacity keeps probe runs short. */
    private final int[] index;

    private final int indexMask;

    private R polledRow;
    private long polledPosition;

    KeyWindow(int capacity) {
        if (capacity < 1 || Integer.bitCount(capacity) != 1 || capacity > (1 << 28)) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.capacity = capacity;
        this.keys = new Object[capacity];
        this.rows = new Object[capacity];
        this.positions = new long[capacity];
        this.hashes = new long[capacity];
        this.index = new int[capacity * 4];
        this.indexMask = index.length - 1;
    }

    int size() {
        return live;
    }

    boolean isEmpty() {
        return live == 0;
    }

    /** Whether {@link #add} needs the eldest taken out first. */
    boolean isFull() {
        return used == capacity;
    }

    /** The slot holding {@code key} (whose {@link KeyFilter#hash} is {@code hash}), or -1. */
    int find(Object key, long hash) {
        for (int i = (int) hash & indexMask; index[i] != 0; i = (i + 1) & indexMask) {
            int slot = index[i] - 1;
            if (hashes[slot] == hash && keys[slot].equals(key)) {
                return slot;
            }
        }
        return -1;
    }

    /** A later write of a held key: it keeps the key's place, takes the new row and position. */
    void replace(int slot, R row, long position) {
        rows[slot] = row;
        positions[slot] = position;
    }

    /** Adds a key that is not held; the window must not be {@link #isFull full}. */
    void add(Object key, long hash, R row, long position) {
        if (isFull()) {
            throw new IllegalStateException("the window is full");
        }
        int slot = (head + used) & (capacity - 1);
        keys[slot] = key;
        hashes[slot] = hash;
        rows[slot] = row;
        positions[slot] = position;
        used++;
        live++;
        int i = (int) hash & indexMask;
        while (index[i] != 0) {
            i = (i + 1) & indexMask;
        }
        index[i] = slot + 1;
    }

    /** Drops a held key (its delete came while it was held). */
    void remove(int slot) {
        unindex(slot);
        keys[slot] = null;
        rows[slot] = null;
        if (--live == 0) {
            head = 0;
            used = 0; // only holes left
        }
    }

    /**
     * Takes the eldest held key out; its row and position are then {@link #polledRow} and {@link
     * #polledPosition}. False when nothing is held.
     */
    boolean pollEldest() {
        while (used > 0) {
            int slot = head;
            head = (head + 1) & (capacity - 1);
            used--;
            if (keys[slot] != null) {
                unindex(slot);
                polledRow = row(slot);
                polledPosition = positions[slot];
                keys[slot] = null;
                rows[slot] = null;
                if (--live == 0) {
                    head = 0;
                    used = 0;
                }
                return true;
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked") // only ever an R was stored
    private R row(int slot) {
        return (R) rows[slot];
    }

    R polledRow() {
        return polledRow;
    }

    long polledPosition() {
        return polledPosition;
    }

    void clear() {
        Arrays.fill(keys, null);
        Arrays.fill(rows, null);
        Arrays.fill(index, 0);
        head = 0;
        used = 0;
        live = 0;
        polledRow = null;
    }

    /** Removes a slot's entry from the index, shifting later entries of its probe run back. */
    private void unindex(int slot) {
        int hole = (int) hashes[slot] & indexMask;
        while (index[hole] != slot + 1) {
            hole = (hole + 1) & indexMask;
        }
        for (int j = (hole + 1) & indexMask; index[j] != 0; j = (j + 1) & indexMask) {
            int home = (int) hashes[index[j] - 1] & indexMask;
            // The entry at j stays if its home lies cyclically in (hole, j]; else it moves into the hole.
            boolean staysPut = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!staysPut) {
                index[hole] = index[j];
                hole = j;
            }
        }
        index[hole] = 0;
    }
}
