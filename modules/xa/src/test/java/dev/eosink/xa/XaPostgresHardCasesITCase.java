/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.HardCases;

/** The protocol's hard cases ({@link HardCases}) through XA against PostgreSQL (pgjdbc's PGXADataSource). */
class XaPostgresHardCasesITCase extends HardCases {

    XaPostgresHardCasesITCase() {
        super(new XaPostgresBackend());
    }
}
