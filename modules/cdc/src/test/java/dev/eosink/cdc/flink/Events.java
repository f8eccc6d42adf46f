/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.ChangeKind;
import dev.eosink.cdc.EventOrigin;
import dev.eosink.cdc.JsonScalar;
import dev.eosink.cdc.Row;
import dev.eosink.cdc.SourcePosition;
import dev.eosink.cdc.SourceTransaction;
import dev.eosink.cdc.TableId;
import dev.eosink.cdc.TransactionBoundary;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Debezium's events as the PostgreSQL connector writes them, built by hand: tables of schema {@code public} in
 * database {@code shop}, transaction ids {@code <txId>:<lsn>} whose LSN differs on every event of a transaction (as
 * Debezium's do), so that only the transaction key ties them together.
 */
final class Events {

    static final Instant TIME = Instant.parse("2026-01-01T00:00:00Z");

    private Events() {}

    /** An INSERT of row {@code id} into {@code table}, event {@code totalOrder} of transaction {@code txId}. */
    static ChangeEvent insert(String table, int id, String txId, long totalOrder, long tableOrder) {
        SourceTransaction transaction =
                new SourceTransaction(txId + ":" + (22094000 + totalOrder), totalOrder, tableOrder);
        return change(ChangeKind.INSERT, table, id, Optional.of(transaction));
    }

    /** A snapshot read of row {@code id} of {@code table}: no transaction. */
    static ChangeEvent read(String table, int id) {
        return change(ChangeKind.SNAPSHOT_READ, table, id, Optional.empty());
    }

    static TransactionBoundary begin(String txId) {
        return new TransactionBoundary(TransactionBoundary.Status.BEGIN, txId + ":22094000", TIME, Optional.empty());
    }

    /** The END of {@code txId}: tables and their counts, {@code "items", 2, "orders", 1}; the count is their sum. */
    static TransactionBoundary end(String txId, Object... tablesAndCounts) {
        Map<String, Long> perTable = new LinkedHashMap<>();
        long sum = 0;
        for (int i = 0; i < tablesAndCounts.length; i += 2) {
            long count = ((Number) tablesAndCounts[i + 1]).longValue();
            perTable.put("public." + tablesAndCounts[i], count);
            sum += count;
        }
        return endCounting(txId, sum, perTable);
    }

    /** An END with any counts, even ones that do not add up. */
    static TransactionBoundary endCounting(String txId, long eventCount, Map<String, Long> perTable) {
        return new TransactionBoundary(
                TransactionBoundary.Status.END,
                txId + ":" + (22_000_000 + 100 * Long.parseLong(txId)), // ENDs in commit order: growing LSNs
                TIME.plusSeconds(Long.parseLong(txId)),
                Optional.of(new TransactionBoundary.Totals(eventCount, perTable)));
    }

    private static ChangeEvent change(ChangeKind kind, String table, int id, Optional<SourceTransaction> transaction) {
        SourcePosition position = new SourcePosition(
                "postgresql", TIME, Optional.of(TIME), Map.of("snapshot", transaction.isPresent() ? "false" : "true"));
        EventOrigin origin =
                new EventOrigin(new TableId(Optional.of("shop"), Optional.of("public"), table), position, transaction);
        LinkedHashMap<String, Object> key = new LinkedHashMap<>();
        key.put("id", new JsonScalar(JsonScalar.Kind.NUMBER, Integer.toString(id)));
        LinkedHashMap<String, Object> after = new LinkedHashMap<>(key);
        after.put("name", new JsonScalar(JsonScalar.Kind.STRING, table + " " + id));
        return new ChangeEvent(
                origin,
                kind,
                Optional.of(new Row(key, Optional.empty())),
                Optional.empty(),
                Optional.of(new Row(after, Optional.empty())));
    }
}
