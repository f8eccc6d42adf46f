/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The protocol's options, database-neutral and immutable. Database modules' builders start from
 * {@link #defaults(String)} and change what the user set with the {@code with...} methods; the defaults
 * are what a production job should run with.
 */
@PublicEvolving
public final class SinkSettings implements Serializable {

    private static final long serialVersionUID = 2L;

    public static final LeftoverPolicy DEFAULT_LEFTOVER_POLICY = LeftoverPolicy.FAIL;
    public static final int DEFAULT_COMMIT_RETRIES = 5;
    public static final Duration DEFAULT_COMMIT_RETRY_BACKOFF = Duration.ofMillis(200);
    public static final Duration DEFAULT_CLAIM_WAIT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_MARKER_RETENTION = Duration.ofDays(7);
    public static final Duration DEFAULT_MARKER_PRUNE_INTERVAL = Duration.ofHours(1);
    /**
     * Prepared transactions one writer subtask may hold: one being committed, the next one, and room
     * for three checkpoints in a row that fail after the sink prepared (each leaves its transaction
     * prepared until a later checkpoint completes).
     */
    public static final int DEFAULT_MAX_PREPARED_PER_SUBTASK = 5;

    public static final RewindPolicy DEFAULT_REWIND_POLICY = RewindPolicy.WARN;

    private final String sinkId;
    private final LeftoverPolicy leftoverPolicy;
    private final int commitRetries;
    private final Duration commitRetryBackoff;
    private final Duration claimWait;
    private final Duration markerRetention;
    private final Duration markerPruneInterval;
    private final int maxPreparedPerSubtask;
    private final RewindPolicy rewindPolicy;
    /** Null: derived from the job's checkpoint interval (see {@link #preparedAgeWarning()}). */
    private final Duration preparedAgeWarning;

    private SinkSettings(
            String sinkId,
            LeftoverPolicy leftoverPolicy,
            int commitRetries,
            Duration commitRetryBackoff,
            Duration claimWait,
            Duration markerRetention,
            Duration markerPruneInterval,
            int maxPreparedPerSubtask,
            RewindPolicy rewindPolicy,
            Duration preparedAgeWarning) {
        this.sinkId = TransactionId.checkSinkId(sinkId);
        this.leftoverPolicy = Objects.requireNonNull(leftoverPolicy, "leftoverPolicy");
        if (commitRetries < 0) {
            throw new IllegalArgumentException("commitRetries must be >= 0, was " + commitRetries);
        }
        this.commitRetries = commitRetries;
        this.commitRetryBackoff = positive(commitRetryBackoff, "commitRetryBackoff");
        this.claimWait = nonNegative(claimWait, "claimWait");
        this.markerRetention = positive(markerRetention, "markerRetention");
        this.markerPruneInterval = positive(markerPruneInterval, "markerPruneInterval");
        if (maxPreparedPerSubtask < 2) {
            throw new IllegalArgumentException("maxPreparedPerSubtask must be >= 2 (the transaction being committed "
                    + "and the next one), was " + maxPreparedPerSubtask);
        }
        this.maxPreparedPerSubtask = maxPreparedPerSubtask;
        this.rewindPolicy = Objects.requireNonNull(rewindPolicy, "rewindPolicy");
        this.preparedAgeWarning =
                preparedAgeWarning == null ? null : positive(preparedAgeWarning, "preparedAgeWarning");
    }

    /** Settings with every default, for the given sink id. */
    public static SinkSettings defaults(String sinkId) {
        return new SinkSettings(
                sinkId,
                DEFAULT_LEFTOVER_POLICY,
                DEFAULT_COMMIT_RETRIES,
                DEFAULT_COMMIT_RETRY_BACKOFF,
                DEFAULT_CLAIM_WAIT,
                DEFAULT_MARKER_RETENTION,
                DEFAULT_MARKER_PRUNE_INTERVAL,
                DEFAULT_MAX_PREPARED_PER_SUBTASK,
                DEFAULT_REWIND_POLICY,
                null);
    }

    public SinkSettings withLeftoverPolicy(LeftoverPolicy policy) {
        return new SinkSettings(
                sinkId,
                policy,
                commitRetries,
                commitRetryBackoff,
                claimWait,
                markerRetention,
                markerPruneInterval,
                maxPreparedPerSubtask,
                rewindPolicy,
                preparedAgeWarning);
    }

    public SinkSettings withCommitRetries(int retries, Duration backoff) {
        return new SinkSettings(
                sinkId,
                leftoverPolicy,
                retries,
                backoff,
                claimWait,
                markerRetention,
                markerPruneInterval,
                maxPreparedPerSubtask,
                rewindPolicy,
                preparedAgeWarning);
    }

    public SinkSettings withClaimWait(Duration wait) {
        return new SinkSettings(
                sinkId,
                leftoverPolicy,
                commitRetries,
                commitRetryBackoff,
                wait,
                markerRetention,
                markerPruneInterval,
                maxPreparedPerSubtask,
                rewindPolicy,
                preparedAgeWarning);
    }

    public SinkSettings withMarkerRetention(Duration retention, Duration pruneInterval) {
        return new SinkSettings(
                sinkId,
                leftoverPolicy,
                commitRetries,
                commitRetryBackoff,
                claimWait,
                retention,
                pruneInterval,
                maxPreparedPerSubtask,
                rewindPolicy,
                preparedAgeWarning);
    }

    public SinkSettings withMaxPreparedPerSubtask(int max) {
        return new SinkSettings(
                sinkId,
                leftoverPolicy,
                commitRetries,
                commitRetryBackoff,
                claimWait,
                markerRetention,
                markerPruneInterval,
                max,
                rewindPolicy,
                preparedAgeWarning);
    }

    public SinkSettings withRewindPolicy(RewindPolicy policy) {
        return new SinkSettings(
                sinkId,
                leftoverPolicy,
                commitRetries,
                commitRetryBackoff,
                claimWait,
                markerRetention,
                markerPruneInterval,
                maxPreparedPerSubtask,
                policy,
                preparedAgeWarning);
    }

    /**
     * How long a transaction a writer prepared may stay prepared, its commit not known, before the
     * writer warns in its log (once per transaction); null: three checkpoint intervals of the job
     * (at least a minute), or 10 minutes when the sink cannot see the interval.
     */
    public SinkSettings withPreparedAgeWarning(Duration threshold) {
        return new SinkSettings(
                sinkId,
                leftoverPolicy,
                commitRetries,
                commitRetryBackoff,
                claimWait,
                markerRetention,
                markerPruneInterval,
                maxPreparedPerSubtask,
                rewindPolicy,
                threshold);
    }

    static Duration positive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
        }
        return d;
    }

    static Duration nonNegative(Duration d, String name) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be zero or positive, was " + d);
        }
        return d;
    }

    public String sinkId() {
        return sinkId;
    }

    public LeftoverPolicy leftoverPolicy() {
        return leftoverPolicy;
    }

    public int commitRetries() {
        return commitRetries;
    }

    public Duration commitRetryBackoff() {
        return commitRetryBackoff;
    }

    public Duration claimWait() {
        return claimWait;
    }

    public Duration markerRetention() {
        return markerRetention;
    }

    public Duration markerPruneInterval() {
        return markerPruneInterval;
    }

    /** How many prepared, not yet committed transactions one writer subtask may hold before it fails over. */
    public int maxPreparedPerSubtask() {
        return maxPreparedPerSubtask;
    }

    public RewindPolicy rewindPolicy() {
        return rewindPolicy;
    }

    /**
     * The threshold of the writers' warning about a transaction that stays prepared, when set; empty:
     * derived from the job's checkpoint interval (see {@link #withPreparedAgeWarning}).
     */
    public Optional<Duration> preparedAgeWarning() {
        return Optional.ofNullable(preparedAgeWarning);
    }

    @Override
    public String toString() {
        return "SinkSettings{sinkId=" + sinkId
                + ", leftoverPolicy=" + leftoverPolicy
                + ", commitRetries=" + commitRetries
                + ", commitRetryBackoff=" + commitRetryBackoff
                + ", claimWait=" + claimWait
                + ", markerRetention=" + markerRetention
                + ", markerPruneInterval=" + markerPruneInterval
                + ", maxPreparedPerSubtask=" + maxPreparedPerSubtask
                + ", rewindPolicy=" + rewindPolicy
                + ", preparedAgeWarning=" + (preparedAgeWarning == null ? "derived" : preparedAgeWarning)
                + "}";
    }
}
