/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

/**
 * The resource-neutral hard cases where chaining can matter ({@link UnchainedHardCases}), chaining
 * disabled by the sink ({@link RunDimension#SINK_CHAINING_DISABLED}): besides the declined checkpoint,
 * the end of a bounded input (the final checkpoint commits after the writer finished), a failure between
 * prepare and commit and a crash before a commit (restored committers, in their own tasks), a stop with a
 * savepoint (a notified synchronous savepoint) and a rescale with prepared transactions (restored
 * committers of other subtasks while the writers start). A test class extends this class once per
 * backend, giving it, and nothing else; a JDBC backend's extends {@link JdbcSinkUnchainedHardCases}.
 *
 * <p>Left out: a checkpoint that expires after the sink prepared it ({@link
 * FailoverCases#expiredCheckpointIsCommittedByTheNextCompletedOne}). The sink hears of an expiry as of a
 * decline, by the one abort notification the checkpoint outcome operator passes on ({@code
 * CheckpointOutcomeOperator#notifyCheckpointAborted}), and the declined case walks that; and unchained,
 * its precondition (the writer's barrier before a checkpoint timeout of 1 s, CheckpointDecliner.java:264)
 * would be a time on a busy machine.
 */
public abstract class SinkUnchainedHardCases extends UnchainedHardCases {

    /** The cases with the sink unchained from its input, on {@code backend}. */
    protected SinkUnchainedHardCases(ResourceBackend backend) {
        super(backend, RunDimension.SINK_CHAINING_DISABLED);
    }

    @Test
    void boundedJobCommitsEverythingAtTheEnd() throws Exception {
        cases().boundedJobCommitsEverythingAtTheEnd();
    }

    @Test
    void failureAfterPrepareIsRolledBackByTheRestartedWriter() throws Exception {
        cases().failureAfterPrepareIsRolledBackByTheRestartedWriter();
    }

    @Test
    void crashBeforeCommitIsCommittedByTheRestoredCommitter() throws Exception {
        cases().crashBeforeCommitIsCommittedByTheRestoredCommitter();
    }

    @Test
    void aRestoredCommitterSlowerThanTheClaimWaitIsWaitedFor() throws Exception {
        cases().aRestoredCommitterSlowerThanTheClaimWaitIsWaitedFor();
    }

    @ParameterizedTest(name = "drain = {0}")
    @ValueSource(booleans = {false, true})
    void stopWithSavepointCommitsEverythingUpToIt(
            boolean drain, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().stopWithSavepointCommitsEverythingUpToIt(drain, client, dir);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"4, 3"})
    void rescaleFromSavepointWithPreparedTransactions(
            int from, int to, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().rescaleFromSavepointWithPreparedTransactions(from, to, client, dir);
    }
}
