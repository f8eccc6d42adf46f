/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.spi.EpochWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The writer's metrics, registered in one place: Flink's {@code numRecordsSend}, and the sub-group
 * {@value #GROUP} of the writer operator's group. The names are a contract (dashboards and alert rules
 * use them; docs/operations.md lists them): never rename one.
 *
 * <p>Counters and the histogram are updated on the task thread; the gauges are read on the metric
 * reporter's thread and read only what is published for it ({@link PendingCommits#stillPrepared()},
 * {@link EpochWriter#backlogBytes()}).
 */
@Internal
public final class WriterMetrics {

    /** The sub-group of the sink's operators that holds eosink's metrics. */
    public static final String GROUP = "eosink";
    /** Samples the histograms keep: enough for stable quantiles of recent checkpoints, small in memory. */
    static final int HISTOGRAM_WINDOW = 500;

    public static final String PREPARED_TRANSACTIONS = "preparedTransactions";
    public static final String OLDEST_PREPARED_AGE_SECONDS = "oldestPreparedAgeSeconds";
    public static final String BARRIER_TO_PREPARED_MILLIS = "barrierToPreparedMillis";
    public static final String COPY_BACKLOG_BYTES = "copyBacklogBytes";
    public static final String TRANSACTIONS_ROLLED_BACK = "transactionsRolledBack";
    public static final String ORPHANS_ROLLED_BACK = "orphansRolledBack";

    private final MetricGroup group;
    final Counter numRecordsSend;
    final Counter transactionsRolledBack;
    final Counter orphansRolledBack;
    final Histogram barrierToPreparedMillis;

    private WriterMetrics(MetricGroup group, Counter numRecordsSend) {
        this.group = group;
        this.numRecordsSend = numRecordsSend;
        this.transactionsRolledBack = group.counter(TRANSACTIONS_ROLLED_BACK);
        this.orphansRolledBack = group.counter(ORPHANS_ROLLED_BACK);
        this.barrierToPreparedMillis =
                group.histogram(BARRIER_TO_PREPARED_MILLIS, new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
    }

    /** Registers the writer's metrics in its operator's group. */
    public static WriterMetrics register(SinkWriterMetricGroup operator) {
        return new WriterMetrics(operator.addGroup(GROUP), operator.getNumRecordsSendCounter());
    }

    /** Metrics that go nowhere: for a writer outside a Flink task (tests, tools). */
    public static WriterMetrics unregistered() {
        return unregistered(new SimpleCounter());
    }

    /** The same, counting records sent into {@code numRecordsSend}. */
    static WriterMetrics unregistered(Counter numRecordsSend) {
        return in(new UnregisteredMetricsGroup(), numRecordsSend);
    }

    /** Metrics registered in {@code eosink}, the sub-group itself (tests). */
    static WriterMetrics in(MetricGroup eosink, Counter numRecordsSend) {
        return new WriterMetrics(eosink, numRecordsSend);
    }

    /**
     * Registers the gauges, once the writer has what they read.
     *
     * @param nanoClock the clock of {@code pending}'s entries
     */
    void bind(PendingCommits pending, EpochWriter<?> epoch, LongSupplier nanoClock) {
        group.gauge(PREPARED_TRANSACTIONS, (Gauge<Long>) () -> preparedTransactions(pending));
        group.gauge(OLDEST_PREPARED_AGE_SECONDS, (Gauge<Long>)
                () -> oldestPreparedAgeSeconds(pending, nanoClock.getAsLong()));
        group.gauge(COPY_BACKLOG_BYTES, (Gauge<Long>) epoch::backlogBytes);
    }

    static long preparedTransactions(PendingCommits pending) {
        return pending.stillPrepared().count();
    }

    /** Whole seconds since the oldest transaction not known committed was prepared; 0 when none. */
    static long oldestPreparedAgeSeconds(PendingCommits pending, long nowNanos) {
        PendingCommits.Snapshot s = pending.stillPrepared();
        return s.count() == 0 ? 0 : Math.max(0, TimeUnit.NANOSECONDS.toSeconds(nowNanos - s.oldestPreparedAtNanos()));
    }

    void prepared(long barrierNanos, long preparedNanos) {
        barrierToPreparedMillis.update(TimeUnit.NANOSECONDS.toMillis(preparedNanos - barrierNanos));
    }

    /** One prepared transaction rolled back by recovery; {@code orphan} for orphans and leftovers of other jobs. */
    void rolledBack(boolean orphan) {
        transactionsRolledBack.inc();
        if (orphan) {
            orphansRolledBack.inc();
        }
    }
}
