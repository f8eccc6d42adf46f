/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.HardCaseBackend;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.ResourceBackend;

import org.apache.flink.client.program.ClusterClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Runs scenarios on one backend and judges them: {@link #check} runs one and returns what the {@link
 * Oracle} found; {@link #shrink} reduces a violating scenario to the fewest steps (and the plainest
 * parameters) that still violate; {@link #assertKeepsItsPromises} is what a test pasted from a report
 * calls. Every scenario gets a fresh table and sink id, and leaves nothing behind.
 */
public final class Explorer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Explorer.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final ResourceBackend backend;
    private final Optional<HardCaseBackend.OwnServer> server;
    private final ClusterClient<?> client;
    private final Path dir;
    private final Optional<Resolver> resolver;

    private Explorer(
            ResourceBackend backend,
            Optional<HardCaseBackend.OwnServer> server,
            ClusterClient<?> client,
            Path dir,
            Optional<Resolver> resolver) {
        this.backend = backend;
        this.server = server;
        this.resolver = resolver;
        this.client = client;
        this.dir = dir;
    }

    /**
     * An explorer on {@code backend}. A database backend gets a server of the explorer's own (started
     * here, stopped by {@link #close}), so that a scenario may crash it; elsewhere (files) a crash step
     * is skipped, with a note.
     */
    public static Explorer open(ResourceBackend backend, ClusterClient<?> client, Path dir) {
        return open(backend, client, dir, Optional.empty());
    }

    /**
     * As {@link #open(ResourceBackend, ClusterClient, Path)}, with the operator's tool for {@code resolve}
     * steps, made for the backend the explorer runs on (its own server, where it starts one).
     */
    public static Explorer open(
            ResourceBackend backend,
            ClusterClient<?> client,
            Path dir,
            Optional<Function<ResourceBackend, Resolver>> resolver) {
        if (backend instanceof HardCaseBackend database) {
            HardCaseBackend.OwnServer own = database.startOwnServer();
            HardCaseBackend served = own.backend();
            return new Explorer(served, Optional.of(own), client, dir, resolver.map(r -> r.apply(served)));
        }
        return new Explorer(backend, Optional.empty(), client, dir, resolver.map(r -> r.apply(backend)));
    }

    /** Stops the explorer's own server, if it has one. */
    @Override
    public void close() {
        server.ifPresent(HardCaseBackend.OwnServer::close);
    }

    /** What one run of a scenario showed. */
    public static final class Outcome {
        /** The scenario that ran. */
        public final Scenario scenario;
        /** What the run showed: the jobs, their snapshots, what the database held. */
        public final History history;
        /** What the oracle found wrong in the history, one line each; empty when it found nothing. Unmodifiable. */
        public final List<String> violations;

        Outcome(Scenario scenario, History history, List<String> violations) {
            this.scenario = scenario;
            this.history = history;
            this.violations = List.copyOf(violations);
        }

        /** Whether the oracle found anything wrong. */
        public boolean violates() {
            return !violations.isEmpty();
        }
    }

    /**
     * Runs {@code scenario} on a fresh table (of its mode) and sink id, judges it, and cleans up. A scenario in
     * {@link WriteMode#CHANGELOG} needs a backend with a changelog sink ({@code ResourceBackend.keyed()}).
     */
    public Outcome check(Scenario scenario) throws Exception {
        int n = SEQUENCE.incrementAndGet();
        String name = "ex_" + n + "_" + (System.nanoTime() % 100_000);
        String sinkId = name.replace('_', '-');
        Target target = Target.of(scenario.mode(), backend, name);
        target.create();
        Path scenarioDir = Files.createDirectories(dir.resolve(name));
        try {
            History history = new ScenarioRunner(target, server, resolver, client, scenarioDir, sinkId).run(scenario);
            List<String> violations = Oracle.violations(history);
            int abandoned = history.preparedAtEnd.size();
            if (abandoned > 0 && violations.isEmpty()) {
                history.notes.add(abandoned + " transaction(s) of abandoned lines of history left prepared, as "
                        + "documented; rolled back as eosink-admin resolve would");
            }
            return new Outcome(scenario, history, violations);
        } finally {
            try {
                backend.rollbackAllPrepared(sinkId);
                target.drop();
            } catch (RuntimeException e) {
                LOG.warn("Could not clean up after {} on {}: {}", sinkId, backend.name(), e.toString());
            }
            Faults.reset(sinkId);
            ProtocolTrace.reset(sinkId);
            Gate.reset(sinkId);
        }
    }

    /**
     * The smallest scenario found that still violates: steps removed one at a time, then each start made
     * plainer (parallelism 1, chaining on, a new job id, the gate chained), each change kept if the
     * scenario still shows a violation of a kind it showed ({@link Oracle#kind}). At most {@code attempts} runs; a violation that depends on timing may
     * need more than one run to show, so a shrunk scenario is a lower bound on what it takes.
     */
    public Outcome shrink(Outcome violating, int attempts) throws Exception {
        Outcome best = violating;
        int tried = 0;
        boolean smaller = true;
        while (smaller && tried < attempts) {
            smaller = false;
            Scenario s = best.scenario;
            for (int i = s.steps().size() - 1; i >= 0 && tried < attempts; i--) {
                Outcome candidate = checkWhileShrinking(s.without(i));
                tried++;
                if (keepsAKindOf(candidate, violating)) {
                    best = candidate;
                    smaller = true;
                    break;
                }
            }
        }
        for (int i = 0; i < best.scenario.steps().size() && tried < attempts; i++) {
            if (!(best.scenario.steps().get(i) instanceof Step.Start)) {
                continue;
            }
            Step.Start start = (Step.Start) best.scenario.steps().get(i);
            for (Step.Start plainer : plainer(start)) {
                if (tried >= attempts) {
                    break;
                }
                Outcome candidate = checkWhileShrinking(best.scenario.with(i, plainer));
                tried++;
                if (keepsAKindOf(candidate, violating)) {
                    best = candidate;
                    start = plainer;
                }
            }
        }
        return best;
    }

    /** A candidate the explorer could not even set up counts as not violating: the shrink goes on. */
    private Outcome checkWhileShrinking(Scenario candidate) throws InterruptedException {
        try {
            return check(candidate);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            LOG.warn("Explorer: a shrink candidate could not be checked; taken as not violating: {}", candidate, e);
            return new Outcome(candidate, new History(candidate.mode()), List.of());
        }
    }

    /**
     * Whether {@code candidate} still shows a violation of a kind {@code original} showed: a shrink that
     * trades a loss for, say, a job that timed out would report another problem than the one found.
     */
    private static boolean keepsAKindOf(Outcome candidate, Outcome original) {
        return candidate.violations.stream()
                .map(Oracle::kind)
                .anyMatch(kind -> original.violations.stream().map(Oracle::kind).anyMatch(kind::equals));
    }

    private static List<Step.Start> plainer(Step.Start s) {
        List<Step.Start> options = new java.util.ArrayList<>();
        if (s.parallelism != 1) {
            options.add(s.withParallelism(1));
        }
        if (s.chaining != Step.Chaining.ON) {
            options.add(s.withChaining(Step.Chaining.ON, s.gateChained));
        }
        if (s.fixedJobId) {
            options.add(s.withFixedJobId(false));
        }
        if (!s.gateChained) {
            options.add(s.withChaining(s.chaining, true));
        }
        return options;
    }

    /**
     * Runs the scenario of {@code text} and fails, with the history, if the oracle finds a violation: the
     * body of a test pasted from an explorer report. Needs a MiniCluster whose high-availability services
     * forget cleaned-up jobs if the scenario fixes the job id (the fixed-job-id hard-case suites have one).
     */
    public static void assertKeepsItsPromises(ResourceBackend backend, ClusterClient<?> client, Path dir, String text)
            throws Exception {
        assertKeepsItsPromises(backend, client, dir, text, Optional.empty());
    }

    /** As {@link #assertKeepsItsPromises(ResourceBackend, ClusterClient, Path, String)}, with resolve steps run. */
    public static void assertKeepsItsPromises(
            ResourceBackend backend,
            ClusterClient<?> client,
            Path dir,
            String text,
            Function<ResourceBackend, Resolver> resolver)
            throws Exception {
        assertKeepsItsPromises(backend, client, dir, text, Optional.of(resolver));
    }

    private static void assertKeepsItsPromises(
            ResourceBackend backend,
            ClusterClient<?> client,
            Path dir,
            String text,
            Optional<Function<ResourceBackend, Resolver>> resolver)
            throws Exception {
        try (Explorer explorer = open(backend, client, dir, resolver)) {
            Outcome outcome = explorer.check(Scenario.parse(text));
            if (outcome.violates()) {
                String name = backend.name() + (resolver.isPresent() ? " with eosink-admin" : "");
                throw new AssertionError(report(outcome, name, "replay"));
            }
        }
    }

    /** A violation as the explorer prints it: the steps, what happened, what is wrong, how to replay it. */
    static String report(Outcome outcome, String backend, String found) {
        String text = outcome.scenario.text();
        boolean resolves = outcome.scenario.steps().stream().anyMatch(step -> step instanceof Step.Resolve);
        return "EXPLORER VIOLATION on " + backend + " (" + found + ")\n"
                + "steps: " + text + "\n"
                + "what happened:\n" + outcome.history.describe()
                + "violations:\n  " + String.join("\n  ", outcome.violations) + "\n"
                + "replay: ./explore --backend " + ExploreSettings.backendOption(backend) + " --replay '" + text + "'\n"
                + (resolves
                        ? "as a test (in eosink-admin's tests, beside AdminExplorerITCase: a resolve step needs the "
                                + "tool):\n"
                        : "as a test (in a hard-case suite of this backend; one with a fixed job id if a step "
                                + "fixes it):\n")
                + "    @Test\n"
                + "    void explorerScenario" + Long.toUnsignedString(Math.abs((long) text.hashCode()), 36)
                + "(@InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {\n"
                + "        Explorer.assertKeepsItsPromises(backend(), client, dir,\n"
                + "                \"" + text + "\"" + (resolves ? ", AdminExplorerITCase::resolver" : "") + ");\n"
                + "    }\n";
    }
}
