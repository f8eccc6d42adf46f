/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.testing.faults.Faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Draws a {@link Scenario} from a seed: the same seed gives the same steps on every machine and Java
 * version ({@link SplittableRandom}'s sequence is specified). On a backend with a changelog sink, {@value
 * #CHANGELOG_PERCENT}% of the scenarios are in {@link WriteMode#CHANGELOG}, and where the plain sink also inserts
 * by JDBC batches, {@value #BY_BATCH_PERCENT}% of the others in {@link WriteMode#INSERT_BY_BATCH}; the mode is
 * drawn apart from the
 * steps, so an insert scenario's steps are its seed's on every backend. A scenario starts a job, then draws moves
 * while a job runs (progress, checkpoints, a declined checkpoint, savepoints, a stop, a cancel, a task
 * failure at any point of the protocol, a slow prepare or commit, the database killed and restarted or
 * frozen for a while) and starts another job whenever none runs: fresh, or from any
 * snapshot taken so far, with or without the sink's state, under a new or a fixed job id, at another
 * parallelism, with chaining on or off. The probabilities favour the moves that combine into the paths
 * that went wrong before: a snapshot restored without the sink's state, a fixed job id, chaining off. A
 * changelog scenario also makes its commits lag ({@link Step.SlowCommits}) in {@value #SLOW_COMMITS_PERCENT}%
 * of the cases, starts with chaining off more often and lets records through in half steps: what an upsert
 * writer apart from its committer needs to meet a commit still under way.
 */
public final class ScenarioGenerator {

    private static final Faults.Point[] FAULT_POINTS = Faults.Point.values();
    /** Where a slow database or a slow committer holds the protocol up: a slow checkpoint, a late commit. */
    private static final Faults.Point[] DELAY_POINTS = {Faults.Point.AFTER_PREPARE, Faults.Point.BEFORE_COMMIT};

    /** The share of changelog scenarios, where the backend has a changelog sink. */
    static final int CHANGELOG_PERCENT = 45;

    /** The share of changelog scenarios whose commits lag ({@link Step.SlowCommits}) from the start. */
    static final int SLOW_COMMITS_PERCENT = 60;

    /** The share of ended jobs an operator resolves by hand, where the suite has the tool. */
    static final int RESOLVE_PERCENT = 35;

    /** The share of changelog scenarios written by COPY, where the backend has it. */
    static final int BY_COPY_PERCENT = 35;

    /** The share of insert scenarios written by JDBC batches, where that is another path than the default. */
    static final int BY_BATCH_PERCENT = 30;

    private ScenarioGenerator() {}

    /** The scenario of {@code seed} on a backend that offers {@code modes} ({@link WriteMode#on}). */
    public static Scenario generate(long seed, Set<WriteMode> modes) {
        return generate(seed, modes, false);
    }

    /**
     * As {@link #generate(long, Set)}; where {@code resolves} (a suite with the operator's tool), a job that
     * ended by a stop or a cancel is followed by {@link Step.Resolve} in {@value #RESOLVE_PERCENT}% of the
     * cases, drawn apart: the other steps stay those of the seed.
     */
    public static Scenario generate(long seed, Set<WriteMode> modes, boolean resolves) {
        SplittableRandom resolveDraws = new SplittableRandom(seed).split().split();
        SplittableRandom modeDraws = new SplittableRandom(seed).split();
        WriteMode mode = WriteMode.INSERT;
        if (modes.contains(WriteMode.CHANGELOG) && modeDraws.nextInt(100) < CHANGELOG_PERCENT) {
            mode = modes.contains(WriteMode.CHANGELOG_BY_COPY) && modeDraws.nextInt(100) < BY_COPY_PERCENT
                    ? WriteMode.CHANGELOG_BY_COPY
                    : WriteMode.CHANGELOG;
        } else if (modes.contains(WriteMode.INSERT_BY_BATCH) && modeDraws.nextInt(100) < BY_BATCH_PERCENT) {
            mode = WriteMode.INSERT_BY_BATCH;
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<Step> steps = new ArrayList<>();
        int moves = 5 + random.nextInt(8);
        boolean running = false;
        int snapshots = 0;
        // An application with high availability runs every deployment under one job id: most scenarios
        // either fix it for every job or for none.
        boolean fixedJobIds = random.nextInt(100) < 50;
        boolean changelog = mode.changelog();
        if (changelog && random.nextInt(100) < SLOW_COMMITS_PERCENT) {
            // A writer that runs apart from its committer hears a completion a few milliseconds before the
            // commit, which on time wins the race to the rows nearly always: so a changelog often has them lag.
            steps.add(new Step.SlowCommits());
        }
        int resolveSteps = 0; // not counted as moves: the other steps stay those of the seed
        while (steps.size() - resolveSteps < moves) {
            if (wantsResolve(steps, resolveDraws, resolves)) {
                steps.add(new Step.Resolve());
                resolveSteps++;
            }
            if (!running) {
                steps.add(start(random, snapshots, random.nextInt(100) < 85 ? fixedJobIds : !fixedJobIds, changelog));
                steps.add(new Step.Progress(shorter(changelog, 50 + random.nextInt(250))));
                running = true;
                continue;
            }
            int pick = random.nextInt(100);
            if (pick < (changelog ? 16 : 26)) {
                steps.add(new Step.Progress(shorter(changelog, 100 + random.nextInt(300))));
            } else if (pick < 40) {
                steps.add(new Step.Checkpoint());
            } else if (pick < 48) {
                steps.add(new Step.Decline());
            } else if (pick < 62) {
                steps.add(new Step.Savepoint());
                snapshots++;
                if (random.nextInt(100) < 60) {
                    // the usual upgrade: a savepoint, then cancel, then the new version from the savepoint
                    steps.add(new Step.Cancel());
                    snapshots++;
                    running = false;
                }
            } else if (pick < 72) {
                steps.add(new Step.Stop(random.nextBoolean()));
                snapshots++;
                running = false;
            } else if (pick < 80) {
                steps.add(new Step.Cancel());
                snapshots++; // its retained checkpoint, if it completed one
                running = false;
            } else if (pick < 89) {
                steps.add(new Step.Fail(FAULT_POINTS[random.nextInt(FAULT_POINTS.length)]));
            } else if (pick < 95) {
                steps.add(
                        new Step.Delay(DELAY_POINTS[random.nextInt(DELAY_POINTS.length)], 200 + random.nextInt(1_800)));
            } else if (pick < 97) {
                steps.add(new Step.Crash());
            } else {
                steps.add(new Step.Stall(300 + random.nextInt(2_700)));
            }
        }
        if (wantsResolve(steps, resolveDraws, resolves)) {
            steps.add(new Step.Resolve());
        }
        return new Scenario(seed, mode, steps);
    }

    /** Whether to resolve the job that ended with the last step (a stop or a cancel) by hand now. */
    private static boolean wantsResolve(List<Step> steps, SplittableRandom draws, boolean resolves) {
        if (!resolves || steps.isEmpty()) {
            return false;
        }
        Step last = steps.get(steps.size() - 1);
        return (last instanceof Step.Stop || last instanceof Step.Cancel) && draws.nextInt(100) < RESOLVE_PERCENT;
    }

    /**
     * A changelog scenario's progress steps are half as long, so that more barriers, and more completed
     * checkpoints, fall while its jobs still read: those are where an upsert writer's next statements meet
     * the commit of its previous transaction.
     */
    private static int shorter(boolean changelog, int records) {
        return changelog ? records / 2 : records;
    }

    /**
     * A start; in a changelog scenario with chaining off three times in four, not two in five: only then do
     * writer, committer and outcome operator run as tasks of their own, where the writer hears a checkpoint
     * complete before its committer committed (the same draws either way, so an insert scenario's steps
     * stay what they were).
     */
    private static Step.Start start(SplittableRandom random, int snapshots, boolean fixedJobId, boolean changelog) {
        Step.Origin origin = Step.Origin.FRESH;
        if (snapshots > 0 && random.nextInt(100) < 85) {
            origin = random.nextInt(100) < 65 ? Step.Origin.NEWEST : Step.Origin.PICKED;
        }
        boolean sinkState = random.nextInt(100) < 55;
        // ROLLBACK is for sources that start over: the docs promise a loss for a restore that drops the
        // sink's state under it, so the explorer uses it only where it is right.
        LeftoverPolicy leftover =
                origin == Step.Origin.FRESH && random.nextInt(100) < 30 ? LeftoverPolicy.ROLLBACK : LeftoverPolicy.FAIL;
        int chaining = random.nextInt(100);
        return new Step.Start(
                origin,
                random.nextInt(8),
                sinkState,
                fixedJobId,
                1 + random.nextInt(3),
                chaining < (changelog ? 25 : 60)
                        ? Step.Chaining.ON
                        : chaining < (changelog ? 62 : 80) ? Step.Chaining.JOB_OFF : Step.Chaining.SINK_OFF,
                random.nextBoolean(),
                leftover,
                random.nextInt(100) < 25 ? RewindPolicy.FAIL : RewindPolicy.WARN);
    }
}
