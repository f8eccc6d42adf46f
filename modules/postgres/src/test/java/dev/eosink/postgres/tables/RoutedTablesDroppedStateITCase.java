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
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
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
 * Changes of routed tables held past a declined checkpoint live only in the savepoint's writer state. Restored
 * with a changed sink uid and --allowNonRestoredState, the sink refuses to start (right), and its remedy must be
 * one that exists for routed tables: the operator tool does not show or write a routed sink's carried changes
 * (docs/tables.md; it refuses them), so the refusal must not send the operator there.
 */
class RoutedTablesDroppedStateITCase extends ExactlyOnceTestBase {

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
                .claimWait(Duration.ofSeconds(5))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build());
    }

    private void valvedJob(
            StreamExecutionEnvironment env,
            long n,
            RoutedTables<Long> tables,
            CheckpointDecliner decliner,
            String sinkUid) {
        IdValve.ids(env, sinkId, n)
                .map(decliner)
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(sink(tables))
                .uid(sinkUid);
    }

    private void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> ProtocolTrace.written(sinkId) == records, "the writer to take " + records + " records");
    }

    @Test
    void aRefusalForRoutedChangesLeftInADroppedStateOffersOnlyRemediesThatExist(
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
                new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE_ONCE_SINK_PREPARED),
                "sink");
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

        IdValve.openFully(sinkId);
        Configuration dropped = TestJobs.restoreFrom(savepoint);
        dropped.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        StreamExecutionEnvironment second = TestJobs.env(1, 200, dropped);
        valvedJob(
                second,
                n,
                tables,
                new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE),
                "sink-renamed");
        String refusal = TestJobs.messageContaining(
                TestJobs.failureWithin(
                        second.executeAsync("routed tables, without the sink's state"), TestJobs.TIMEOUT),
                "carried past the barrier");

        assertThat(refusal)
                .as("the refusal")
                .contains("Refused", "restore the job from the checkpoint or savepoint that holds this sink's state")
                .doesNotContain("eosink-admin carried shows them, and writes them with --apply");
    }
}
