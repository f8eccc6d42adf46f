/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;

import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The writer's gauges of what it prepared and has not seen committed (count, age of the oldest), its
 * barrier histogram, and its warning about a transaction that stays prepared too long: once per
 * transaction, never about one the database no longer holds. On a fake clock.
 */
class PreparedAgeTest {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    /** Each test its own job, so that the checkpoint outcomes one test reports do not reach another. */
    private final String job = UUID.randomUUID().toString().replace("-", "");

    private final SubtaskContext context = new SubtaskContext("orders", 0, 1, 0, new JobRun(job, OptionalLong.empty()));
    private final RecordingMetricGroup group = new RecordingMetricGroup();
    private final TrackingSession session = new TrackingSession();
    private long clock = 1_000 * SECOND;

    @Test
    void gaugesCountWhatIsPreparedAndNotKnownCommitted() throws Exception {
        ExactlyOnceWriter<String> writer = writer(Duration.ofMinutes(10));
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).isZero();
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS)).isZero();

        TransactionId first = epoch(writer, "a", 1);
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).isEqualTo(1);
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS)).isZero();
        clock += 5 * SECOND;
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS)).isEqualTo(5);

        clock += 5 * SECOND;
        TransactionId second = epoch(writer, "b", 2);
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).isEqualTo(2);
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS))
                .as("the first one's age")
                .isEqualTo(10);

        // Heard without the writer running (it acts at its next barrier): the gauges ask themselves.
        CheckpointOutcomes.completed(context.execution(), CheckpointOutcomes.committer("orders", 0), 1);
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).isEqualTo(1);
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS))
                .as("the second one's age")
                .isZero();
        clock += 3 * SECOND;
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS)).isEqualTo(3);

        CommitSignals.committed(second);
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).isZero();
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS)).isZero();

        assertThat(group.count("eosink." + WriterMetrics.BARRIER_TO_PREPARED_MILLIS))
                .isEqualTo(2);
        assertThat(group.histogram("eosink." + WriterMetrics.BARRIER_TO_PREPARED_MILLIS)
                        .getStatistics()
                        .getMax())
                .as("flush to prepared on the fake clock")
                .isEqualTo(250);
        assertThat(gauge(WriterMetrics.COPY_BACKLOG_BYTES)).isEqualTo(42);
        assertThat(first).isNotEqualTo(second);
        writer.close();
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).as("closed").isZero();
    }

    @Test
    void aTransactionThatStaysPreparedIsWarnedAboutOnceAndTheDatabaseIsAskedFirst() throws Exception {
        ExactlyOnceWriter<String> writer = writer(Duration.ofSeconds(30));
        epoch(writer, "a", 1);
        CheckpointOutcomes.aborted(context.execution(), 1); // declined: it waits for the next completed checkpoint
        int listedAtStart = session.listed;

        clock += 20 * SECOND;
        epoch(writer, "b", 2);
        assertThat(session.listed).as("not due yet: the database is not asked").isEqualTo(listedAtStart);

        clock += 11 * SECOND; // the first is 31 s old
        writer.write("c", null);
        assertThat(session.listed).as("due: asked once before warning").isEqualTo(listedAtStart + 1);
        writer.flush(false);
        writer.prepareCommit();
        writer.snapshotState(3);
        clock += 5 * SECOND;
        writer.write("d", null);
        assertThat(session.listed)
                .as("warned already: never asked again for it")
                .isEqualTo(listedAtStart + 1);

        clock += 30 * SECOND; // now the second and third are due too
        writer.flush(false);
        writer.prepareCommit();
        assertThat(session.listed).isEqualTo(listedAtStart + 2);
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).isEqualTo(4);
        assertThat(gauge(WriterMetrics.OLDEST_PREPARED_AGE_SECONDS)).isEqualTo(66);
        writer.close();
    }

    @Test
    void aTransactionTheDatabaseNoLongerHoldsIsNotWarnedAboutAndLeavesTheGauges() throws Exception {
        ExactlyOnceWriter<String> writer = writer(Duration.ofSeconds(30));
        TransactionId first = epoch(writer, "a", 1);
        // A committer in another JVM committed it, telling nobody in this one.
        session.prepared.remove(first);
        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS))
                .as("not known yet")
                .isEqualTo(1);

        clock += 31 * SECOND;
        writer.write("b", null);

        assertThat(gauge(WriterMetrics.PREPARED_TRANSACTIONS)).isZero();
        writer.close();
    }

    @Test
    void warnsOncePerEntryWithWhatToCheck() {
        PreparedAgeWarning warning =
                new PreparedAgeWarning(context, "table \"orders\"", TestWording.WORDS, Duration.ofSeconds(30));
        PendingCommits pending = new PendingCommits(context.execution(), "orders", 0);
        TransactionId id = new TransactionId("orders", 0, 7, "abcd1234");
        pending.prepared(id, 0);
        pending.snapshotted(7);
        CheckpointOutcomes.aborted(context.execution(), 7);

        assertThat(warning.anyDue(pending, 30 * SECOND)).as("at the threshold").isFalse();
        assertThat(warning.anyDue(pending, 31 * SECOND)).isTrue();
        assertThat(warning.warnDue(pending, 31 * SECOND)).isEqualTo(1);
        assertThat(warning.anyDue(pending, 90 * SECOND))
                .as("once per transaction")
                .isFalse();
        assertThat(warning.warnDue(pending, 90 * SECOND)).isZero();

        TransactionId next = new TransactionId("orders", 0, 8, "abcd1234");
        pending.prepared(next, 40 * SECOND);
        assertThat(warning.warnDue(pending, 71 * SECOND))
                .as("the next one, once")
                .isEqualTo(1);

        String message =
                warning.message(pending.entries().iterator().next(), CheckpointOutcomes.Outcome.ABORTED, 31 * SECOND);
        assertThat(message)
                .contains(
                        "sink 'orders' subtask 0/1",
                        "table \"orders\"",
                        id.toString(),
                        "checkpoint 7",
                        "aborted",
                        "31 s",
                        "PT30S",
                        "checkpoints failing, declined or timing out",
                        "committer that cannot commit",
                        "docs/operations.md",
                        "It holds the row locks of the rows it wrote until a later checkpoint completes");
        pending.clear();
    }

    @Test
    void theThresholdIsSetOrThreeCheckpointIntervalsAtLeastAMinuteOrTenMinutes() {
        SinkSettings defaults = SinkSettings.defaults("orders");
        assertThat(PreparedAgeWarning.threshold(
                        defaults.withPreparedAgeWarning(Duration.ofSeconds(5)), Duration.ofMinutes(1)))
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(PreparedAgeWarning.threshold(defaults, Duration.ofSeconds(10)))
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(PreparedAgeWarning.threshold(defaults, Duration.ofMinutes(2)))
                .isEqualTo(Duration.ofMinutes(6));
        assertThat(PreparedAgeWarning.threshold(defaults, null)).isEqualTo(Duration.ofMinutes(10));
    }

    /** One epoch: a record, the barrier (flush, 250 ms later prepared), the snapshot. */
    private TransactionId epoch(ExactlyOnceWriter<String> writer, String record, long checkpoint) throws Exception {
        writer.write(record, null);
        writer.flush(false);
        clock += 250_000_000L;
        TransactionId id = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(checkpoint);
        return id;
    }

    private long gauge(String name) {
        return (Long) group.value("eosink." + name);
    }

    private ExactlyOnceWriter<String> writer(Duration threshold) throws Exception {
        SinkSettings settings = SinkSettings.defaults("orders").withPreparedAgeWarning(threshold);
        return new ExactlyOnceWriter<>(
                new SinkSubtask(context, settings, "table \"orders\"", TestWording.WORDS),
                session,
                List.of(),
                new WriterTask(
                        WriterMetrics.in(group.addGroup(WriterMetrics.GROUP), new SimpleCounter()),
                        null,
                        ExactlyOnceWriter.DEFAULT_CHECKPOINT_TIMEOUT,
                        null,
                        () -> clock));
    }

    /** Keeps what it prepared as the database would, until a test takes it away; counts the listings. */
    private static final class TrackingSession extends NoOpWriterSession {
        final Set<TransactionId> prepared = new LinkedHashSet<>();
        int listed;

        @Override
        public List<TransactionId> listPrepared() {
            listed++;
            return new ArrayList<>(prepared);
        }

        @Override
        public void prepare(TransactionId id, long rows) {
            prepared.add(id);
        }

        @Override
        public long backlogBytes() {
            return 42;
        }
    }
}
