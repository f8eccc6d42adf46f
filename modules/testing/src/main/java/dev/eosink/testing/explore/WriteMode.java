package dev.eosink.testing.explore;

import java.util.Locale;

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
     * Each id a changelog record ({@link ChangelogIds}: upserts, deletes and UPDATE_BEFOREs by key), written
     * by the backend's changelog sink ({@code KeyedResource}), from a source at parallelism 1 whose records
     * keep each key's order into the writers: the table must end as the replay of the whole input.
     */
    CHANGELOG;

    /** The mode as a scenario's text names it: {@code insert}, {@code changelog}. */
    String word() {
        return name().toLowerCase(Locale.ROOT);
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
        throw new IllegalArgumentException("not a write mode: '" + word + "' (insert or changelog)");
    }
}
