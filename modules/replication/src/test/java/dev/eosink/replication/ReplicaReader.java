/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.testing.PostgresFixture;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A reader of a replica of {@link SourceBank}'s tables while a job writes it: it polls, each time in one snapshot,
 * and checks the source's invariants ({@link SourceBank#violations}) whenever the number of transfers changed (a
 * commit). Start it, run the job, {@link #stop()} it, then read its verdict.
 */
final class ReplicaReader implements Runnable {

    private final PostgresFixture db;
    private final String schema;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<String> inconsistent = new ArrayList<>();
    private final Thread thread = new Thread(this, "replica reader");
    private volatile Exception failure;
    private int observed;
    private long lastTransfers = -1;

    ReplicaReader(PostgresFixture db, String schema) {
        this.db = db;
        this.schema = schema;
    }

    ReplicaReader start() {
        thread.start();
        return this;
    }

    /** Takes one more look after the job's end, then stops. */
    void stop() throws InterruptedException {
        stop.set(true);
        thread.join();
    }

    Exception failure() {
        return failure;
    }

    List<String> inconsistent() {
        return inconsistent;
    }

    int observed() {
        return observed;
    }

    @Override
    public void run() {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            boolean last = false;
            while (!last) {
                last = stop.get();
                try (Statement s = c.createStatement()) {
                    long m = SourceBank.one(s, "SELECT count(*) FROM " + schema + ".transfers");
                    if (m != lastTransfers) {
                        lastTransfers = m;
                        observed++;
                        inconsistent.addAll(SourceBank.violations(s, schema));
                    }
                }
                c.commit();
                Thread.sleep(5);
            }
        } catch (Exception e) {
            failure = e;
        }
    }
}
