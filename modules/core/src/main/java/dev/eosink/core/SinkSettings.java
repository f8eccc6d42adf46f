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

    /**
     * What becomes of another job's prepared transactions of the sink id at a start without state: {@link
     * LeftoverPolicy#FAIL}, the sink refuses to start.
     */
    public static final LeftoverPolicy DEFAULT_LEFTOVER_POLICY = LeftoverPolicy.FAIL;
    /** Retries of a commit whose outcome is unknown, before the committer fails the task: 5. */
    public static final int DEFAULT_COMMIT_RETRIES = 5;
    /** The first wait between two such retries: 200 ms. */
    public static final Duration DEFAULT_COMMIT_RETRY_BACKOFF = Duration.ofMillis(200);
    /** How long a starting writer waits for the ownership guard held by a task going away: 30 s. */
    public static final Duration DEFAULT_CLAIM_WAIT = Duration.ofSeconds(30);
    /**
     * How long a marker row, the proof of a commit, is kept before the committer may delete it: 7 days. Keep it longer
     * than the age of any savepoint that may be restored.
     */
    public static final Duration DEFAULT_MARKER_RETENTION = Duration.ofDays(7);
    /** How often the committer deletes marker rows older than the retention: every hour. */
    public static final Duration DEFAULT_MARKER_PRUNE_INTERVAL = Duration.ofHours(1);
    /**
     * Prepared transactions one writer subtask may hold: one being committed, the next one, and room
     * for three checkpoints in a row that fail after the sink prepared (each leaves its transaction
     * prepared until a later checkpoint completes).
     */
    public static final int DEFAULT_MAX_PREPARED_PER_SUBTASK = 5;

    /**
     * What a job restored from a checkpoint older than what the sink already committed does: {@link RewindPolicy#WARN},
     * it warns and replays.
     */
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

    /**
     * These settings with {@code policy} for another job's prepared transactions at a start without state. Throws
     * {@link NullPointerException} for a null policy.
     */
    public SinkSettings withLeftoverPolicy(LeftoverPolicy policy) {
        return with(v -> v.leftoverPolicy = policy);
    }

    /**
     * These settings with {@code retries} (at least 0) retries of a commit whose outcome is unknown, the first after
     * {@code backoff} (positive). Throws {@link IllegalArgumentException} for a negative count or a backoff that is
     * null, zero or negative.
     */
    public SinkSettings withCommitRetries(int retries, Duration backoff) {
        return with(v -> {
            v.commitRetries = retries;
            v.commitRetryBackoff = backoff;
        });
    }

    /**
     * These settings with a starting writer waiting up to {@code wait} (zero or positive; zero: not at all) for the
     * ownership guard of a task going away. Throws {@link IllegalArgumentException} for a null or negative wait.
     */
    public SinkSettings withClaimWait(Duration wait) {
        return with(v -> v.claimWait = wait);
    }

    /**
     * These settings with marker rows kept for {@code retention} and the older ones deleted every {@code
     * pruneInterval}; both positive, else {@link IllegalArgumentException}.
     */
    public SinkSettings withMarkerRetention(Duration retention, Duration pruneInterval) {
        return with(v -> {
            v.markerRetention = retention;
            v.markerPruneInterval = pruneInterval;
        });
    }

    /**
     * These settings with at most {@code max} prepared, not yet committed transactions per writer subtask (see {@link
     * #maxPreparedPerSubtask()}). Throws {@link IllegalArgumentException} below 2: the transaction being committed and
     * the next one.
     */
    public SinkSettings withMaxPreparedPerSubtask(int max) {
        return with(v -> v.maxPreparedPerSubtask = max);
    }

    /**
     * These settings with {@code policy} for a restore from a checkpoint older than what the sink committed. Throws
     * {@link NullPointerException} for a null policy.
     */
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

    /**
     * The sink's id, which every transaction id of the sink carries, as {@link TransactionId#checkSinkId} accepts it.
     */
    public String sinkId() {
        return sinkId;
    }

    /** What becomes of another job's prepared transactions of the sink id at a start without state. */
    public LeftoverPolicy leftoverPolicy() {
        return leftoverPolicy;
    }

    /** Retries of a commit whose outcome is unknown before the task fails over; 0 or more. */
    public int commitRetries() {
        return commitRetries;
    }

    /** The wait before the first retry of such a commit; positive. */
    public Duration commitRetryBackoff() {
        return commitRetryBackoff;
    }

    /** How long a starting writer waits for the ownership guard held by a task going away; zero or positive. */
    public Duration claimWait() {
        return claimWait;
    }

    /** How long marker rows are kept before the committer may delete them; positive. */
    public Duration markerRetention() {
        return markerRetention;
    }

    /** How often the committer deletes marker rows older than {@link #markerRetention()}; positive. */
    public Duration markerPruneInterval() {
        return markerPruneInterval;
    }

    /** How many prepared, not yet committed transactions one writer subtask may hold before it fails over. */
    public int maxPreparedPerSubtask() {
        return maxPreparedPerSubtask;
    }

    /** What a job restored from a checkpoint older than what the sink already committed does. */
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
