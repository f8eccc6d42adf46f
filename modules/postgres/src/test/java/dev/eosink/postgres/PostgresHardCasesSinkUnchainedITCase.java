/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.hardcases.JdbcSinkUnchainedHardCases;

/**
 * The hard cases where chaining disabled by the sink can matter ({@link JdbcSinkUnchainedHardCases})
 * against PostgreSQL's own two-phase commit.
 */
class PostgresHardCasesSinkUnchainedITCase extends JdbcSinkUnchainedHardCases {

    PostgresHardCasesSinkUnchainedITCase() {
        super(new PostgresBackend());
    }
}
