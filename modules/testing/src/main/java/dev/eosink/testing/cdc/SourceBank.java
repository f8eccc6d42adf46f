/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.cdc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Source transactions over four related tables, run on the source database as real SQL transactions, with
 * invariants a reader of any replica can check at any commit: the balances always sum to {@link #TOTAL}, every
 * order's lines add up to its total, and as many orders exist as the transfers so far leave. Transaction i moves
 * money between two accounts and records the transfer; for even i it places an order with 1-3 lines; for
 * i = 10k + 4 (k >= 1) it deletes order i - 10 and its lines; for odd i with i % 7 == 3 it changes the first line
 * of order i - 1 and its total.
 */
public final class SourceBank {

    /** How many accounts the bank opens. */
    public static final int ACCOUNTS = 20;
    /** The sum of every balance, at every commit. */
    public static final long TOTAL = ACCOUNTS * 1_000L;
    /** The bank's tables, parents before children (the foreign keys' order). */
    public static final List<String> TABLES = List.of("accounts", "transfers", "orders", "lines");

    private SourceBank() {}

    /** The tables in {@code schema}: the same on the source and the replica (foreign keys included). */
    public static List<String> ddl(String schema) {
        return List.of(
                "CREATE SCHEMA IF NOT EXISTS " + schema,
                "CREATE TABLE " + schema
                        + ".accounts (id bigint PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) NOT NULL)",
                "CREATE TABLE " + schema + ".transfers (id bigint PRIMARY KEY, src bigint NOT NULL REFERENCES " + schema
                        + ".accounts, dst bigint NOT NULL REFERENCES " + schema
                        + ".accounts, amount numeric(12,2) NOT NULL, "
                        + "at timestamptz NOT NULL)",
                "CREATE TABLE " + schema
                        + ".orders (id bigint PRIMARY KEY, total numeric(12,2) NOT NULL, placed date NOT NULL, "
                        + "ref uuid NOT NULL)",
                "CREATE TABLE " + schema + ".lines (order_id bigint NOT NULL REFERENCES " + schema
                        + ".orders, line_no int NOT NULL, "
                        + "amount numeric(12,2) NOT NULL, note jsonb, PRIMARY KEY (order_id, line_no))");
    }

    /** Opens the {@link #ACCOUNTS} accounts in {@code public}, 1000 each; commits only if {@code c} autocommits. */
    public static void openAccounts(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO public.accounts SELECT g, 'owner ' || g, 1000 FROM generate_series(0, "
                    + (ACCOUNTS - 1) + ") g");
        }
    }

    /**
     * A schema change mid-run: adds column {@code channel} (text) to the source's orders, in a transaction of its own
     * (autocommit off), after which {@link #transaction(Connection, long, boolean)} with {@code channel} fills it.
     */
    public static void addChannel(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("ALTER TABLE public.orders ADD COLUMN channel text");
        }
        c.commit();
    }

    /** Transaction {@code i}'s order's channel, once the orders have the column. */
    static String channel(long i) {
        return i % 3 == 0 ? "store" : "web";
    }

    /** Runs transaction {@code i} on {@code c} (autocommit off) and commits it. */
    public static void transaction(Connection c, long i) throws SQLException {
        transaction(c, i, false);
    }

    /**
     * Runs transaction {@code i} on {@code c} (autocommit off) and commits it; with {@code channel}, its order gets a
     * channel ({@link #addChannel} ran before).
     */
    public static void transaction(Connection c, long i, boolean channel) throws SQLException {
        long from = from(i);
        long to = to(i);
        String amount = java.math.BigDecimal.valueOf(amountCents(i), 2).toPlainString();
        try (Statement s = c.createStatement()) {
            s.execute("UPDATE public.accounts SET balance = balance - " + amount + " WHERE id = " + from);
            s.execute("UPDATE public.accounts SET balance = balance + " + amount + " WHERE id = " + to);
            s.execute("INSERT INTO public.transfers VALUES (" + i + ", " + from + ", " + to + ", " + amount
                    + ", timestamptz '2026-12-07 10:00:00.123456+01' + interval '" + i + " seconds')");
            if (i % 2 == 0) {
                long lines = 1 + i % 3;
                s.execute("INSERT INTO public.orders VALUES (" + i + ", 0, date '2026-01-01' + " + (i % 300) + ", '"
                        + new java.util.UUID(i, 42) + "'" + (channel ? ", '" + channel(i) + "'" : "") + ")");
                for (long k = 0; k < lines; k++) {
                    s.execute("INSERT INTO public.lines VALUES (" + i + ", " + k + ", " + (10 + k + i % 5) + ".25, "
                            + (k == 0 ? "'{\"gift\": " + (i % 4 == 0) + "}'" : "NULL") + ")");
                }
                s.execute("UPDATE public.orders SET total = (SELECT sum(amount) FROM public.lines WHERE order_id = " + i
                        + ") WHERE id = " + i);
            }
            if (i % 10 == 4 && i >= 14) {
                s.execute("DELETE FROM public.lines WHERE order_id = " + (i - 10));
                s.execute("DELETE FROM public.orders WHERE id = " + (i - 10));
            }
            if (i % 2 == 1 && i % 7 == 3) {
                s.execute(
                        "UPDATE public.lines SET amount = amount + 5 WHERE order_id = " + (i - 1) + " AND line_no = 0");
                s.execute("UPDATE public.orders SET total = total + 5 WHERE id = " + (i - 1));
            }
        }
        c.commit();
    }

    static long from(long i) {
        return i % ACCOUNTS;
    }

    static long to(long i) {
        return (from(i) + 1 + (i / ACCOUNTS) % (ACCOUNTS - 1)) % ACCOUNTS;
    }

    /** Transaction i's amount, in cents. */
    static long amountCents(long i) {
        return (1 + i % 3) * 100 + i % 100;
    }

    /** Account {@code a}'s balance, in cents, once transactions 0..m-1 ran. */
    static long balanceCents(long a, long m) {
        long cents = 100_000;
        for (long i = 0; i < m; i++) {
            cents += to(i) == a ? amountCents(i) : 0;
            cents -= from(i) == a ? amountCents(i) : 0;
        }
        return cents;
    }

    /** Each order there is once transactions 0..m-1 ran, with its total in cents. */
    static Map<Long, Long> orderTotalsCents(long m) {
        Map<Long, Long> totals = new TreeMap<>();
        for (long o = 0; o < m; o += 2) {
            boolean deleted = o % 10 == 4 && o >= 4 && o + 10 < m;
            if (deleted) {
                continue;
            }
            long cents = 0;
            for (long k = 0; k < 1 + o % 3; k++) {
                cents += (10 + k + o % 5) * 100 + 25;
            }
            boolean changed = (o + 1) % 7 == 3 && o + 1 < m; // odd i = o + 1 with i % 7 == 3
            totals.put(o, cents + (changed ? 500 : 0));
        }
        return totals;
    }

    /** The orders there are once transactions 0..m-1 ran: one per even i, less those deleted. */
    public static long orders(long m) {
        long deleted = m <= 14 ? 0 : (m - 5) / 10;
        return (m + 1) / 2 - deleted;
    }

    /** Every table of {@code schema}, as text: per table, each row by its primary key's text. */
    public static Map<String, Map<String, String>> read(Connection c, String schema) throws SQLException {
        Map<String, Map<String, String>> tables = new TreeMap<>();
        for (String table : TABLES) {
            Map<String, String> rows = new TreeMap<>();
            String key = table.equals("lines") ? "order_id || '/' || line_no" : "id::text";
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT " + key + ", t::text FROM " + schema + "." + table + " t")) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getString(2));
                }
            }
            tables.put(table, rows);
        }
        return tables;
    }

    /**
     * What is wrong with the replica as one snapshot shows it, against the invariants; empty when nothing is. The
     * snapshot's number of transfers is its {@code m}.
     */
    public static List<String> violations(Statement s, String schema) throws SQLException {
        List<String> wrong = new java.util.ArrayList<>();
        long m = one(s, "SELECT count(*) FROM " + schema + ".transfers");
        String total = text(s, "SELECT coalesce(sum(balance), 0) FROM " + schema + ".accounts");
        if (m > 0 && new java.math.BigDecimal(total).compareTo(java.math.BigDecimal.valueOf(TOTAL)) != 0) {
            wrong.add("after " + m + " transfers the balances sum to " + total + ", not " + TOTAL);
        }
        long orders = one(s, "SELECT count(*) FROM " + schema + ".orders");
        if (m > 0 && orders != orders(m)) {
            wrong.add("after " + m + " transfers " + orders + " orders, not " + orders(m));
        }
        long unbalanced = one(
                s,
                "SELECT count(*) FROM " + schema + ".orders o WHERE total <> (SELECT coalesce(sum(amount), "
                        + "0) FROM " + schema + ".lines l WHERE l.order_id = o.id)");
        if (unbalanced != 0) {
            wrong.add("after " + m + " transfers " + unbalanced + " orders whose lines do not add up to their total");
        }
        if (m > 0) {
            exactly(s, schema, m, wrong);
        }
        return wrong;
    }

    /** The accounts and orders exactly as the source had them after its transactions 0..m-1, and no other transfer. */
    private static void exactly(Statement s, String schema, long m, List<String> wrong) throws SQLException {
        if (one(s, "SELECT max(id) FROM " + schema + ".transfers") != m - 1) {
            wrong.add(m + " transfers, but not transfers 0.." + (m - 1));
        }
        try (ResultSet rs = s.executeQuery("SELECT id, (balance * 100)::bigint FROM " + schema + ".accounts")) {
            while (rs.next()) {
                long want = balanceCents(rs.getLong(1), m);
                if (rs.getLong(2) != want) {
                    wrong.add("after " + m + " transfers account " + rs.getLong(1) + " holds " + rs.getLong(2)
                            + " cents, not " + want);
                }
            }
        }
        Map<Long, Long> orders = new TreeMap<>();
        try (ResultSet rs = s.executeQuery("SELECT id, (total * 100)::bigint FROM " + schema + ".orders")) {
            while (rs.next()) {
                orders.put(rs.getLong(1), rs.getLong(2));
            }
        }
        Map<Long, Long> want = orderTotalsCents(m);
        if (!orders.equals(want)) {
            wrong.add("after " + m + " transfers the orders' totals (cents) are not the source's: "
                    + difference(orders, want));
        }
    }

    private static String difference(Map<Long, Long> got, Map<Long, Long> want) {
        List<String> d = new java.util.ArrayList<>();
        for (Long id : new java.util.TreeSet<>(java.util.Set.copyOf(union(got, want)))) {
            if (!java.util.Objects.equals(got.get(id), want.get(id))) {
                d.add("order " + id + ": " + got.get(id) + " instead of " + want.get(id));
            }
            if (d.size() == 5) {
                break;
            }
        }
        return String.join("; ", d);
    }

    private static List<Long> union(Map<Long, Long> a, Map<Long, Long> b) {
        List<Long> ids = new java.util.ArrayList<>(a.keySet());
        ids.addAll(b.keySet());
        return ids;
    }

    /**
     * The one value of the one row {@code sql} returns, as a {@code long}. Throws {@link NumberFormatException} for a
     * value that is not a number, {@link SQLException} for a query with no row.
     */
    public static long one(Statement s, String sql) throws SQLException {
        return Long.parseLong(text(s, sql));
    }

    private static String text(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
