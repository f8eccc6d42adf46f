package dev.eosink.core;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * The protocol's options, database-neutral and immutable. Database modules' builders fill it in; the
 * defaults are what a production job should run with.
 */
public final class SinkSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final int DEFAULT_COMMIT_RETRIES = 5;
    public static final Duration DEFAULT_COMMIT_RETRY_BACKOFF = Duration.ofMillis(200);
    public static final Duration DEFAULT_CLAIM_WAIT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_MARKER_RETENTION = Duration.ofDays(7);
    public static final Duration DEFAULT_MARKER_PRUNE_INTERVAL = Duration.ofHours(1);

    private final String sinkId;
    private final LeftoverPolicy leftoverPolicy;
    private final int commitRetries;
    private final Duration commitRetryBackoff;
    private final Duration claimWait;
    private final Duration markerRetention;
    private final Duration markerPruneInterval;

    public SinkSettings(
            String sinkId,
            LeftoverPolicy leftoverPolicy,
            int commitRetries,
            Duration commitRetryBackoff,
            Duration claimWait,
            Duration markerRetention,
            Duration markerPruneInterval) {
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
    }

    /** Settings with every default, for the given sink id. */
    public static SinkSettings defaults(String sinkId) {
        return new SinkSettings(
                sinkId,
                LeftoverPolicy.ROLLBACK,
                DEFAULT_COMMIT_RETRIES,
                DEFAULT_COMMIT_RETRY_BACKOFF,
                DEFAULT_CLAIM_WAIT,
                DEFAULT_MARKER_RETENTION,
                DEFAULT_MARKER_PRUNE_INTERVAL);
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

    @Override
    public String toString() {
        return "SinkSettings{sinkId="
                + sinkId
                + ", leftoverPolicy="
                + leftoverPolicy
                + ", commitRetries="
                + commitRetries
                + ", commitRetryBackoff="
                + commitRetryBackoff
                + ", claimWait="
                + claimWait
                + ", markerRetention="
                + markerRetention
                + ", markerPruneInterval="
                + markerPruneInterval
                + "}";
    }
}
