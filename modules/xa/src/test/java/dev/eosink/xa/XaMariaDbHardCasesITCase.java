/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.ChangelogRescaleCases;
import dev.eosink.testing.hardcases.HardCases;

/**
 * The protocol's hard cases ({@link HardCases}) through XA against a real MariaDB (its own mariadbd,
 * or EOSINK_TEST_MARIADB_URL). MariaDB shows the sink's sessions by user only, so the cases that end
 * one role's sessions alone are not generated here ({@code CUTS_SESSIONS_BY_ROLE}).
 */
class XaMariaDbHardCasesITCase extends HardCases implements ChangelogRescaleCases {

    XaMariaDbHardCasesITCase() {
        super(new XaMariaDbBackend());
    }
}
