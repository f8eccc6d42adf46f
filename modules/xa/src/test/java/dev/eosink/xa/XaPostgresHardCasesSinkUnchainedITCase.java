/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.JdbcSinkUnchainedHardCases;

/**
 * The hard cases where chaining disabled by the sink can matter ({@link JdbcSinkUnchainedHardCases})
 * through XA against PostgreSQL.
 */
class XaPostgresHardCasesSinkUnchainedITCase extends JdbcSinkUnchainedHardCases {

    XaPostgresHardCasesSinkUnchainedITCase() {
        super(new XaPostgresBackend());
    }
}
