/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;

import org.junit.jupiter.api.AfterAll;

import java.util.Map;

/**
 * {@link NetworkFaultsITCase}'s faults with every session of the sink encrypted: a server of its own
 * with {@code ssl=on} (the shared one has no TLS), and {@code sslmode=require}, so that a server
 * without TLS fails the tests instead of quietly testing plain TCP. What differs over TLS is how a
 * stalled write ends: closing a TLS socket waits for the lock that the blocked writer holds, unless
 * the watchdog readies the socket first ({@code IoWatchdogITCase} pins that part alone).
 */
class NetworkFaultsOverTlsITCase extends NetworkFaultsITCase {

    private static StandalonePostgres tlsServer;

    /** Called while each test instance is constructed: the server starts with the first. */
    @Override
    protected PostgresFixture server() {
        synchronized (NetworkFaultsOverTlsITCase.class) {
            if (tlsServer == null) {
                tlsServer = PostgresFixture.startNew(Map.of("ssl", "on"));
            }
            return tlsServer;
        }
    }

    @AfterAll
    static void stopTlsServer() {
        synchronized (NetworkFaultsOverTlsITCase.class) {
            if (tlsServer != null) {
                tlsServer.close();
                tlsServer = null;
            }
        }
    }

    @Override
    protected PostgresSinkBuilder<Long> sinkBuilder(String sinkId, String table) {
        return super.sinkBuilder(sinkId, table).property("sslmode", "require");
    }

    /**
     * Not over TLS: the proxy finds the COMMIT PREPARED to cut after by its text, which TLS hides from
     * it; a cut as such is no different over TLS ({@code connectionsCutMidEpochFailTheTasksAndReplay}
     * runs here). Overridden without {@code @Test}, it is no test of this class.
     */
    @Override
    void connectionCutMidCommitPreparedIsProvedByItsMarker() {}

    /**
     * Not over TLS, for the same reason: the stall must catch the COMMIT PREPARED itself, which the
     * proxy finds by its text. A stall armed at an earlier moment catches whatever the committer sends
     * first, on a busy machine the pool's check of its idle connection, and the commit then never meets
     * the stall. A stalled call over TLS ends as over plain TCP once the watchdog readied its socket,
     * which {@code stalledWriteIsAbortedAfterTheNetworkTimeout} (here) and {@code IoWatchdogITCase} show.
     * Overridden without {@code @Test}, it is no test of this class.
     */
    @Override
    void stalledCommitIsRetriedUntilTheNetworkComesBack() {}
}
