/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.testing.MariaDbFixture;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A MariaDB server of one test class's own, for the tests that restart it (the shared server must not go
 * away under other classes): started by whichever test needs it first, stopped after the class. Register
 * it as a static {@code @RegisterExtension} field.
 */
final class OwnMariaDb implements AfterAllCallback {

    private MariaDbFixture server;

    synchronized MariaDbFixture get() {
        if (server == null) {
            server = MariaDbFixture.startNew();
        }
        return server;
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
