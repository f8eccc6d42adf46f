/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The BEGIN or END of a source transaction, from Debezium's transaction topic ({@code <topic.prefix>.transaction},
 * with {@code provide.transaction.metadata=true}). Immutable and serializable.
 *
 * <p>An END has the {@link Totals}: how many change events the transaction has, in all and per table. A
 * transaction's change events (their {@link SourceTransaction} has this {@link #transactionKey()}) reach their
 * tables' topics, so a consumer knows it has them all when it has counted that many of each table.
 */
@PublicEvolving
public final class TransactionBoundary implements CdcEvent {

    private static final long serialVersionUID = 1L;

    /** Whether the event opens or closes the transaction. */
    @PublicEvolving
    public enum Status {
        /** The transaction begins; no counts yet. */
        BEGIN,
        /** The transaction ends; the event carries its {@link Totals}. */
        END
    }

    /** The event counts of an END: all, and per data collection (table) in the event's order. Immutable. */
    @PublicEvolving
    public static final class Totals implements Serializable {

        private static final long serialVersionUID = 1L;

        private final long eventCount;
        private final Map<String, Long> perDataCollection;

        /**
         * @param eventCount the END's {@code event_count}
         * @param perDataCollection the END's {@code data_collections}: each table as Debezium names it
         *     ({@link TableId#dataCollection()}) with its {@code event_count}
         */
        public Totals(long eventCount, Map<String, Long> perDataCollection) {
            this.eventCount = eventCount;
            this.perDataCollection = Collections.unmodifiableMap(new LinkedHashMap<>(perDataCollection));
        }

        /** How many change events the transaction has, over all tables. */
        public long eventCount() {
            return eventCount;
        }

        /** Each table's count, by {@link TableId#dataCollection()}; unmodifiable. */
        public Map<String, Long> perDataCollection() {
            return perDataCollection;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Totals other
                    && eventCount == other.eventCount
                    && perDataCollection.equals(other.perDataCollection);
        }

        @Override
        public int hashCode() {
            return Objects.hash(eventCount, perDataCollection);
        }

        @Override
        public String toString() {
            return eventCount + " events " + perDataCollection;
        }
    }

    private final Status status;
    private final String id;
    private final Instant time;
    /** Null for BEGIN. */
    private final Totals totals;

    /**
     * @param status BEGIN or END
     * @param id the transaction's id, as in its change events' {@link SourceTransaction#id()}
     * @param time the event's {@code ts_ms}
     * @param totals present exactly for END
     */
    public TransactionBoundary(Status status, String id, Instant time, Optional<Totals> totals) {
        this.status = Objects.requireNonNull(status, "status");
        this.id = Objects.requireNonNull(id, "id");
        this.time = Objects.requireNonNull(time, "time");
        this.totals = totals.orElse(null);
        if ((status == Status.END) != totals.isPresent()) {
            throw new IllegalArgumentException("transaction " + id + ": an END has totals, a BEGIN none; this " + status
                    + " has " + (totals.isPresent() ? "some" : "none"));
        }
    }

    /** Whether this event opens (BEGIN) or closes (END) the transaction. */
    public Status status() {
        return status;
    }

    /** The id exactly as the event gives it; see {@link #transactionKey()}. */
    public String id() {
        return id;
    }

    /**
     * The source's position of this event, where its id carries one (PostgreSQL: the LSN after the colon), which
     * grows with the commit order from one END to the next; empty for other connectors.
     */
    public java.util.OptionalLong position() {
        return TransactionKeys.position(id);
    }

    /** What every event of the transaction shares: as {@link SourceTransaction#transactionKey()}. */
    public String transactionKey() {
        return TransactionKeys.of(id);
    }

    /** The event's {@code ts_ms}. */
    public Instant time() {
        return time;
    }

    /** The event counts: present for END, empty for BEGIN. */
    public Optional<Totals> totals() {
        return Optional.ofNullable(totals);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransactionBoundary other
                && status == other.status
                && id.equals(other.id)
                && time.equals(other.time)
                && Objects.equals(totals, other.totals);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, id, time, totals);
    }

    @Override
    public String toString() {
        return status + " of transaction " + id + (totals == null ? "" : ": " + totals);
    }
}
