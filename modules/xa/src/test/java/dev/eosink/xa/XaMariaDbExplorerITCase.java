/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.explore.ExplorerSuite;

import java.time.Duration;

/** The explorer ({@link ExplorerSuite}) against XA on MariaDB. */
class XaMariaDbExplorerITCase extends ExplorerSuite {

    XaMariaDbExplorerITCase() {
        super(new XaMariaDbBackend(), Duration.ofSeconds(60));
    }
}
