/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.testing.faults.Faults;

import java.util.Locale;
import java.util.Objects;

/**
 * One move of an operator or of the world in a {@link Scenario}, with its parameters. Each step has a
 * one-line text form ({@code toString()}) that {@link #parse} reads back: a scenario printed by the
 * explorer is replayed from that text.
 *
 * <p>A step never names a snapshot by its path or checkpoint id, which differ from one run of a scenario
 * to the next, but by its place in the scenario's history (the n-th snapshot taken, counted modulo the
 * number taken so far), so that a scenario stays valid when the shrinker removes steps before it.
 */
public sealed interface Step {

    /** Where a started job's state comes from. */
    enum Origin {
        /** No snapshot: the sources start from their first record. */
        FRESH,
        /** The newest snapshot of the scenario's history. */
        NEWEST,
        /** The {@link Start#snapshot}-th snapshot of the history, modulo the number taken. */
        PICKED
    }

    /** How the job chains its operators. */
    enum Chaining {
        /** As Flink chains them: the sink's writer, committer and outcome operator in the task before them. */
        ON,
        /** {@code env.disableOperatorChaining()}. */
        JOB_OFF,
        /** {@code sinkTo(...).disableChaining()}: the sink's operators are tasks of their own. */
        SINK_OFF
    }

    /** Submits a job: the source of ids, a gate operator, the sink. */
    final class Start implements Step {
        /** Where the job's state comes from. */
        public final Origin origin;
        /** With {@link Origin#PICKED}, which snapshot: its place in the history, modulo the number taken so far. */
        public final int snapshot;
        /** Whether the sink keeps its uid, so that a restore gives it its state; else it is renamed. */
        public final boolean sinkState;

        /** Whether the job runs under the scenario's fixed job id, or a new one. */
        public final boolean fixedJobId;
        /** The job's parallelism. */
        public final int parallelism;
        /** How the job chains its operators. */
        public final Chaining chaining;
        /** Whether the stateful gate operator is chained to the sink (its task is then always restored). */
        public final boolean gateChained;

        /** The sink's leftover policy in this job. */
        public final LeftoverPolicy leftoverPolicy;
        /** The sink's rewind policy in this job. */
        public final RewindPolicy rewindPolicy;

        /**
         * A start with these parameters, each as its field says. Throws {@link NullPointerException} for a null origin,
         * chaining or policy.
         */
        public Start(
                Origin origin,
                int snapshot,
                boolean sinkState,
                boolean fixedJobId,
                int parallelism,
                Chaining chaining,
                boolean gateChained,
                LeftoverPolicy leftoverPolicy,
                RewindPolicy rewindPolicy) {
            this.origin = Objects.requireNonNull(origin);
            this.snapshot = snapshot;
            this.sinkState = sinkState;
            this.fixedJobId = fixedJobId;
            this.parallelism = parallelism;
            this.chaining = Objects.requireNonNull(chaining);
            this.gateChained = gateChained;
            this.leftoverPolicy = Objects.requireNonNull(leftoverPolicy);
            this.rewindPolicy = Objects.requireNonNull(rewindPolicy);
        }

        /** This start at another parallelism. */
        public Start withParallelism(int parallelism) {
            return new Start(
                    origin,
                    snapshot,
                    sinkState,
                    fixedJobId,
                    parallelism,
                    chaining,
                    gateChained,
                    leftoverPolicy,
                    rewindPolicy);
        }

        /** This start with other chaining of the job and of the gate operator to the sink. */
        public Start withChaining(Chaining chaining, boolean gateChained) {
            return new Start(
                    origin,
                    snapshot,
                    sinkState,
                    fixedJobId,
                    parallelism,
                    chaining,
                    gateChained,
                    leftoverPolicy,
                    rewindPolicy);
        }

        /** This start with a fixed job id or a new one. */
        public Start withFixedJobId(boolean fixedJobId) {
            return new Start(
                    origin,
                    snapshot,
                    sinkState,
                    fixedJobId,
                    parallelism,
                    chaining,
                    gateChained,
                    leftoverPolicy,
                    rewindPolicy);
        }

        /** This start with the sink's state kept or dropped. */
        public Start withSinkState(boolean sinkState) {
            return new Start(
                    origin,
                    snapshot,
                    sinkState,
                    fixedJobId,
                    parallelism,
                    chaining,
                    gateChained,
                    leftoverPolicy,
                    rewindPolicy);
        }

        @Override
        public String toString() {
            return "start "
                    + (origin == Origin.PICKED
                            ? "snapshot#" + snapshot
                            : origin.name().toLowerCase(Locale.ROOT))
                    + " p" + parallelism + " state=" + (sinkState ? "kept" : "dropped")
                    + " jobid=" + (fixedJobId ? "fixed" : "new") + " chaining=" + chaining
                    + " gate=" + (gateChained ? "chained" : "apart")
                    + " leftover=" + leftoverPolicy + " rewind=" + rewindPolicy;
        }
    }

    /** Waits until the writers took {@code records} more records (or the job ended). */
    final class Progress implements Step {
        /** How many more records the writers must take. */
        public final int records;

        /** Waits for {@code records} more records. */
        public Progress(int records) {
            this.records = records;
        }

        @Override
        public String toString() {
            return "progress " + records;
        }
    }

    /** Triggers a checkpoint and waits for it. */
    final class Checkpoint implements Step {

        /** This step, which has no parameters. */
        public Checkpoint() {}

        @Override
        public String toString() {
            return "checkpoint";
        }
    }

    /** A checkpoint that the gate operator declines (its asynchronous part fails); the job goes on. */
    final class Decline implements Step {

        /** This step, which has no parameters. */
        public Decline() {}

        @Override
        public String toString() {
            return "decline";
        }
    }

    /** A plain savepoint: Flink does not notify the sink of it. */
    final class Savepoint implements Step {

        /** This step, which has no parameters. */
        public Savepoint() {}

        @Override
        public String toString() {
            return "savepoint";
        }
    }

    /** Stop with a savepoint, draining the input or not. */
    final class Stop implements Step {
        /**
         * Whether the stop drains the input ({@code --drain}): the sources end, and the snapshot marks the operators
         * finished.
         */
        public final boolean drain;

        /** A stop with a savepoint, draining or not. */
        public Stop(boolean drain) {
            this.drain = drain;
        }

        @Override
        public String toString() {
            return "stop drain=" + drain;
        }
    }

    /** Cancels the job; its newest checkpoint is retained and joins the history. */
    final class Cancel implements Step {

        /** This step, which has no parameters. */
        public Cancel() {}

        @Override
        public String toString() {
            return "cancel";
        }
    }

    /**
     * From now on, for the rest of the scenario and its closing, every commit of the sink comes {@link #LAG}
     * after its checkpoint completed, as behind a busy committer or a synchronous standby: an unchained
     * writer then hears the completion well before its committer has committed. Applies whether a job runs
     * or not.
     */
    final class SlowCommits implements Step {

        /** This step, which has no parameters. */
        public SlowCommits() {}
        /** How long after its checkpoint completed each commit comes. */
        public static final java.time.Duration LAG = java.time.Duration.ofMillis(150);

        @Override
        public String toString() {
            return "slow commits";
        }
    }

    /** The next arrival of the sink at {@code point} throws: the task fails and the job fails over. */
    final class Fail implements Step {
        /** Where the sink fails. */
        public final Faults.Point point;

        /** Fails the next arrival at {@code point}. */
        public Fail(Faults.Point point) {
            this.point = Objects.requireNonNull(point);
        }

        @Override
        public String toString() {
            return "fail at=" + point;
        }
    }

    /**
     * The next arrival of the sink at {@code point} waits {@code millis} first, as a slow database would:
     * after a prepare (the checkpoint waits for it) or before a commit (the commit comes late, maybe after
     * the next barrier, a failover or a stop).
     */
    final class Delay implements Step {
        /** Where the sink waits. */
        public final Faults.Point point;
        /** How long it waits, in milliseconds. */
        public final int millis;

        /** Delays the next arrival at {@code point} by {@code millis}. */
        public Delay(Faults.Point point, int millis) {
            this.point = Objects.requireNonNull(point);
            this.millis = millis;
        }

        @Override
        public String toString() {
            return "delay at=" + point + " ms=" + millis;
        }
    }

    /** The database is killed (SIGKILL) and started again on the same data, as after a power loss. */
    final class Crash implements Step {

        /** This step, which has no parameters. */
        public Crash() {}

        @Override
        public String toString() {
            return "crash";
        }
    }

    /**
     * The database stops answering for {@code millis} (every process of the server frozen, SIGSTOP), its
     * sessions and locks kept, then goes on: whatever the sink asks meanwhile (a write, a prepare, a
     * commit, a recovery query) waits.
     */
    final class Stall implements Step {
        /** How long the database stops answering, in milliseconds. */
        public final int millis;

        /** Freezes the database for {@code millis}. */
        public Stall(int millis) {
            this.millis = millis;
        }

        @Override
        public String toString() {
            return "stall ms=" + millis;
        }
    }

    /**
     * The operator finishes a dead job's transactions by hand: {@code eosink-admin resolve --apply} against
     * the newest snapshot of the job that ran last (docs/operations.md), while no job runs.
     */
    final class Resolve implements Step {

        /** This step, which has no parameters. */
        public Resolve() {}

        @Override
        public String toString() {
            return "resolve";
        }
    }

    /** Reads a step from its {@code toString()} form. */
    static Step parse(String text) {
        String[] words = text.trim().split("\\s+");
        switch (words[0]) {
            case "start":
                return parseStart(words);
            case "progress":
                return new Progress(Integer.parseInt(words[1]));
            case "checkpoint":
                return new Checkpoint();
            case "decline":
                return new Decline();
            case "savepoint":
                return new Savepoint();
            case "stop":
                return new Stop(Boolean.parseBoolean(value(words[1], "drain")));
            case "cancel":
                return new Cancel();
            case "fail":
                return new Fail(Faults.Point.valueOf(value(words[1], "at")));
            case "crash":
                return new Crash();
            case "resolve":
                return new Resolve();
            case "stall":
                return new Stall(Integer.parseInt(value(words[1], "ms")));
            case "delay":
                return new Delay(Faults.Point.valueOf(value(words[1], "at")), Integer.parseInt(value(words[2], "ms")));
            case "slow":
                if (words.length == 2 && words[1].equals("commits")) {
                    return new SlowCommits();
                }
                throw new IllegalArgumentException("not a step: " + text);
            default:
                throw new IllegalArgumentException("not a step: " + text);
        }
    }

    private static Start parseStart(String[] words) {
        Origin origin;
        int snapshot = 0;
        if (words[1].startsWith("snapshot#")) {
            origin = Origin.PICKED;
            snapshot = Integer.parseInt(words[1].substring("snapshot#".length()));
        } else {
            origin = Origin.valueOf(words[1].toUpperCase(Locale.ROOT));
        }
        return new Start(
                origin,
                snapshot,
                value(words[3], "state").equals("kept"),
                value(words[4], "jobid").equals("fixed"),
                Integer.parseInt(words[2].substring(1)),
                Chaining.valueOf(value(words[5], "chaining")),
                value(words[6], "gate").equals("chained"),
                LeftoverPolicy.valueOf(value(words[7], "leftover")),
                RewindPolicy.valueOf(value(words[8], "rewind")));
    }

    private static String value(String word, String key) {
        if (!word.startsWith(key + "=")) {
            throw new IllegalArgumentException("expected " + key + "=..., got " + word);
        }
        return word.substring(key.length() + 1);
    }
}
