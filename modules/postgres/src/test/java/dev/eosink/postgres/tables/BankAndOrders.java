/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableChanges;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * Source transactions over four related tables, each record (an index) one whole transaction, with an
 * invariant a reader can check at any commit: money moves between {@value #ACCOUNTS} accounts (their balances
 * always sum to the same total, and after m transfers are exactly {@link #balance}'s), and every order's lines
 * add up to its total. Foreign keys: transfers and lines refer to their parents NOT DEFERRABLE; an order
 * refers to the transfer of its transaction DEFERRABLE, and is declared first, so only deferral lets it in.
 * Transaction i: a transfer; for even i, a new order with 1-3 lines; for i = 10k + 4 (k >= 1), the delete
 * of order i - 10 and its lines; for odd i with i % 7 == 3, a change of order i - 1's first line and total.
 */
final class BankAndOrders {

    static final int ACCOUNTS = 20;
    static final long OPENING_BALANCE = 1_000;

    private BankAndOrders() {}

    static long from(long i) {
        return i % ACCOUNTS;
    }

    static long to(long i) {
        long to = (i + 1 + (i / ACCOUNTS) % (ACCOUNTS - 1)) % ACCOUNTS;
        return to == from(i) ? (to + 1) % ACCOUNTS : to;
    }

    static long amount(long i) {
        return 1 + i % 3;
    }

    /** Account {@code a}'s balance once transactions 0..m-1 are applied. */
    static long balance(long a, long m) {
        long b = OPENING_BALANCE;
        for (long j = 0; j < m; j++) {
            if (from(j) == a) {
                b -= amount(j);
            }
            if (to(j) == a) {
                b += amount(j);
            }
        }
        return b;
    }

    /** The orders there are once transactions 0..m-1 are applied: one per even i, less those deleted. */
    static long orders(long m) {
        long deleted = m <= 14 ? 0 : (m - 5) / 10; // i = 14, 24, ... below m
        return (m + 1) / 2 - deleted;
    }

    /** The accounts as they are before the first transaction, as the tables model reads rows. */
    static Map<String, List<String>> opening(String prefix) {
        return Map.of(
                prefix + "_accounts",
                LongStream.range(0, ACCOUNTS)
                        .mapToObj(a -> a + "," + OPENING_BALANCE)
                        .collect(Collectors.toList()));
    }

    static long lineAmount(long order, long line) {
        return 10 + line + order % 5;
    }

    static long lines(long order) {
        return 1 + order % 3;
    }

    /** The tables, declared children first: only the foreign keys can put them in order. */
    static RoutedTables<Long> tables(String prefix) {
        return RoutedTables.<Long>route((i, out) -> route(prefix, i, out))
                .table(RoutedTable.of(
                        null,
                        prefix + "_lines",
                        List.of("order_id", "line_no", "amount"),
                        List.of("order_id", "line_no")))
                .table(RoutedTable.of(null, prefix + "_orders", List.of("id", "total", "transfer_id"), List.of("id")))
                .table(RoutedTable.of(
                        null, prefix + "_transfers", List.of("id", "src", "dst", "amount"), List.of("id")))
                .table(RoutedTable.of(null, prefix + "_accounts", List.of("id", "balance"), List.of("id")))
                .build();
    }

    static List<String> ddl(String prefix) {
        return List.of(
                "CREATE TABLE " + prefix + "_accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)",
                "INSERT INTO " + prefix + "_accounts SELECT g, " + OPENING_BALANCE + " FROM generate_series(0, "
                        + (ACCOUNTS - 1) + ") g",
                "CREATE TABLE " + prefix + "_transfers (id bigint PRIMARY KEY, src bigint NOT NULL REFERENCES " + prefix
                        + "_accounts, dst bigint NOT NULL REFERENCES " + prefix + "_accounts, amount bigint NOT NULL)",
                "CREATE TABLE " + prefix + "_orders (id bigint PRIMARY KEY, total bigint NOT NULL, transfer_id bigint "
                        + "REFERENCES " + prefix + "_transfers DEFERRABLE INITIALLY IMMEDIATE)",
                "CREATE TABLE " + prefix + "_lines (order_id bigint NOT NULL REFERENCES " + prefix + "_orders, "
                        + "line_no int NOT NULL, amount bigint NOT NULL, PRIMARY KEY (order_id, line_no))");
    }

    static void route(String prefix, long i, TableChanges out) {
        long from = from(i);
        long to = to(i);
        out.upsert(prefix + "_accounts", from, balance(from, i + 1));
        out.upsert(prefix + "_accounts", to, balance(to, i + 1));
        out.upsert(prefix + "_transfers", i, from, to, amount(i));
        if (i % 2 == 0) {
            long total = 0;
            for (long k = 0; k < lines(i); k++) {
                total += lineAmount(i, k);
            }
            out.upsert(prefix + "_orders", i, total, i);
            for (long k = 0; k < lines(i); k++) {
                out.upsert(prefix + "_lines", i, (int) k, lineAmount(i, k));
            }
        }
        if (i % 10 == 4 && i >= 14) {
            long order = i - 10;
            for (long k = 0; k < lines(order); k++) {
                out.delete(prefix + "_lines", order, (int) k);
            }
            out.delete(prefix + "_orders", order);
        }
        if (i % 2 == 1 && i % 7 == 3) {
            long order = i - 1;
            long total = 5;
            for (long k = 0; k < lines(order); k++) {
                total += lineAmount(order, k);
            }
            out.upsert(prefix + "_lines", order, 0, lineAmount(order, 0) + 5);
            out.upsert(prefix + "_orders", order, total, order);
        }
    }
}
