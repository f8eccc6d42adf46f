/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The committer's metrics, registered in one place, in the sub-group {@value WriterMetrics#GROUP} of the
 * committer operator's group. The names are a contract (dashboards and alert rules use them;
 * docs/operations.md lists them): never rename one.
 *
 * <p>Updated on the committer's thread; the gauge reads a volatile field on the reporter's thread.
 */
final class CommitterMetrics {

    static final String TRANSACTIONS_COMMITTED = "transactionsCommitted";
    static final String TRANSACTIONS_ALREADY_COMMITTED = "transactionsAlreadyCommitted";
    static final String COMMIT_RETRIES = "commitRetries";
    static final String TRANSACTIONS_LOST = "transactionsLost";
    static final String RECORDS_COMMITTED = "recordsCommitted";
    static final String CHECKPOINT_TO_COMMITTED_MILLIS = "checkpointToCommittedMillis";
    static final String SECONDS_SINCE_LAST_COMMIT = "secondsSinceLastCommit";

    final Counter committed;
    final Counter alreadyCommitted;
    final Counter retries;
    final Counter lost;
    final Counter recordsCommitted;
    final Histogram checkpointToCommittedMillis;
    private final LongSupplier nanoClock;
    /** When this committer last committed a transaction, or started: read by the gauge. */
    private volatile long lastCommitNanos;

    CommitterMetrics(MetricGroup operator, LongSupplier nanoClock) {
        MetricGroup group = operator.addGroup(WriterMetrics.GROUP);
        this.nanoClock = nanoClock;
        this.lastCommitNanos = nanoClock.getAsLong();
        this.committed = group.counter(TRANSACTIONS_COMMITTED);
        this.alreadyCommitted = group.counter(TRANSACTIONS_ALREADY_COMMITTED);
        this.retries = group.counter(COMMIT_RETRIES);
        this.lost = group.counter(TRANSACTIONS_LOST);
        this.recordsCommitted = group.counter(RECORDS_COMMITTED);
        this.checkpointToCommittedMillis = group.histogram(
                CHECKPOINT_TO_COMMITTED_MILLIS, new DescriptiveStatisticsHistogram(WriterMetrics.HISTOGRAM_WINDOW));
        group.gauge(SECONDS_SINCE_LAST_COMMIT, (Gauge<Long>) this::secondsSinceLastCommit);
    }

    /** The clock of {@link #committedNow}'s arguments. */
    long now() {
        return nanoClock.getAsLong();
    }

    /**
     * This committer made a transaction of {@code rows} visible.
     *
     * @param commitCallNanos when Flink's commit call began (right after the checkpoint completed)
     */
    void committedNow(long rows, long commitCallNanos) {
        long now = nanoClock.getAsLong();
        committed.inc();
        recordsCommitted.inc(rows);
        checkpointToCommittedMillis.update(TimeUnit.NANOSECONDS.toMillis(now - commitCallNanos));
        lastCommitNanos = now;
    }

    long secondsSinceLastCommit() {
        return Math.max(0, TimeUnit.NANOSECONDS.toSeconds(nanoClock.getAsLong() - lastCommitNanos));
    }
}
