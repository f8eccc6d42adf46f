/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * An embedded PostgreSQL of one test's own, from {@link PostgresFixture#startNew(java.util.Map)}: same helpers
 * as the shared one, plus {@link #stop()}, {@link #crash()} and {@link #start()} on the same data directory
 * and port, so the JDBC URL stays valid across restarts and committed or prepared transactions survive them.
 * {@link #close()} stops it and deletes its data.
 */
public final class StandalonePostgres extends PostgresFixture implements AutoCloseable {

    private final EmbeddedServer server;

    StandalonePostgres(EmbeddedServer server) {
        super(Source.EMBEDDED, embeddedUrl(server.port()), "postgres", "", null);
        this.server = server;
    }

    /** Starts the server if it is not running (crash recovery if it was crashed). */
    public void start() {
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start embedded PostgreSQL in " + server.dataDirectory(), e);
        }
        serverVersion(); // asked now, so that describe() can still tell it while the server is down
    }

    /** Clean shutdown (pg_ctl stop -m fast); the data stays for {@link #start()}. */
    public void stop() {
        server.stop();
    }

    /** {@link #stop()} then {@link #start()}. */
    public void restart() {
        stop();
        start();
    }

    /**
     * Kills the postmaster and all its processes with SIGKILL, as a power loss would: no shutdown checkpoint,
     * open connections break. {@link #start()} then runs crash recovery; prepared transactions survive.
     */
    public void crash() {
        server.crash();
    }

    /** Freezes every process of the server for {@code pause} (SIGSTOP, then SIGCONT): no connection breaks. */
    public void stall(java.time.Duration pause) {
        server.stall(pause);
    }

    /** Whether the server's postmaster runs: false after {@link #crash()} until it is started again. */
    public boolean isRunning() {
        return server.isRunning();
    }

    /** The loopback port the server listens on. */
    public int port() {
        return server.port();
    }

    /** The server's data directory, which {@link #close()} deletes. */
    public Path dataDirectory() {
        return server.dataDirectory();
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public void close() {
        try {
            server.close();
        } finally {
            PostgresFixture.forget(this);
        }
    }
}
