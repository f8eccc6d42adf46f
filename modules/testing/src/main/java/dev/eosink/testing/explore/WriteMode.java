/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.testing.hardcases.KeyedResource;
import dev.eosink.testing.hardcases.ResourceBackend;
import dev.eosink.testing.hardcases.SinkSpec;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * How a {@link Scenario}'s jobs write the ids 0..{@link Scenario#IDS}-1, and so what the {@link Oracle} can
 * hold the table to. The first word of a scenario's text ({@code mode changelog; start ...}); a text
 * without it is {@link #INSERT}, as every scenario was before the modes.
 */
public enum WriteMode {
    /**
     * Each id inserted once, by the backend's plain sink ({@code ResourceBackend.sink}), from a source at the
     * job's parallelism rebalanced into the writers: every id must be committed exactly once.
     */
    INSERT,
    /**
     * {@link #INSERT}, by JDBC batches ({@code ResourceBackend.batchSink}) where the backend's plain sink
     * writes otherwise by default (PostgreSQL: COPY): the same promises, another write path.
     */
    INSERT_BY_BATCH,
    /**
     * Each id a changelog record ({@link ChangelogIds}: upserts, deletes and UPDATE_BEFOREs by key), written
     * by the backend's changelog sink ({@code KeyedResource}), from a source at parallelism 1 whose records
     * keep each key's order into the writers: the table must end as the replay of the whole input.
     */
    CHANGELOG,
    /**
     * {@link #CHANGELOG}, written by COPY ({@code KeyedResource.Method.COPY}) where the backend has it
     * (PostgreSQL): statements gather thousands of keys before they run, so with the few hundred keys of an
     * epoch they run at barriers, carried past the barrier while the previous transaction commits.
     */
    CHANGELOG_BY_COPY;

    /** Whether the table holds each key's last write (the replay), not each record. */
    boolean changelog() {
        return this == CHANGELOG || this == CHANGELOG_BY_COPY;
    }

    /**
     * The modes a backend offers: insert everywhere, by batches where that is another path; the changelog ones
     * where it has a changelog sink.
     */
    static Set<WriteMode> on(ResourceBackend backend) {
        Set<WriteMode> modes = EnumSet.of(INSERT);
        if (backend.batchSink(SinkSpec.of("probe", "probe")).isPresent()) {
            modes.add(INSERT_BY_BATCH);
        }
        backend.keyed().ifPresent(keyed -> {
            modes.add(CHANGELOG);
            if (keyed.methods().contains(KeyedResource.Method.COPY)) {
                modes.add(CHANGELOG_BY_COPY);
            }
        });
        return modes;
    }

    /**
     * The mode as a scenario's text names it: {@code insert}, {@code insert-by-batch}, {@code changelog},
     * {@code changelog-by-copy}.
     */
    String word() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The first step-like part of a scenario's text: {@code mode changelog}. */
    String text() {
        return "mode " + word();
    }

    /** Reads {@link #word()}. */
    static WriteMode of(String word) {
        for (WriteMode mode : values()) {
            if (mode.word().equals(word)) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "not a write mode: '" + word + "' (insert, insert-by-batch, changelog or changelog-by-copy)");
    }
}
