/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.JobUnchainedHardCases;

/**
 * The hard cases where chaining disabled by the job can matter ({@link JobUnchainedHardCases})
 * through XA against a real MariaDB.
 */
class XaMariaDbHardCasesJobUnchainedITCase extends JobUnchainedHardCases {

    XaMariaDbHardCasesJobUnchainedITCase() {
        super(new XaMariaDbBackend());
    }
}
