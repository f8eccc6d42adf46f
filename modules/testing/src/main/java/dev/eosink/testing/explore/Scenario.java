package dev.eosink.testing.explore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A short sequence of {@link Step}s, drawn from a seed ({@link ScenarioGenerator}) or read from its text
 * ({@link #parse}): what one exploration runs against a fresh table and sink id, before the {@link
 * ScenarioRunner} closes it (the last line of history runs to its end) and the {@link Oracle} judges it.
 */
public final class Scenario {

    /** Ids 0..IDS-1 run through every scenario. */
    public static final long IDS = 1_500;

    private final long seed;
    private final List<Step> steps;

    public Scenario(long seed, List<Step> steps) {
        this.seed = seed;
        this.steps = List.copyOf(steps);
    }

    /** The seed the scenario was drawn from (0 for one read from text). */
    public long seed() {
        return seed;
    }

    public List<Step> steps() {
        return steps;
    }

    /** The same scenario without step {@code index}. */
    public Scenario without(int index) {
        List<Step> fewer = new ArrayList<>(steps);
        fewer.remove(index);
        return new Scenario(seed, fewer);
    }

    /** The same scenario with step {@code index} replaced. */
    public Scenario with(int index, Step step) {
        List<Step> changed = new ArrayList<>(steps);
        changed.set(index, step);
        return new Scenario(seed, changed);
    }

    /** The steps, separated by "; ": what {@link #parse} reads. */
    public String text() {
        return steps.stream().map(Step::toString).collect(Collectors.joining("; "));
    }

    public static Scenario parse(String text) {
        return new Scenario(0, Arrays.stream(text.split(";")).filter(s -> !s.isBlank()).map(Step::parse)
                .collect(Collectors.toList()));
    }

    @Override
    public String toString() {
        return "scenario " + Long.toUnsignedString(seed, 36) + ": " + text();
    }
}
