/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.testing.hardcases.ForgetfulHaServicesFactory;
import dev.eosink.testing.hardcases.ResourceBackend;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The explorer on one backend: draws scenarios from the run's seed ({@link ExploreSettings}) and runs
 * them until the budget is spent, shrinks each violating one, prints every violation with its replay
 * command and a test body, and fails if there was one. A test class extends it once per backend, with
 * its CI budget; {@code ./explore} runs that class with a longer one.
 */
public abstract class ExplorerSuite {

    private static final Logger LOG = LoggerFactory.getLogger(ExplorerSuite.class);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setConfiguration(ForgetfulHaServicesFactory.configure(new Configuration()))
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(4)
                    .build());

    private final ResourceBackend backend;
    private final Duration ciBudget;
    private final Optional<Function<ResourceBackend, Resolver>> resolver;

    /**
     * Explores {@code backend} for about {@code ciBudget} in CI, without the operator's tool (no {@code resolve} step).
     */
    protected ExplorerSuite(ResourceBackend backend, Duration ciBudget) {
        this(backend, ciBudget, Optional.empty());
    }

    /**
     * With the operator's tool: scenarios also run {@code eosink-admin resolve} on dead jobs ({@link
     * Step.Resolve}), {@code resolver} made for the backend the explorer runs on.
     */
    protected ExplorerSuite(ResourceBackend backend, Duration ciBudget, Function<ResourceBackend, Resolver> resolver) {
        this(backend, ciBudget, Optional.of(resolver));
    }

    private ExplorerSuite(
            ResourceBackend backend, Duration ciBudget, Optional<Function<ResourceBackend, Resolver>> resolver) {
        this.backend = backend;
        this.ciBudget = ciBudget;
        this.resolver = resolver;
    }

    /** The budget bounds the exploration; each step has its own timeouts. A long run takes hours. */
    @Test
    @Timeout(value = 12, unit = TimeUnit.HOURS)
    void explore(@InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        try (Explorer explorer = Explorer.open(backend, client, dir, resolver)) {
            explore(explorer);
        }
    }

    private void explore(Explorer explorer) throws Exception {
        String name = backend.name() + (resolver.isPresent() ? " with eosink-admin" : "");
        if (ExploreSettings.replay().isPresent()) {
            Explorer.Outcome outcome =
                    explorer.check(Scenario.parse(ExploreSettings.replay().get()));
            LOG.info("Explorer replay on {}:\n{}", name, outcome.history.describe());
            if (outcome.violates()) {
                throw new AssertionError(Explorer.report(outcome, name, "replay"));
            }
            return;
        }
        long seed = ExploreSettings.seed();
        Duration budget = ExploreSettings.budget(ciBudget);
        String seedText = Long.toUnsignedString(seed, 36);
        LOG.info(
                "Explorer on {}: seed {}, budget {} s (./explore --backend {} --seed {} replays this run)",
                name,
                seedText,
                budget.toSeconds(),
                ExploreSettings.backendOption(name),
                seedText);
        long deadline = System.nanoTime() + budget.toNanos();
        List<String> reports = new ArrayList<>();
        Set<WriteMode> modes = WriteMode.on(backend);
        int scenarios = 0;
        int changelogs = 0;
        int steps = 0;
        while (System.nanoTime() < deadline) {
            Scenario scenario = ScenarioGenerator.generate(
                    ExploreSettings.scenarioSeed(seed, scenarios), modes, resolver.isPresent());
            Explorer.Outcome outcome = explorer.check(scenario);
            scenarios++;
            changelogs += scenario.mode().changelog() ? 1 : 0;
            steps += scenario.steps().size();
            if (outcome.violates()) {
                String found = "seed " + seedText + ", scenario " + (scenarios - 1);
                // Printed before the shrinker runs: if it is stopped, the violation is still on record.
                LOG.error("{}(shrinking it next)", Explorer.report(outcome, name, found));
                Explorer.Outcome shrunk = explorer.shrink(outcome, ExploreSettings.shrinkAttempts(12));
                String report = Explorer.report(outcome, name, found)
                        + (shrunk == outcome
                                ? ""
                                : "shrunk from " + scenario.steps().size() + " to "
                                        + shrunk.scenario.steps().size() + " steps:\n"
                                        + Explorer.report(shrunk, name, found + ", shrunk"));
                LOG.error(report);
                reports.add(report);
                System.out.println(report);
            }
        }
        String summary = "Explorer on " + name + ": " + scenarios + " scenarios (" + changelogs
                + " in changelog mode), " + steps + " steps, " + reports.size() + " violating, seed " + seedText + ", "
                + budget.toSeconds() + " s";
        LOG.info(summary);
        System.out.println(summary);
        if (!reports.isEmpty()) {
            throw new AssertionError(summary + "\n\n" + String.join("\n", reports));
        }
        if (scenarios == 0) {
            throw new AssertionError("the budget of " + budget + " ran no scenario at all");
        }
    }
}
