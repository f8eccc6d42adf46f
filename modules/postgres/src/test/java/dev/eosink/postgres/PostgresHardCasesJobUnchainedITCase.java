/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.hardcases.JobUnchainedHardCases;

/**
 * The hard cases where chaining disabled by the job can matter ({@link JobUnchainedHardCases})
 * against PostgreSQL's own two-phase commit.
 */
class PostgresHardCasesJobUnchainedITCase extends JobUnchainedHardCases {

    PostgresHardCasesJobUnchainedITCase() {
        super(new PostgresBackend());
    }
}
