/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.testing.PostgresFixture;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A reader of {@link BankAndOrders}' tables while a job writes them: it polls, each time in one snapshot, and
 * checks what it sees whenever the number of transfers changed (a commit): the balances after exactly that
 * many transactions, as many orders as they leave, and every order's lines adding up to its total. Start it,
 * run the job, {@link #stop()} it, then read its verdict.
 */
final class ConsistencyReader implements Runnable {

    private final PostgresFixture db;
    private final String prefix;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<String> inconsistent = new ArrayList<>();
    private final Thread thread = new Thread(this, "consistency reader");
    private volatile Exception failure;
    private int observed;
    private long lastTransfers = -1;

    ConsistencyReader(PostgresFixture db, String prefix) {
        this.db = db;
        this.prefix = prefix;
    }

    ConsistencyReader start() {
        thread.start();
        return this;
    }

    /** Takes one more look after the job's end, then stops. */
    void stop() throws InterruptedException {
        stop.set(true);
        thread.join();
    }

    /** The reader's own failure (a lost connection), if any: then its verdict counts for nothing. */
    Exception failure() {
        return failure;
    }

    /** The observed commits that showed no state of the source, each saying what was wrong. */
    List<String> inconsistent() {
        return inconsistent;
    }

    /** How many commits it observed (changes of the number of transfers). */
    int observed() {
        return observed;
    }

    /** The number of transfers it saw last. */
    long lastTransfers() {
        return lastTransfers;
    }

    @Override
    public void run() {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            boolean last = false;
            while (!last) {
                last = stop.get();
                look(c);
                c.commit();
                Thread.sleep(5);
            }
        } catch (Exception e) {
            failure = e;
        }
    }

    private void look(Connection c) throws Exception {
        try (Statement s = c.createStatement()) {
            long m = one(s, "SELECT count(*) FROM " + prefix + "_transfers");
            if (m == lastTransfers) {
                return;
            }
            lastTransfers = m;
            observed++;
            List<String> wrong = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT id, balance FROM " + prefix + "_accounts ORDER BY id")) {
                while (rs.next()) {
                    long want = BankAndOrders.balance(rs.getLong(1), m);
                    if (rs.getLong(2) != want) {
                        wrong.add("account " + rs.getLong(1) + " has " + rs.getLong(2) + ", not " + want);
                    }
                }
            }
            long orders = one(s, "SELECT count(*) FROM " + prefix + "_orders");
            if (orders != BankAndOrders.orders(m)) {
                wrong.add(orders + " orders, not " + BankAndOrders.orders(m));
            }
            long unbalanced = one(
                    s,
                    "SELECT count(*) FROM " + prefix + "_orders o WHERE total <> (SELECT "
                            + "coalesce(sum(amount), 0) FROM " + prefix + "_lines l WHERE l.order_id = o.id)");
            if (unbalanced != 0) {
                wrong.add(unbalanced + " orders whose lines do not add up to their total");
            }
            if (!wrong.isEmpty()) {
                inconsistent.add("after " + m + " transfers: " + wrong);
            }
        }
    }

    private static long one(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
