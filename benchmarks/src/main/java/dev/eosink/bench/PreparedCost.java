/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What PostgreSQL itself costs per transaction on this machine, without Flink: the floor under every
 * exactly-once epoch. One session writes one row per transaction into a scratch table, alternating
 * between a plain transaction ({@code BEGIN; INSERT; COMMIT}) and a prepared one ({@code BEGIN; INSERT;
 * PREPARE TRANSACTION; COMMIT PREPARED}), each timed from the client, statement by statement. With
 * fsync on, {@code COMMIT} and {@code COMMIT PREPARED} each wait for a WAL flush and {@code PREPARE
 * TRANSACTION} for another: a prepared transaction pays two flushes where a plain one pays one.
 */
final class PreparedCost {

    /** Transactions of each kind in a full run; the first tenth of each is a warm-up and not counted. */
    static final int TRANSACTIONS = 400;

    /** In a smoke run, which checks that it works: a few seconds less. */
    static final int SMOKE_TRANSACTIONS = 40;

    private final int transactions;

    final List<Long> plainTx = new ArrayList<>();
    final List<Long> plainCommit = new ArrayList<>();
    final List<Long> preparedTx = new ArrayList<>();
    final List<Long> prepare = new ArrayList<>();
    final List<Long> commitPrepared = new ArrayList<>();

    private PreparedCost(int transactions) {
        this.transactions = transactions;
    }

    /** Runs {@code transactions} of each kind on {@code c}, alternating, into a scratch table it drops after. */
    static PreparedCost measure(Connection c, int transactions) throws SQLException {
        PreparedCost cost = new PreparedCost(transactions);
        c.setAutoCommit(true); // BEGIN and COMMIT are the statements timed; COMMIT PREPARED needs no open transaction
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_tx_cost");
            s.execute("CREATE TABLE bench_tx_cost (id bigint, v bigint)");
            for (int i = 0; i < transactions; i++) {
                boolean counted = i >= transactions / 10;
                long t0 = System.nanoTime();
                s.execute("BEGIN");
                s.execute("INSERT INTO bench_tx_cost VALUES (" + i + ", 0)");
                long t1 = System.nanoTime();
                s.execute("COMMIT");
                long t2 = System.nanoTime();

                long u0 = System.nanoTime();
                s.execute("BEGIN");
                s.execute("INSERT INTO bench_tx_cost VALUES (" + i + ", 1)");
                long u1 = System.nanoTime();
                s.execute("PREPARE TRANSACTION 'bench-tx-cost-" + i + "'");
                long u2 = System.nanoTime();
                s.execute("COMMIT PREPARED 'bench-tx-cost-" + i + "'");
                long u3 = System.nanoTime();
                if (counted) {
                    cost.plainTx.add((t2 - t0) / 1000);
                    cost.plainCommit.add((t2 - t1) / 1000);
                    cost.preparedTx.add((u3 - u0) / 1000);
                    cost.prepare.add((u2 - u1) / 1000);
                    cost.commitPrepared.add((u3 - u2) / 1000);
                }
            }
            s.execute("DROP TABLE bench_tx_cost");
        }
        return cost;
    }

    /** p50 of a prepared transaction minus p50 of a plain one: what two-phase commit adds per transaction. */
    double addedMs() {
        return (Report.percentile(preparedTx, 50) - Report.percentile(plainTx, 50)) / 1000.0;
    }

    String summary() {
        return String.format(
                Locale.ROOT,
                "PostgreSQL per transaction, no Flink: plain %.2f ms, prepared %.2f ms (p50)",
                Report.percentile(plainTx, 50) / 1000.0,
                Report.percentile(preparedTx, 50) / 1000.0);
    }

    void markdown(StringBuilder b, String fsync) {
        b.append("## PostgreSQL's own cost per transaction\n\n");
        b.append(String.format(
                Locale.ROOT,
                "Without Flink, on the same server (fsync=%s), one session, one row per transaction, %d of each kind "
                        + "alternating (the first %d of each not counted), timed from the client; milliseconds. "
                        + "The floor under every epoch of an exactly-once sink: a prepared transaction waits for two WAL "
                        + "flushes (PREPARE, COMMIT PREPARED) where a plain one waits for one.\n\n",
                fsync,
                transactions - transactions / 10,
                transactions / 10));
        b.append("| | p50 | p99 |\n|---|--:|--:|\n");
        row(b, "plain: BEGIN; INSERT; COMMIT", plainTx);
        row(b, "of which COMMIT", plainCommit);
        row(b, "prepared: BEGIN; INSERT; PREPARE TRANSACTION; COMMIT PREPARED", preparedTx);
        row(b, "of which PREPARE TRANSACTION", prepare);
        row(b, "of which COMMIT PREPARED", commitPrepared);
        b.append(String.format(
                Locale.ROOT,
                "\nTwo-phase commit adds %.2f ms per transaction (p50). A sink subtask pays it once per checkpoint: "
                        + "at a 100 ms interval, %.1f%% of the interval.\n\n",
                addedMs(),
                addedMs()));
    }

    private static void row(StringBuilder b, String name, List<Long> micros) {
        b.append(String.format(
                Locale.ROOT,
                "| %s | %.2f | %.2f |\n",
                name,
                Report.percentile(micros, 50) / 1000.0,
                Report.percentile(micros, 99) / 1000.0));
    }
}
