/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The resource-neutral hard cases of the exactly-once protocol, written once and run against every
 * transactional resource the core's SPI runs on: a database ({@link HardCases} adds the cases that need
 * JDBC) or anything else (a directory of files). A test class extends this class once per backend,
 * giving the backend, and nothing else.
 *
 * <p>The cases are grouped by what fails or what starts: {@link FailoverCases} (a task fails around
 * the two-phase commit, between a checkpoint and its commit, a checkpoint is declined or expires),
 * {@link StartupCases} (what a starting writer finds: leftovers, a second live job), {@link
 * SavepointCases} (savepoints, older savepoints, stops and cancels) and {@link RescaleCases} (another
 * parallelism, names across runs). Each case states in its Javadoc what fails, what the sink must do
 * and what is checked.
 *
 * <p>Every test gets a fresh target and sink id ({@link HardCaseSuite}) and runs its jobs along the
 * plain path ({@link RunDimension#PLAIN}) on one MiniCluster (one TaskManager, four slots) per class,
 * against the real resource of the backend. Every exactly-once case ends with exact counts asked of that
 * resource: records = expected, zero duplicates, zero missing, zero prepared transactions of the sink
 * left ({@link #assertExactlyOnce}). The cases where chaining or the job id can matter run again along
 * those paths in {@link UnchainedHardCases} and {@link FixedJobIdHardCases}.
 *
 * <p>Every case here runs on every backend; none is skipped or left out for one. The rescale cases of a
 * changelog ({@link ChangelogRescaleCases}) need a sink with upserts, so only the suites of backends that
 * have one implement them, besides these.
 */
public abstract class ResourceHardCases extends HardCaseSuite
        implements FailoverCases, StartupCases, SavepointCases, RescaleCases {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(SLOTS)
                    .build());

    /** Every resource-neutral case on {@code backend}. */
    protected ResourceHardCases(ResourceBackend backend) {
        super(backend);
    }
}
