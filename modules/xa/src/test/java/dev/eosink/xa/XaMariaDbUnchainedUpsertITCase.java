/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.eosink.testing.records.UpsertRecords.orderedIds;
import static dev.eosink.testing.records.UpsertRecords.replay;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An XA upsert sink on MariaDB whose writer, committer and checkpoint outcome operator run as separate
 * tasks (chaining disabled, by the job or by the sink): the writer hears that a checkpoint completed
 * before its committer, in another task, has committed that checkpoint's branch, and must not take the
 * one for the other. Each epoch deletes keys the previous epoch inserted, and every commit is slowed;
 * the table must end exactly as the replay of the records, with no branch left prepared.
 */
class XaMariaDbUnchainedUpsertITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** How the sink's operators come to run as separate tasks. */
    enum Unchained {
        /** {@code env.disableOperatorChaining()}. */
        JOB,
        /** {@code sinkTo(...).disableChaining()}. */
        SINK
    }

    /** An odd distance: record i (odd, from LAG on) deletes the key that record i - LAG inserted. */
    static final long LAG = 201;

    private final MariaDbFixture db = MariaDbFixture.get();
    private final XaMariaDbBackend backend = new XaMariaDbBackend();
    private String table;
    private String sinkId;

    @BeforeEach
    void setUp() {
        table = "xa_unchained_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        sinkId = table.replace('_', '-');
    }

    @AfterEach
    void tearDown() {
        backend.rollbackAllPrepared(sinkId);
    }

    /** Records 2j insert key j; odd records from {@link #LAG} on delete the key inserted {@link #LAG} records before. */
    static long key(long i) {
        return i % 2 == 0 ? i / 2 : i >= LAG ? (i - LAG) / 2 : 1_000_000 + i;
    }

    static RowKind kind(long i) {
        return i % 2 == 1 && i >= LAG ? RowKind.DELETE : RowKind.INSERT;
    }

    /** A commit that comes a while after the checkpoint completed. */
    static final class SlowCommits implements LifecycleHook {
        private static final long serialVersionUID = 1L;

        @Override
        public void at(Point point, SubtaskContext context, TransactionId transaction) throws IOException {
            if (point == Point.BEFORE_COMMIT) {
                try {
                    Thread.sleep(150);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("cancelled while slowing a commit");
                }
            }
        }
    }

    @ParameterizedTest(name = "chaining disabled by the {0}")
    @EnumSource(Unchained.class)
    void deletesOfRowsTheJustCommittedBranchInsertedAreNeverMissed(Unchained how) throws Exception {
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL, v BIGINT NOT NULL, PRIMARY KEY (k)) ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER
                + "'@'%'");
        long n = 4_000;
        ExactlyOnceSink<Long> sink = XaSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(MariaDbFixture.SINK_USER)
                .password(MariaDbFixture.SINK_PASSWORD)
                .sinkId(sinkId)
                .table(table)
                .columns("k", "v")
                .rows(i -> new Object[] {key(i), i})
                .upsert("k")
                .changelog(XaMariaDbUnchainedUpsertITCase::kind)
                .batchSize(
                        20) // statements run mid-epoch, right after the barrier of the epoch that inserted their keys
                // A statement waiting for a row lock of the writer's own prepared branch would fail the job.
                .lockTimeout(Duration.ofSeconds(5))
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build()
                .withLifecycleHook(new SlowCommits());
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.noRestarts());
        if (how == Unchained.JOB) {
            env.disableOperatorChaining();
        }
        DataStreamSink<Long> out = orderedIds(env, n, 2_000).sinkTo(sink);
        if (how == Unchained.SINK) {
            out.disableChaining();
        }
        env.execute("xa upserts, chaining disabled by the " + how);

        Map<Long, Long> expected = replay(n, XaMariaDbUnchainedUpsertITCase::key, XaMariaDbUnchainedUpsertITCase::kind);
        Map<Long, Long> actual = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v FROM " + table)) {
            while (rs.next()) {
                assertThat(actual.put(rs.getLong(1), rs.getLong(2)))
                        .as("key %d twice", rs.getLong(1))
                        .isNull();
            }
        }
        Map<Long, Long> extra = new HashMap<>(actual);
        extra.keySet().removeAll(expected.keySet());
        Map<Long, Long> missing = new HashMap<>(expected);
        missing.keySet().removeAll(actual.keySet());
        assertThat(backend.prepared(sinkId))
                .as("prepared branches of sink %s left", sinkId)
                .isEmpty();
        assertThat(extra).as("rows a DELETE missed (%d)", extra.size()).isEmpty();
        assertThat(missing).as("keys missing (%d)", missing.size()).isEmpty();
        assertThat(actual).as("each key's last record").isEqualTo(expected);
        assertThat(actual).as("rows").hasSize(expected.size());
    }
}
