/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.hardcases.JdbcFixedJobIdHardCases;

/**
 * The hard cases where a fixed job id can matter ({@link JdbcFixedJobIdHardCases})
 * against PostgreSQL's own two-phase commit.
 */
class PostgresHardCasesFixedJobIdITCase extends JdbcFixedJobIdHardCases {

    PostgresHardCasesFixedJobIdITCase() {
        super(new PostgresBackend());
    }
}
