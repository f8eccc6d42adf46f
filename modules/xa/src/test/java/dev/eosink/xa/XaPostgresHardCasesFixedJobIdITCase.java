/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.JdbcFixedJobIdHardCases;

/**
 * The hard cases where a fixed job id can matter ({@link JdbcFixedJobIdHardCases})
 * through XA against PostgreSQL.
 */
class XaPostgresHardCasesFixedJobIdITCase extends JdbcFixedJobIdHardCases {

    XaPostgresHardCasesFixedJobIdITCase() {
        super(new XaPostgresBackend());
    }
}
