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
import java.util.function.Consumer;

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

    private SinkSettings(Values v) {
        this.sinkId = TransactionId.checkSinkId(v.sinkId);
        this.leftoverPolicy = Objects.requireNonNull(v.leftoverPolicy, "leftoverPolicy");
        if (v.commitRetries < 0) {
            throw new IllegalArgumentException("commitRetries must be >= 0, was " + v.commitRetries);
        }
        this.commitRetries = v.commitRetries;
        this.commitRetryBackoff = positive(v.commitRetryBackoff, "commitRetryBackoff");
        this.claimWait = nonNegative(v.claimWait, "claimWait");
        this.markerRetention = positive(v.markerRetention, "markerRetention");
        this.markerPruneInterval = positive(v.markerPruneInterval, "markerPruneInterval");
        if (v.maxPreparedPerSubtask < 2) {
            throw new IllegalArgumentException("maxPreparedPerSubtask must be >= 2 (the transaction being committed "
                    + "and the next one), was " + v.maxPreparedPerSubtask);
        }
        this.maxPreparedPerSubtask = v.maxPreparedPerSubtask;
        this.rewindPolicy = Objects.requireNonNull(v.rewindPolicy, "rewindPolicy");
        this.preparedAgeWarning =
                v.preparedAgeWarning == null ? null : positive(v.preparedAgeWarning, "preparedAgeWarning");
    }

    /** Settings with every default, for the given sink id. */
    public static SinkSettings defaults(String sinkId) {
        Values v = new Values();
        v.sinkId = sinkId;
        v.leftoverPolicy = DEFAULT_LEFTOVER_POLICY;
        v.commitRetries = DEFAULT_COMMIT_RETRIES;
        v.commitRetryBackoff = DEFAULT_COMMIT_RETRY_BACKOFF;
        v.claimWait = DEFAULT_CLAIM_WAIT;
        v.markerRetention = DEFAULT_MARKER_RETENTION;
        v.markerPruneInterval = DEFAULT_MARKER_PRUNE_INTERVAL;
        v.maxPreparedPerSubtask = DEFAULT_MAX_PREPARED_PER_SUBTASK;
        v.rewindPolicy = DEFAULT_REWIND_POLICY;
        v.preparedAgeWarning = null;
        return new SinkSettings(v);
    }

    public SinkSettings withLeftoverPolicy(LeftoverPolicy policy) {
        return with(v -> v.leftoverPolicy = policy);
    }

    public SinkSettings withCommitRetries(int retries, Duration backoff) {
        return with(v -> {
            v.commitRetries = retries;
            v.commitRetryBackoff = backoff;
        });
    }

    public SinkSettings withClaimWait(Duration wait) {
        return with(v -> v.claimWait = wait);
    }

    public SinkSettings withMarkerRetention(Duration retention, Duration pruneInterval) {
        return with(v -> {
            v.markerRetention = retention;
            v.markerPruneInterval = pruneInterval;
        });
    }

    public SinkSettings withMaxPreparedPerSubtask(int max) {
        return with(v -> v.maxPreparedPerSubtask = max);
    }

    public SinkSettings withRewindPolicy(RewindPolicy policy) {
        return with(v -> v.rewindPolicy = policy);
    }

    /**
     * How long a transaction a writer prepared may stay prepared, its commit not known, before the
     * writer warns in its log (once per transaction); null: three checkpoint intervals of the job
     * (at least a minute), or 10 minutes when the sink cannot see the interval.
     */
    public SinkSettings withPreparedAgeWarning(Duration threshold) {
        return with(v -> v.preparedAgeWarning = threshold);
    }

    /** These settings with {@code change} made to a copy of their values, checked as {@link #defaults} are. */
    private SinkSettings with(Consumer<Values> change) {
        Values v = new Values();
        v.sinkId = sinkId;
        v.leftoverPolicy = leftoverPolicy;
        v.commitRetries = commitRetries;
        v.commitRetryBackoff = commitRetryBackoff;
        v.claimWait = claimWait;
        v.markerRetention = markerRetention;
        v.markerPruneInterval = markerPruneInterval;
        v.maxPreparedPerSubtask = maxPreparedPerSubtask;
        v.rewindPolicy = rewindPolicy;
        v.preparedAgeWarning = preparedAgeWarning;
        change.accept(v);
        return new SinkSettings(v);
    }

    /**
     * The settings' values while they are made or changed, unchecked: the constructor checks them as
     * it copies them into the immutable settings. Never serialized, never seen outside this class.
     */
    private static final class Values {
        String sinkId;
        LeftoverPolicy leftoverPolicy;
        int commitRetries;
        Duration commitRetryBackoff;
        Duration claimWait;
        Duration markerRetention;
        Duration markerPruneInterval;
        int maxPreparedPerSubtask;
        RewindPolicy rewindPolicy;
        Duration preparedAgeWarning;
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
