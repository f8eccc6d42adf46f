/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.hardcases.ChangelogRescaleCases;
import dev.eosink.testing.hardcases.HardCases;

/** The protocol's hard cases ({@link HardCases}) against PostgreSQL's own two-phase commit. */
class PostgresHardCasesITCase extends HardCases implements ChangelogRescaleCases {

    PostgresHardCasesITCase() {
        super(new PostgresBackend());
    }
}
