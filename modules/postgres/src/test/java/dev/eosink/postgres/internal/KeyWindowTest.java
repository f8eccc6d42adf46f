/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * KeyWindow against a LinkedHashMap doing the same (insertion order, replace in place, remove,
 * take the eldest), over random operations, with real hashes and with hashes that collide on
 * purpose (few distinct values), so that long probe runs and their backward-shift deletion are
 * exercised across the end of the index.
 */
class KeyWindowTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3, 64})
    void behavesLikeAnInsertionOrderedMap(int distinctHashes) {
        Random random = new Random(distinctHashes);
        KeyWindow<Object[]> window = new KeyWindow<>(64);
        LinkedHashMap<String, long[]> model = new LinkedHashMap<>();
        for (int op = 0; op < 200_000; op++) {
            String key = "k" + random.nextInt(150);
            long hash = distinctHashes == 0
                    ? KeyFilter.hash(key)
                    : distinctHashes == 64
                            ? KeyFilter.hash(key) | 0xfff0L // same low bits, many keys per home
                            : (key.hashCode() % distinctHashes) * 0x10001L - 3; // negative too: masked like the rest
            int slot = window.find(key, hash);
            assertThat(slot >= 0).as("held: %s", key).isEqualTo(model.containsKey(key));
            int dice = random.nextInt(10);
            if (slot >= 0 && dice < 3) {
                window.remove(slot);
                model.remove(key);
            } else if (slot >= 0) {
                Object[] row = {key, (long) op};
                window.replace(slot, row, op);
                model.get(key)[0] = op;
            } else if (dice < 8) {
                if (window.isFull()) {
                    takeEldest(window, model);
                }
                window.add(key, hash, new Object[] {key, (long) op}, op);
                model.put(key, new long[] {op});
            } else if (!model.isEmpty()) {
                takeEldest(window, model);
            }
            assertThat(window.size()).isEqualTo(model.size());
            assertThat(window.isEmpty()).isEqualTo(model.isEmpty());
        }
        while (!model.isEmpty()) {
            takeEldest(window, model);
        }
        assertThat(window.pollEldest()).isFalse();
        assertThat(window.isEmpty()).isTrue();
    }

    private static void takeEldest(KeyWindow<Object[]> window, LinkedHashMap<String, long[]> model) {
        Iterator<Map.Entry<String, long[]>> eldest = model.entrySet().iterator();
        Map.Entry<String, long[]> e = eldest.next();
        eldest.remove();
        assertThat(window.pollEldest()).isTrue();
        assertThat(window.polledRow()[0]).as("eldest key").isEqualTo(e.getKey());
        assertThat(window.polledPosition()).as("its latest position").isEqualTo(e.getValue()[0]);
        assertThat(window.polledRow()[1]).isEqualTo(e.getValue()[0]);
    }
}
