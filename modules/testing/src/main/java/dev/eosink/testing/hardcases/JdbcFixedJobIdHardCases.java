/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * {@link FixedJobIdHardCases} on a JDBC database, with the JDBC case where a fixed job id can matter: a
 * savepoint restored after a long downtime, whose transactions (another submission's, under the same job
 * id) the restored committers commit while the new writers judge them. The other JDBC cases are a single
 * job each, but one: an orphan of another line of history holding the replay's locks ({@code
 * anOrphanOfAnotherLineOfHistory...}), whose judgement under a fixed job id is the resource-neutral
 * {@code restoreASavepointAfterARunFromAnOlderOneDied} of this suite; the locks it adds are the same
 * whatever the job id.
 */
public abstract class JdbcFixedJobIdHardCases extends FixedJobIdHardCases {

    /** The fixed-job-id cases on the JDBC database of {@code backend}. */
    protected JdbcFixedJobIdHardCases(HardCaseBackend backend) {
        super(backend);
    }

    @Test
    void markersOfTheCommitsAtRestoreOutliveTheRetentionUntilACheckpointOfTheRunCompletes(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        new JdbcCases().markersOfTheCommitsAtRestoreOutliveTheRetentionUntilACheckpointOfTheRunCompletes(client, dir);
    }
}
