/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.junit.jupiter.api.Test;

/**
 * {@link SinkUnchainedHardCases} on a JDBC database, with the JDBC case where chaining can matter: a
 * committer's connection lost with a commit on its way, retried by the committer in its own task while
 * the writer goes on. The other JDBC cases fail a writer's connection or the server, which fails the
 * writer's task whatever it is chained to.
 */
public abstract class JdbcSinkUnchainedHardCases extends SinkUnchainedHardCases {

    /** The cases with the sink unchained on the JDBC database of {@code backend}. */
    protected JdbcSinkUnchainedHardCases(HardCaseBackend backend) {
        super(backend);
    }

    @Test
    void commitOnALostCommitterConnectionIsRetriedWithoutAFailover() throws Exception {
        new JdbcCases().commitOnALostCommitterConnectionIsRetriedWithoutAFailover();
    }
}
