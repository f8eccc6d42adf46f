/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Changes held past a declined checkpoint travel in a savepoint; before the restore, the target gains a
 * constraint that refuses them. The restored writer's failure must say what failed: the changes its state
 * carried, not a batch of "records" of an epoch that has none, and not a record to fix upstream (none is).
 */
class RoutedTablesCarriedFailureITCase extends ExactlyOnceTestBase {

    private static final long EPOCH = 200;

    @AfterEach
    void forgetTheValveAndTrace() {
        IdValve.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
    }

    private ExactlyOnceSink<Long> sink(RoutedTables<Long> tables) {
        return ProtocolTrace.wrap(PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .tables(tables)
                .batchSize(50)
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build());
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

    private void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> ProtocolTrace.written(sinkId) == records, "the writer to take " + records + " records");
    }

    @Test
    void aRefusedCarriedChangeIsReportedAsCarriedNotAsARecordOfTheEpoch(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        BankAndOrders.ddl(table).forEach(db::execute);
        long n = 4 * EPOCH;
        RoutedTables<Long> tables = BankAndOrders.tables(table);
        StreamExecutionEnvironment first = TestJobs.manualEnv(1, TestJobs.noRestarts());
        first.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        valvedJob(
                first,
                n,
                tables,
                new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE_ONCE_SINK_PREPARED));
        JobClient job = first.executeAsync("routed tables, a declined checkpoint");
        String savepoint;
        try {
            feed(EPOCH);
            assertThat(TestJobs.checkpoint(client, job.getJobID())).isEqualTo(1);
            feed(2 * EPOCH);
            assertThat(client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED))
                    .as("checkpoint 2, declined")
                    .failsWithin(TestJobs.TIMEOUT);
            feed(3 * EPOCH); // changes that wait for the declined transaction's commit: held, carried
            savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            TestJobs.cancelUnlessDone(job);
        }
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED))
                .as("snapshots that carried held changes")
                .isNotEmpty();
        // Every carried account upsert now violates a constraint (existing rows are not checked).
        db.execute("ALTER TABLE " + table + "_accounts ADD CONSTRAINT no_more_changes CHECK (balance < 0) NOT VALID");

        IdValve.openFully(sinkId);
        StreamExecutionEnvironment second = TestJobs.env(1, 200, TestJobs.restoreFrom(savepoint));
        valvedJob(
                second,
                n,
                tables,
                new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE));
        String message = TestJobs.messageContaining(
                TestJobs.failureWithin(second.executeAsync("routed tables, restored"), TestJobs.TIMEOUT),
                "no_more_changes");

        assertThat(message)
                .as("the restored writer's failure")
                .contains("carried")
                .doesNotContain("records #-1")
                .doesNotContain("until the record is fixed or filtered upstream");
    }
}
