/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.JobUnchainedHardCases;

/**
 * The hard cases where chaining disabled by the job can matter ({@link JobUnchainedHardCases})
 * through XA against PostgreSQL.
 */
class XaPostgresHardCasesJobUnchainedITCase extends JobUnchainedHardCases {

    XaPostgresHardCasesJobUnchainedITCase() {
        super(new XaPostgresBackend());
    }
}
