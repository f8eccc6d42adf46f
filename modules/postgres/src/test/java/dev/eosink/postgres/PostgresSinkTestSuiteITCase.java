/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SinkTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * Flink's own sink test suite, unchanged, against the sink and a real PostgreSQL, exactly-once:
 *
 * <ul>
 *   <li>testBasicSink: a bounded job, committed by its final checkpoint;
 *   <li>testStartFromSavepoint, testScaleUp, testScaleDown: half the data, stop-with-savepoint, then
 *       the rest from that savepoint at parallelism 2 to 2, 2 to 4 and 4 to 2;
 *   <li>testMetrics: the writer's numRecordsSend equals the records sent.
 * </ul>
 *
 * <p>The suite reads back what became visible in the table and compares it with the input record for
 * record: one duplicate or one missing record fails it. What the suite needs from this sink, and the one
 * place where its jobs are run differently from production, are described in {@link
 * PostgresSinkExternalContext}.
 */
class PostgresSinkTestSuiteITCase extends SinkTestSuiteBase<String> {

    @TestEnv
    MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

    @TestContext
    ExternalContextFactory<PostgresSinkExternalContext> postgres = PostgresSinkExternalContext.factory();

    @TestSemantics
    CheckpointingMode[] semantics = new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE};
}
