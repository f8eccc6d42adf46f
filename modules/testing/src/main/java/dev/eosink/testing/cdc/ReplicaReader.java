/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.cdc;

import dev.eosink.testing.PostgresFixture;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A reader of a replica of {@link SourceBank}'s tables while a job writes it: it polls, each time in one snapshot,
 * and checks the source's invariants ({@link SourceBank#violations}) whenever the number of transfers changed (a
 * commit). Start it, run the job, {@link #stop()} it, then read its verdict.
 */
public final class ReplicaReader implements Runnable {

    private final PostgresFixture db;
    private final String schema;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<String> inconsistent = new ArrayList<>();
    private final Thread thread = new Thread(this, "replica reader");
    private volatile Exception failure;
    private int observed;
    private int inconsistentCommits;
    private long lastTransfers = -1;
    private int reconnects;

    /** A reader of the replica in {@code schema} of {@code db}; {@link #start()} starts it. */
    public ReplicaReader(PostgresFixture db, String schema) {
        this.db = db;
        this.schema = schema;
    }

    /** Starts polling on a thread of its own; returns this reader. */
    public ReplicaReader start() {
        thread.start();
        return this;
    }

    /** Takes one more look after the job's end, then stops. */
    public void stop() throws InterruptedException {
        stop.set(true);
        thread.join();
    }

    /**
     * What stopped the reader before {@link #stop()} asked it to (a failed look, or the database down for good); null
     * if nothing did. A test fails on it.
     */
    public Exception failure() {
        return failure;
    }

    /**
     * The invariants the observed commits broke, one line each; empty for a consistent replica. Read it after {@link
     * #stop()}.
     */
    public List<String> inconsistent() {
        return inconsistent;
    }

    /** How many commits the reader saw (changes of the number of transfers): a verdict on none proves nothing. */
    public int observed() {
        return observed;
    }

    /**
     * How many of the {@link #observed()} commits broke an invariant: a commit may break several, each one line of
     * {@link #inconsistent()}.
     */
    public int inconsistentCommits() {
        return inconsistentCommits;
    }

    /** How often the reader lost its connection (the database restarted) and connected again. */
    public int reconnects() {
        return reconnects;
    }

    @Override
    public void run() {
        boolean last = false;
        while (true) {
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                while (true) {
                    look(c);
                    c.commit();
                    if (last) {
                        return;
                    }
                    last = stop.get(); // one more look after the job's end
                    Thread.sleep(5);
                }
            } catch (SQLException e) {
                // The database is down (a crash the run made): look again once it is back. A check never
                // rests on a failed look, so nothing is counted for it.
                reconnects++;
                if (stop.get() && reconnects > 100) {
                    failure = e;
                    return;
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException interrupted) {
                    failure = interrupted;
                    return;
                }
            } catch (Exception e) {
                failure = e;
                return;
            }
        }
    }

    private void look(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            long m = SourceBank.one(s, "SELECT count(*) FROM " + schema + ".transfers");
            if (m != lastTransfers) {
                List<String> wrong = SourceBank.violations(s, schema); // first: a look that fails counts nothing
                lastTransfers = m;
                observed++;
                inconsistentCommits += wrong.isEmpty() ? 0 : 1;
                inconsistent.addAll(wrong);
            }
        }
    }
}
