/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.ChangelogRescaleCases;
import dev.eosink.testing.hardcases.HardCases;

/**
 * The hard cases on MariaDB through MySQL Connector/J ({@code jdbc:mysql:} URLs): the same server as {@link
 * XaMariaDbHardCasesITCase}, the MySQL driver's XA data source.
 */
class XaMySqlDriverHardCasesITCase extends HardCases implements ChangelogRescaleCases {

    XaMySqlDriverHardCasesITCase() {
        super(XaMariaDbBackend.throughMySqlConnectorJ());
    }
}
