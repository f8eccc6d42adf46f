/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.testing.PostgresFixture;

/**
 * The embedded PostgreSQL of local demo runs: the same fixture the tests use, stopped when the JVM
 * exits. Kept in its own class so that the cluster jar (which leaves the fixture out) never loads it.
 */
final class EmbeddedDatabase {

    private EmbeddedDatabase() {}

    /** Starts (once) and returns {url, user, password}. */
    static String[] start() {
        // The demo promises an embedded server; do not probe for Docker (and log about it) first.
        if (System.getProperty("EOSINK_TEST_POSTGRES") == null && System.getenv("EOSINK_TEST_POSTGRES") == null) {
            System.setProperty("EOSINK_TEST_POSTGRES", "embedded");
        }
        PostgresFixture pg = PostgresFixture.get();
        System.out.println("PostgreSQL: " + pg.describe());
        return new String[] {pg.jdbcUrl(), pg.user(), pg.password()};
    }
}
