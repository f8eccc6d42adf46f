/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.LogCapture;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.TestJobs;
import dev.eosink.testing.metrics.InMemoryReporter;
import dev.eosink.testing.metrics.InMemoryReporter.Registration;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink's metrics as a reporter sees them (docs/operations.md, "Metrics"), read through an in-memory
 * reporter of the MiniCluster: after a clean bounded run, after a failure that leaves a prepared
 * transaction for the restarted writer to roll back, and while a declined checkpoint keeps a
 * transaction prepared (with the once-per-transaction warning). Each ends with exact counts.
 */
class SinkMetricsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(4)
                    .setConfiguration(InMemoryReporter.configure(new Configuration()))
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String EOSINK = "eosink";

    private final PostgresFixture db = PostgresFixture.get();
    private String table;
    private String sinkId;
    private LogCapture log;

    @BeforeEach
    void createTable(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("t").toLowerCase(Locale.ROOT);
        table = "metrics_" + method.substring(0, Math.min(14, method.length())) + "_" + SEQUENCE.incrementAndGet() + "_"
                + (System.nanoTime() % 100000);
        sinkId = table.replace('_', '-');
        db.execute("CREATE TABLE " + table + " (id bigint NOT NULL, payload text NOT NULL)");
        Faults.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        InMemoryReporter.clear();
        log = LogCapture.attach();
    }

    @AfterEach
    void cleanUp() {
        log.detach();
        db.rollbackPrepared(TransactionId.sinkPrefix(sinkId));
        Faults.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        InMemoryReporter.clear();
    }

    @Test
    void aCleanRunCountsEveryCommittedRowOnce() throws Exception {
        long n = 3_000;
        StreamExecutionEnvironment env = TestJobs.env(2, 200);
        TestJobs.ids(env, n, 3_000).sinkTo(sink().build());
        env.execute(sinkId);

        assertExactlyOnce(n);
        assertThat(sum(all("Committer", EOSINK, "recordsCommitted")))
                .as("rows committed")
                .isEqualTo(rows());
        long committed = sum(all("Committer", EOSINK, "transactionsCommitted"));
        assertThat(committed).isPositive();
        assertThat(sum(all("Committer", EOSINK, "checkpointToCommittedMillis")))
                .as("one sample per commit")
                .isEqualTo(committed);
        assertThat(sum(all("Writer", EOSINK, "barrierToPreparedMillis")))
                .as("one sample per prepare")
                .isEqualTo(committed);
        assertThat(sum(all("Writer", null, "numRecordsSend"))).isEqualTo(n);
        assertThat(latest("Committer", "secondsSinceLastCommit"))
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.gaugeValue()).as("%s", r).isBetween(0L, 10L));
        assertThat(latest("Writer", "preparedTransactions"))
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.gaugeValue()).as("%s", r).isZero());
        assertThat(latest("Writer", "oldestPreparedAgeSeconds"))
                .allSatisfy(r -> assertThat(r.gaugeValue()).isZero());
        assertThat(latest("Writer", "copyBacklogBytes"))
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.gaugeValue())
                        .as("no COPY in flight after the end")
                        .isZero());
        for (String zero : List.of("transactionsRolledBack", "orphansRolledBack")) {
            assertThat(sum(all("Writer", EOSINK, zero))).as(zero).isZero();
        }
        for (String zero : List.of("transactionsLost", "transactionsAlreadyCommitted", "commitRetries")) {
            assertThat(sum(all("Committer", EOSINK, zero))).as(zero).isZero();
        }
    }

    /**
     * Writer subtask fails right after a prepare, before its checkpoint completes: the restarted writer
     * rolls that transaction back, and counts it as each of its log lines says.
     */
    @Test
    void aFailureAfterPrepareIsCountedAsTheRestartedWritersRollback() throws Exception {
        long n = 4_000;
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);
        StreamExecutionEnvironment env = TestJobs.env(2, 200);
        // At least four epochs with records per subtask: the third PREPARE comes.
        CheckpointPacedIds.ids(env, n, 500).sinkTo(FaultInjectingDatabase.wrap(sink().build()));
        env.execute(sinkId);

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertExactlyOnce(n);
        List<Registration> rolledBack = all("Writer", EOSINK, "transactionsRolledBack");
        long restarted = rolledBack.stream()
                .filter(r -> r.attempt() > 0)
                .mapToLong(Registration::count)
                .sum();
        long logged = log.text()
                .lines()
                .filter(l -> l.contains("sink '" + sinkId + "'") && l.contains("rolled back prepared transaction"))
                .count();
        assertThat(restarted)
                .as("rollbacks of the restarted attempts: %s", rolledBack)
                .isPositive();
        assertThat(sum(rolledBack))
                .as("every rollback is a restarted attempt's")
                .isEqualTo(restarted);
        assertThat(restarted).as("as many as the log says").isEqualTo(logged);
        assertThat(sum(all("Writer", EOSINK, "orphansRolledBack"))).isZero();
        assertThat(sum(all("Committer", EOSINK, "recordsCommitted")))
                .as("rows made visible, over every attempt: re-commits at restore are not counted again")
                .isEqualTo(rows());
        assertThat(latest("Writer", "preparedTransactions"))
                .allSatisfy(r -> assertThat(r.gaugeValue()).isZero());
    }

    /**
     * A checkpoint is declined after the writer prepared its transaction (tolerated: no failover), so the
     * transaction stays prepared until the next checkpoint completes, longer than the 1 s threshold: the
     * gauges show it while it lasts, and the writer warns about it exactly once.
     */
    @Test
    void aTransactionKeptPreparedByADeclinedCheckpointShowsInTheGaugesAndIsWarnedAboutOnce() throws Exception {
        long n = 2_500;
        Configuration conf = TestJobs.noRestarts();
        StreamExecutionEnvironment env = TestJobs.env(1, 1_500, conf);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        TestJobs.ids(env, n, 500)
                .map(new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE))
                .sinkTo(sink().preparedAgeWarning(Duration.ofSeconds(1)).build());

        AtomicBoolean running = new AtomicBoolean(true);
        long[] seen = new long[2]; // most prepared at once, and that sample's oldest age
        Thread sampler = new Thread(
                () -> {
                    while (running.get()) {
                        List<Registration> prepared = latest("Writer", "preparedTransactions");
                        List<Registration> age = latest("Writer", "oldestPreparedAgeSeconds");
                        if (!prepared.isEmpty() && !age.isEmpty()) {
                            long p = prepared.get(0).gaugeValue();
                            long a = age.get(0).gaugeValue();
                            if (a > seen[1]) {
                                seen[0] = p;
                                seen[1] = a;
                            }
                        }
                        try {
                            Thread.sleep(5);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "gauge-sampler");
        sampler.start();
        try {
            env.execute(sinkId);
        } finally {
            running.set(false);
            sampler.join();
        }

        long declined = CheckpointDecliner.failedCheckpoint(sinkId);
        assertThat(declined).as("checkpoint declined").isPositive();
        assertThat(seen[1])
                .as("oldestPreparedAgeSeconds while the declined checkpoint's transaction waited")
                .isPositive();
        assertThat(seen[0]).as("preparedTransactions at that moment").isGreaterThanOrEqualTo(1);

        Pattern warning = Pattern.compile("transaction (\\S+) \\(checkpoint (\\d+)[^)]*\\) has been prepared for");
        Map<String, Integer> warnings = new HashMap<>();
        List<Long> checkpoints = new ArrayList<>();
        log.text().lines().filter(l -> l.contains("sink '" + sinkId + "'")).forEach(l -> {
            Matcher m = warning.matcher(l);
            if (m.find()) {
                warnings.merge(m.group(1), 1, Integer::sum);
                checkpoints.add(Long.parseLong(m.group(2)));
            }
        });
        assertThat(warnings.values()).as("once per transaction: %s", warnings).allMatch(count -> count == 1);
        assertThat(checkpoints)
                .as("the declined checkpoint's transaction, warned about: %s", warnings)
                .contains(declined);
        assertThat(checkpoints.stream().filter(c -> c == declined)).hasSize(1);

        assertExactlyOnce(n);
        assertThat(latest("Writer", "preparedTransactions"))
                .allSatisfy(r -> assertThat(r.gaugeValue()).isZero());
        assertThat(sum(all("Committer", EOSINK, "recordsCommitted"))).isEqualTo(n);
    }

    /** The sink of every exactly-once test ({@link ExactlyOnceTestBase#sinkBuilder}). */
    private PostgresSinkBuilder<Long> sink() {
        return ExactlyOnceTestBase.sinkBuilder(db, sinkId, table);
    }

    /** Every registration of the metric in this test's job, every attempt. */
    private List<Registration> all(String operator, String group, String name) {
        List<Registration> found = InMemoryReporter.find(sinkId, operator, group, name);
        assertThat(found)
                .as("%s of %s (registered: %s)", name, operator, InMemoryReporter.identifiers())
                .isNotEmpty();
        return found;
    }

    /** The latest attempt's registration of the eosink metric, per subtask. */
    private List<Registration> latest(String operator, String name) {
        return InMemoryReporter.latest(sinkId, operator, EOSINK, name);
    }

    private static long sum(List<Registration> registrations) {
        return registrations.stream().mapToLong(Registration::count).sum();
    }

    private long rows() {
        return db.count("SELECT count(*) FROM " + table);
    }

    private void assertExactlyOnce(long n) {
        long rows = rows();
        long distinct = db.count("SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ?", n);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions left")
                .isEmpty();
        assertThat(distinct).as("distinct ids in %s", table).isEqualTo(n);
        assertThat(rows).as("rows in %s (no duplicates)", table).isEqualTo(n);
    }
}
