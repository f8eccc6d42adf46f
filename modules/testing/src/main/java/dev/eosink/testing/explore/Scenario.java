/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A short sequence of {@link Step}s in a {@link WriteMode}, drawn from a seed ({@link ScenarioGenerator})
 * or read from its text ({@link #parse}): what one exploration runs against a fresh table and sink id,
 * before the {@link ScenarioRunner} closes it (the last line of history runs to its end) and the {@link
 * Oracle} judges it. The mode is the scenario's, not a step: the shrinker removes steps, never the mode.
 */
public final class Scenario {

    /** Ids 0..IDS-1 run through every scenario. */
    public static final long IDS = 1_500;

    private final long seed;
    private final WriteMode mode;
    private final List<Step> steps;

    /**
     * The scenario of {@code steps} (copied) in {@code mode}, drawn from {@code seed} (0 for one read from text).
     * Throws {@link NullPointerException} for a null mode or step.
     */
    public Scenario(long seed, WriteMode mode, List<Step> steps) {
        this.seed = seed;
        this.mode = Objects.requireNonNull(mode);
        this.steps = List.copyOf(steps);
    }

    /** The seed the scenario was drawn from (0 for one read from text). */
    public long seed() {
        return seed;
    }

    /** What the scenario's jobs write: inserts of ids, or a changelog upserted by key. */
    public WriteMode mode() {
        return mode;
    }

    /** The steps, in order; unmodifiable. */
    public List<Step> steps() {
        return steps;
    }

    /** The same scenario without step {@code index}. */
    public Scenario without(int index) {
        List<Step> fewer = new ArrayList<>(steps);
        fewer.remove(index);
        return new Scenario(seed, mode, fewer);
    }

    /** The same scenario with step {@code index} replaced. */
    public Scenario with(int index, Step step) {
        List<Step> changed = new ArrayList<>(steps);
        changed.set(index, step);
        return new Scenario(seed, mode, changed);
    }

    /** The mode, then the steps, separated by "; ": what {@link #parse} reads. */
    public String text() {
        return Stream.concat(Stream.of(mode.text()), steps.stream().map(Step::toString))
                .collect(Collectors.joining("; "));
    }

    /**
     * Reads {@link #text()}. A text that does not begin with the mode ({@code mode changelog}) is in {@link
     * WriteMode#INSERT}: the scenarios printed before there were modes replay as they ran.
     */
    public static Scenario parse(String text) {
        List<String> parts = Arrays.stream(text.split(";"))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toList());
        WriteMode mode = WriteMode.INSERT;
        if (!parts.isEmpty() && parts.get(0).startsWith("mode ")) {
            mode = WriteMode.of(parts.remove(0).substring("mode ".length()).trim());
        }
        return new Scenario(0, mode, parts.stream().map(Step::parse).collect(Collectors.toList()));
    }

    @Override
    public String toString() {
        return "scenario " + Long.toUnsignedString(seed, 36) + ": " + text();
    }
}
