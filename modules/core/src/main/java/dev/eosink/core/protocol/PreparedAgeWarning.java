/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.Wording;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Warns, once per transaction, when a transaction the writer prepared stays prepared (its commit not
 * known) longer than a threshold: it holds its row locks and one of the database's prepared-transaction
 * slots all that time, and nothing else in the log says so until {@link SinkSettings#maxPreparedPerSubtask()}
 * fails the subtask. The writer asks at every barrier and when an epoch begins, on its own thread:
 * no timer.
 */
final class PreparedAgeWarning {

    private static final Logger LOG = LoggerFactory.getLogger(PreparedAgeWarning.class);

    /** Without the job's checkpoint interval. */
    static final Duration DEFAULT = Duration.ofMinutes(10);
    /** The least threshold derived from the checkpoint interval: short intervals jitter. */
    static final Duration MIN_DERIVED = Duration.ofMinutes(1);

    private final SubtaskContext context;
    private final String target;
    private final Wording words;
    private final long thresholdNanos;
    private final Duration threshold;

    PreparedAgeWarning(SubtaskContext context, String target, Wording words, Duration threshold) {
        this.context = context;
        this.target = target;
        this.words = words;
        this.threshold = threshold;
        this.thresholdNanos = threshold.toNanos();
    }

    /**
     * The threshold of a sink: the one set ({@link SinkSettings#preparedAgeWarning()}), else three
     * checkpoint intervals (at least {@link #MIN_DERIVED}) when the interval is known, else {@link #DEFAULT}.
     *
     * @param checkpointInterval the job's, or null when unknown or not checkpointing
     */
    static Duration threshold(SinkSettings settings, Duration checkpointInterval) {
        if (settings.preparedAgeWarning().isPresent()) {
            return settings.preparedAgeWarning().get();
        }
        if (checkpointInterval == null || checkpointInterval.isZero() || checkpointInterval.isNegative()) {
            return DEFAULT;
        }
        Duration derived = checkpointInterval.multipliedBy(3);
        return derived.compareTo(MIN_DERIVED) < 0 ? MIN_DERIVED : derived;
    }

    Duration threshold() {
        return threshold;
    }

    /** Whether an entry not yet warned about is older than the threshold; cheap, no allocation. */
    boolean anyDue(PendingCommits pending, long nowNanos) {
        for (PendingCommits.Entry e : pending.entries()) {
            if (due(e, nowNanos)) {
                return true;
            }
        }
        return false;
    }

    /** Warns about every entry that is due, once each; returns how many. */
    int warnDue(PendingCommits pending, long nowNanos) {
        int warned = 0;
        for (PendingCommits.Entry e : pending.entries()) {
            if (due(e, nowNanos)) {
                e.warnedAboutAge = true;
                warned++;
                LOG.warn(message(e, pending.outcome(e), nowNanos - e.preparedAtNanos));
            }
        }
        return warned;
    }

    private boolean due(PendingCommits.Entry e, long nowNanos) {
        return !e.warnedAboutAge && nowNanos - e.preparedAtNanos > thresholdNanos;
    }

    String message(PendingCommits.Entry e, CheckpointOutcomes.Outcome outcome, long ageNanos) {
        String checkpoint;
        if (e.checkpointId == 0) {
            checkpoint = "its checkpoint not yet snapshotted";
        } else if (outcome == CheckpointOutcomes.Outcome.ABORTED) {
            checkpoint = "checkpoint " + e.checkpointId + ", which was aborted: declined, expired or failed";
        } else if (outcome == CheckpointOutcomes.Outcome.PLAIN_SAVEPOINT) {
            checkpoint = "checkpoint " + e.checkpointId + ", a savepoint, whose completion Flink never reports";
        } else {
            checkpoint = "checkpoint " + e.checkpointId + ", whose completion this writer has not heard of";
        }
        return context + ", " + target + ": transaction " + e.id + " (" + checkpoint + ") has been prepared for "
                + TimeUnit.NANOSECONDS.toSeconds(ageNanos) + " s, longer than preparedAgeWarning (" + threshold
                + "), and is not known committed. It holds " + words.preparedHolds() + " until a later checkpoint "
                + "completes and the committer commits it. Check: "
                + "checkpoints failing, declined or timing out (the job's checkpoint history and exceptions); a "
                + "committer that cannot commit (its log: commit retries, LOST transactions); the writer's "
                + "preparedTransactions and oldestPreparedAgeSeconds metrics (docs/operations.md, \"Metrics\"). "
                + "Warned once per transaction.";
    }
}
