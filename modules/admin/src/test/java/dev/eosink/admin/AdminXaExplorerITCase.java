/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.testing.explore.ExplorerSuite;
import dev.eosink.xa.XaMariaDbBackend;

import java.time.Duration;

/**
 * The explorer on XA on MariaDB with the operator's tool as one more move ({@link AdminExplorerITCase} says
 * how): {@code eosink-admin resolve} finishes a dead job's XA branches through {@code XA RECOVER}, {@code XA
 * COMMIT} and {@code XA ROLLBACK}, under the same ownership guard the sink takes.
 */
class AdminXaExplorerITCase extends ExplorerSuite {

    AdminXaExplorerITCase() {
        super(new XaMariaDbBackend(), Duration.ofSeconds(45), AdminExplorerITCase::resolver);
    }
}
