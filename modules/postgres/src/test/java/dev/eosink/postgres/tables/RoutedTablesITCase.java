/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.Faults.Point;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A routed sink of four related tables ({@link BankAndOrders}), each record one whole source transaction: the
 * tables end exactly as the records' replay says, nothing is left prepared, and a reader polling the tables
 * meanwhile ({@link ConsistencyReader}) sees, at every commit it observes, a state the source had (the balances
 * and orders of exactly some prefix of the transactions).
 */
class RoutedTablesITCase extends ExactlyOnceTestBase {

    /** Records per epoch where the test triggers the checkpoints. */
    private static final long EPOCH = 500;

    @AfterEach
    void forgetTheValveAndTrace() {
        IdValve.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
    }

    private ExactlyOnceSink<Long> sink(RoutedTables<Long> tables) {
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .tables(tables)
                .batchSize(50) // runs mid-epoch too, right after barriers, while the previous commit is pending
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build()));
    }

    @Test
    void manyTablesCommitTogetherThroughFailuresWithChainingOffAndEveryObservedCommitIsAStateOfTheSource()
            throws Exception {
        BankAndOrders.ddl(table).forEach(db::execute);
        long n = 3_000;
        RoutedTables<Long> tables = BankAndOrders.tables(table);
        Faults.arm(sinkId, Point.WRITE, 900);
        Faults.arm(sinkId, Point.AFTER_PREPARE, 3);
        Faults.arm(sinkId, Point.BEFORE_COMMIT, 6);
        Faults.arm(sinkId, Point.AFTER_COMMIT, 9);
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.fixedDelayRestarts(20, Duration.ofMillis(100)));
        // Writer and committer in separate tasks: the writer may hear that a checkpoint completed before its
        // committer committed it, and its changes must still wait for that commit.
        env.disableOperatorChaining();
        TestJobs.ids(env, n, 1_500).sinkTo(sink(tables));

        ConsistencyReader reader = new ConsistencyReader(db, table).start();
        try {
            env.execute("routed tables through failures");
        } finally {
            reader.stop();
        }

        assertExact(tables, n, reader);
        assertThat(Faults.fired(sinkId, Point.WRITE)
                        + Faults.fired(sinkId, Point.AFTER_PREPARE)
                        + Faults.fired(sinkId, Point.BEFORE_COMMIT)
                        + Faults.fired(sinkId, Point.AFTER_COMMIT))
                .as("failures injected")
                .isEqualTo(4);
    }

    /**
     * Two consistency groups (two banks sharing no rows) at parallelism 2, distributed by the sink itself
     * ({@code groupedBy}): each group's transactions in one writer, in order, through a failover; each bank ends
     * exact, and a reader of each sees only states its source had.
     */
    @Test
    void twoConsistencyGroupsRunInParallelEachOneWholeAndInOrder() throws Exception {
        String[] banks = {table + "_g0", table + "_g1"};
        for (String bank : banks) {
            BankAndOrders.ddl(bank).forEach(db::execute);
        }
        long n = 3_000;
        RoutedTables.Builder<Long> both = RoutedTables.<Long>route(
                        (i, out) -> BankAndOrders.route(banks[(int) (i % 2)], i / 2, out))
                // Groups 0 and 2: their hashes fall on different subtasks of two (0 and 1 would share one).
                .groupedBy(i -> (i % 2) * 2);
        for (String bank : banks) {
            BankAndOrders.tables(bank).tables().forEach(both::table);
        }
        RoutedTables<Long> tables = both.build();
        Faults.arm(sinkId, Point.WRITE, 700);
        StreamExecutionEnvironment env = TestJobs.env(2, 100, TestJobs.fixedDelayRestarts(20, Duration.ofMillis(100)));
        DataGeneratorSource<Long> ordered = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index, n, RateLimiterStrategy.perSecond(1_500), Types.LONG);
        // One source subtask: each group's records come in order from one channel.
        env.fromSource(ordered, WatermarkStrategy.noWatermarks(), "ids")
                .setParallelism(1)
                .sinkTo(sink(tables));

        ConsistencyReader[] readers = {
            new ConsistencyReader(db, banks[0]).start(), new ConsistencyReader(db, banks[1]).start()
        };
        try {
            env.execute("two consistency groups");
        } finally {
            for (ConsistencyReader r : readers) {
                r.stop();
            }
        }

        for (int g = 0; g < 2; g++) {
            RoutedTables<Long> one = BankAndOrders.tables(banks[g]);
            int group = g;
            TablesModel expected = TablesModel.replay(
                    one,
                    BankAndOrders.opening(banks[g]),
                    LongStream.range(0, n)
                            .filter(i -> i % 2 == group)
                            .map(i -> i / 2)
                            .boxed()
                            .collect(Collectors.toList()));
            try (Connection c = db.connect()) {
                assertThat(expected.read(c)).as("bank %s", banks[g]).isEqualTo(expected.rows());
            }
            assertThat(readers[g].failure()).as("reader of %s", banks[g]).isNull();
            assertThat(readers[g].inconsistent())
                    .as("observed commits of %s no state of its source", banks[g])
                    .isEmpty();
            assertThat(readers[g].lastTransfers())
                    .as("transfers of %s", banks[g])
                    .isEqualTo(n / 2);
        }
        assertThat(preparedLeft()).as("prepared left").isEmpty();
        assertThat(Faults.fired(sinkId, Point.WRITE)).as("failures injected").isEqualTo(1);
        assertThat(db.count(
                        "SELECT count(DISTINCT subtask) FROM eosink_markers WHERE sink_id = ? AND row_count > 0",
                        sinkId))
                .as("writer subtasks that committed rows: one per group")
                .isEqualTo(2);
    }

    /**
     * Checkpoint 2 is declined once the writer prepared it, so its transaction commits only with a later
     * checkpoint; the next epoch's changes touch its rows, so the writer holds them all (every table), and the
     * job is stopped with a savepoint before any other checkpoint: the savepoint's state carries them. Restored
     * from it, the writer writes them, all tables in one transaction, before its first record; the job runs to
     * the end, exact, and the reader never sees part of a record.
     */
    @Test
    void changesHeldPastADeclinedCheckpointTravelInTheSavepointAndCommitTogetherOnRestore(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        BankAndOrders.ddl(table).forEach(db::execute);
        long n = 4 * EPOCH;
        RoutedTables<Long> tables = BankAndOrders.tables(table);
        ConsistencyReader reader = new ConsistencyReader(db, table).start();
        String savepoint;
        try {
            StreamExecutionEnvironment first = TestJobs.manualEnv(1, TestJobs.noRestarts());
            first.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
            valvedJob(
                    first,
                    n,
                    tables,
                    new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE_ONCE_SINK_PREPARED));
            JobClient job = first.executeAsync("routed tables, a declined checkpoint");
            try {
                feed(EPOCH);
                assertThat(TestJobs.checkpoint(client, job.getJobID())).isEqualTo(1);
                feed(2 * EPOCH);
                assertThat(client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED))
                        .as("checkpoint 2, declined")
                        .failsWithin(TestJobs.TIMEOUT);
                assertThat(CheckpointDecliner.failedCheckpoint(sinkId)).isEqualTo(2);
                feed(3 * EPOCH); // changes that wait for the declined transaction's commit
                savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                TestJobs.cancelUnlessDone(job);
            }
            assertThat(TestJobs.checkpointIdOf(savepoint))
                    .as("the savepoint's checkpoint")
                    .isEqualTo(3);
            assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED))
                    .as("snapshots that carried held changes")
                    .anySatisfy(e -> {
                        assertThat(e.checkpointOfGid()).isEqualTo(3);
                        assertThat(Long.parseLong(e.outcome))
                                .as("bytes carried")
                                .isPositive();
                    });
            assertThat(preparedLeft()).as("prepared after the stop").isEmpty();

            IdValve.openFully(sinkId);
            StreamExecutionEnvironment second = TestJobs.env(1, 200, TestJobs.restoreFrom(savepoint));
            valvedJob(
                    second,
                    n,
                    tables,
                    new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE));
            second.execute("routed tables, restored from the savepoint");
        } finally {
            reader.stop();
        }

        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN))
                .as("restored writers that wrote carried changes")
                .extracting(e -> e.subtask)
                .containsExactly(0);
        assertThat(db.count("SELECT count(*) FROM eosink_markers WHERE sink_id = ?", CarriedNotices.sinkIdOf(sinkId)))
                .as("notices of carried changes once they are written")
                .isZero();
        assertExact(tables, n, reader);
    }

    private void valvedJob(
            StreamExecutionEnvironment env, long n, RoutedTables<Long> tables, CheckpointDecliner decliner) {
        IdValve.ids(env, sinkId, n)
                .map(decliner)
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(sink(tables))
                .uid("sink");
    }

    /** Lets the source emit up to {@code records} ids in all, and waits until the writer took them. */
    private void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> ProtocolTrace.written(sinkId) == records, "the writer to take " + records + " records");
    }

    /** The tables are exactly the replay of records 0..n-1, nothing is prepared, and the reader saw only source states. */
    private void assertExact(RoutedTables<Long> tables, long n, ConsistencyReader reader) throws Exception {
        TablesModel expected = TablesModel.replay(
                tables,
                BankAndOrders.opening(table),
                LongStream.range(0, n).boxed().collect(Collectors.toList()));
        Map<String, Map<String, String>> actual;
        try (Connection c = db.connect()) {
            actual = expected.read(c);
        }
        assertThat(preparedLeft())
                .as("prepared transactions of sink %s left", sinkId)
                .isEmpty();
        for (String name : expected.rows().keySet()) {
            Map<String, String> want = expected.rows().get(name);
            Map<String, String> got = actual.get(name);
            assertThat(got.size()).as("rows of %s", name).isEqualTo(want.size());
            assertThat(got).as("%s, row by row", name).isEqualTo(want);
        }
        assertThat(reader.failure()).as("the reader's own failure").isNull();
        assertThat(reader.inconsistent())
                .as("observed commits that are no state of the source")
                .isEmpty();
        assertThat(reader.observed()).as("commits the reader observed").isGreaterThanOrEqualTo(3);
        assertThat(reader.lastTransfers()).as("transfers the reader saw last").isEqualTo(n);
    }
}
