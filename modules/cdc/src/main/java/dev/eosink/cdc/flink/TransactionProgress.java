/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import dev.eosink.cdc.SourceTransaction;
import dev.eosink.cdc.TableId;
import dev.eosink.cdc.TransactionBoundary;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How much of one source transaction an assembler key has: its change events counted, in all and per table, the
 * highest {@code total_order} among them, and its END once that came; checked against the END's counts whichever
 * comes first. Immutable, as the state serializer requires ({@link ImmutableValueSerializer}): each step is a new
 * value.
 *
 * <p>The assembler keeps each {@code (transaction, total_order)} once, so {@code n} events whose orders are all at
 * most the END's {@code event_count} of {@code n} are exactly its events 1 to {@code n}: {@link #complete()} needs
 * no more than the count.
 */
final class TransactionProgress implements Serializable {

    private static final long serialVersionUID = 1L;

    /** What the messages of a count that does not fit add: how that comes about and what to check. */
    private static final String COUNT_REMEDY = " Each (transaction, total_order) is kept once and repeats are"
            + " dropped, so more events than the END counts come from another transaction under the same key, or"
            + " from events added or renumbered after Debezium counted them: key the assembler so that one key"
            + " holds the events of one source database (transaction ids are unique within one database only),"
            + " take the END from Debezium's transaction topic (provide.transaction.metadata=true) as it wrote it,"
            + " and leave no transform (SMT) that adds, splits or renumbers change events.";

    private final String transactionKey;
    private final long arrival;
    /** The sum of {@link #receivedPerTable}. */
    private final long received;

    private final long highestOrder;
    /** By {@link TableId#dataCollection()}, in the order the tables' first events came. */
    private final Map<String, Long> receivedPerTable;
    /** Null until the END came. */
    private final TransactionBoundary end;

    private TransactionProgress(
            String transactionKey,
            long arrival,
            long highestOrder,
            Map<String, Long> receivedPerTable,
            TransactionBoundary end) {
        this.transactionKey = transactionKey;
        this.arrival = arrival;
        this.received =
                receivedPerTable.values().stream().mapToLong(Long::longValue).sum();
        this.highestOrder = highestOrder;
        this.receivedPerTable = Collections.unmodifiableMap(receivedPerTable);
        this.end = end;
    }

    /**
     * A transaction the key has seen nothing of yet.
     *
     * @param arrival how many transactions the key had seen before: which is older, for the bound's message
     */
    static TransactionProgress none(String transactionKey, long arrival) {
        return new TransactionProgress(transactionKey, arrival, 0, new LinkedHashMap<>(), null);
    }

    /**
     * With one more change event, not one the key already has.
     *
     * @throws TransactionAssemblyException when the END came and counts fewer events, in all or of the table
     */
    TransactionProgress withChange(SourceTransaction transaction, TableId table) {
        String collection = table.dataCollection();
        long ofTable = receivedPerTable.getOrDefault(collection, 0L) + 1;
        if (end != null) {
            TransactionBoundary.Totals totals = end.totals().orElseThrow();
            if (transaction.totalOrder() > totals.eventCount()) {
                throw new TransactionAssemblyException(name() + ": its event #" + transaction.totalOrder() + " (of "
                        + collection + ") came, but its END counts " + totals + "." + COUNT_REMEDY);
            }
            long counted = totals.perDataCollection().getOrDefault(collection, 0L);
            if (ofTable > counted) {
                throw new TransactionAssemblyException(name() + ": " + count(ofTable, "event") + " of " + collection
                        + " came, but its END counts " + counted + " of that table (" + totals + ")." + COUNT_REMEDY);
            }
        }
        Map<String, Long> perTable = new LinkedHashMap<>(receivedPerTable);
        perTable.put(collection, ofTable);
        return new TransactionProgress(
                transactionKey, arrival, Math.max(highestOrder, transaction.totalOrder()), perTable, end);
    }

    /**
     * With its END, the first the key has of this transaction.
     *
     * @throws TransactionAssemblyException when the END's counts do not add up, or more events came than it counts
     */
    TransactionProgress withEnd(TransactionBoundary end) {
        TransactionBoundary.Totals totals = end.totals().orElseThrow();
        long perTableSum = totals.perDataCollection().values().stream()
                .mapToLong(Long::longValue)
                .sum();
        if (perTableSum != totals.eventCount()) {
            throw new TransactionAssemblyException(name() + ": its END counts " + totals.eventCount()
                    + " events in all but " + perTableSum + " in its data_collections " + totals.perDataCollection()
                    + ", so the END's counts are missing or altered and no one can tell when the transaction is"
                    + " whole. Read the END from Debezium's transaction topic (provide.transaction.metadata=true)"
                    + " as Debezium wrote it, with no transform (SMT) on that topic.");
        }
        if (highestOrder > totals.eventCount()) {
            throw new TransactionAssemblyException(name() + ": its event #" + highestOrder
                    + " came, but its END counts " + totals + "." + COUNT_REMEDY);
        }
        for (Map.Entry<String, Long> table : receivedPerTable.entrySet()) {
            long counted = totals.perDataCollection().getOrDefault(table.getKey(), 0L);
            if (table.getValue() > counted) {
                throw new TransactionAssemblyException(name() + ": " + count(table.getValue(), "event") + " of "
                        + table.getKey() + " came, but its END counts " + counted + " of that table (" + totals
                        + ")." + COUNT_REMEDY);
            }
        }
        return new TransactionProgress(
                transactionKey, arrival, highestOrder, new LinkedHashMap<>(receivedPerTable), end);
    }

    String transactionKey() {
        return transactionKey;
    }

    long arrival() {
        return arrival;
    }

    /** The END, once it came. */
    Optional<TransactionBoundary> end() {
        return Optional.ofNullable(end);
    }

    /** Whether the END came and every event it counts (see the class comment). */
    boolean complete() {
        return end != null && received == end.totals().orElseThrow().eventCount();
    }

    /** What the transaction has and waits for, for messages: the tables short of their count, or the END. */
    String waitsFor() {
        if (end == null) {
            return name() + " has " + count(received, "event") + " " + receivedPerTable + " and no END";
        }
        TransactionBoundary.Totals totals = end.totals().orElseThrow();
        StringBuilder missing = new StringBuilder();
        for (Map.Entry<String, Long> table : totals.perDataCollection().entrySet()) {
            long got = receivedPerTable.getOrDefault(table.getKey(), 0L);
            if (got < table.getValue()) {
                missing.append(missing.length() == 0 ? "" : ", ")
                        .append(table.getKey())
                        .append(": ")
                        .append(got)
                        .append(" of ")
                        .append(table.getValue());
            }
        }
        return name() + " (END " + end.id() + " at " + end.time() + ") has " + received + " of the "
                + totals.eventCount() + " events its END counts, and waits for " + missing;
    }

    /** {@code 1 event}, {@code 2 events}. */
    static String count(long n, String thing) {
        return n + " " + thing + (n == 1 ? "" : "s");
    }

    private String name() {
        return "source transaction " + transactionKey;
    }

    @Override
    public String toString() {
        return waitsFor();
    }
}
