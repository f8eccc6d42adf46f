/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.SingleChange;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.SourceTransaction;
import dev.eosink.cdc.TransactionBoundary;
import dev.eosink.cdc.WholeTransaction;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Makes whole source transactions of Debezium's events, in commit order: one {@link WholeTransaction} per END, once
 * every change event the END counts has come, never before a transaction whose END came earlier. Keyed by a
 * consistency group: each key's transactions are assembled and numbered on their own.
 *
 * <p>What it expects of its input, per key: the change events of the data topics and the BEGIN/END events of
 * Debezium's transaction topic ({@code provide.transaction.metadata=true}), all of one source database; the ENDs in
 * the order Debezium wrote them (one partition of the transaction topic keeps it), the change events in any order
 * relative to them and to each other's topics. A transaction's events may come before its END or after it; its
 * BEGIN is not needed and is ignored.
 *
 * <p>What it emits:
 *
 * <ul>
 *   <li>A transaction when its END and all the events the END counts have come (in all and per table), and every
 *       transaction whose END came before it has been emitted: ended transactions wait in a queue in END order. Its
 *       changes are in {@code total_order}.
 *   <li>A change event without a transaction block (a snapshot read; any change of a connector without transaction
 *       metadata) as a {@link SingleChange} the moment it comes, ahead of ended transactions still waiting for
 *       events, unless a transaction not emitted yet changed its row before it came (an incremental snapshot reads
 *       rows while Debezium streams): then right after that transaction ({@link HeldReads}). That keeps each row's
 *       order: Debezium writes a row's events to one partition, in order, so a transaction that also changes the
 *       row after a read is complete only after that read has come, and a read that came behind a change of its row
 *       holds the row as that change left it.
 *   <li>{@link SourceChanges#sequence()}: 1, 2, ... per key, in emission order, whole transactions and single
 *       changes alike.
 * </ul>
 *
 * <p>Repeats (Debezium sends what followed its last committed offset again after a restart of its own): a change
 * event whose {@code (transaction, total_order)} the key holds, an END of a transaction the key has the END of, and
 * the events and END of one of the last {@code rememberedTransactions} transactions it emitted, are dropped, logged
 * at debug and counted by the metric {@value #DUPLICATES_METRIC}. A repeat of a transaction emitted before those is
 * not recognized: its END and events would be assembled and emitted again. Repeated single changes are emitted again
 * (they carry nothing that tells them apart); applied as upserts, they change nothing.
 *
 * <p>Failures ({@link TransactionAssemblyException}, which fails the job): an END whose per-table counts do not add
 * up to its count, or more events of a transaction than its END counts (in all or of a table); and more than
 * {@code maxBufferedEvents} change events and waiting ENDs held by one key, which names the oldest incomplete
 * transaction and what it waits for: a transaction that never completes holds back every later one, and must not
 * grow the state for ever unnoticed.
 *
 * <p>State: keyed state alone (buffered events by transaction key and {@code total_order}, per-transaction counts,
 * the queue of ENDs, the remembered emitted transactions, the next sequence number), so it is checkpointed, restored
 * and moved with its key on rescaling. Events are kept by {@link ImmutableValueSerializer} (Java serialization).
 *
 * @param <K> the type of the consistency group's key: a constant keys everything into one group
 */
@PublicEvolving
public final class TransactionAssembler<K> extends KeyedProcessFunction<K, CdcEvent, SourceChanges>
        implements ResultTypeQueryable<SourceChanges> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(TransactionAssembler.class);

    /** The default of {@code maxBufferedEvents}. */
    public static final long DEFAULT_MAX_BUFFERED_EVENTS = 1_000_000;

    /** The default of {@code rememberedTransactions}. */
    public static final int DEFAULT_REMEMBERED_TRANSACTIONS = 100_000;

    /** The counter of dropped repeats, change events and ENDs, in the operator's metric group. */
    public static final String DUPLICATES_METRIC = "cdcDuplicatesDropped";

    private final long maxBufferedEvents;
    private final int rememberedTransactions;

    /** Buffered change events by (transaction key, total_order). */
    private transient MapState<Tuple2<String, Long>, ChangeEvent> events;
    /** What each buffered or ended transaction has, by transaction key. */
    private transient MapState<String, TransactionProgress> transactions;
    /** How many change events {@link #events} holds: counted, as a MapState has no size. */
    private transient ValueState<Long> bufferedEvents;
    /** How many transactions the key has seen: the next one's arrival, to tell the oldest. */
    private transient ValueState<Long> arrivals;
    /** The sequence of the next unit emitted; null before the first (1). */
    private transient ValueState<Long> nextSequence;
    /** The position of the last END (PostgreSQL's LSN), where the ENDs carry one: see {@link #onEnd}. */
    private transient ValueState<Long> lastEndPosition;

    private transient EndedTransactions ended;
    private transient RecentTransactions recent;
    /** Reads behind a change of their row by a transaction not emitted yet: see {@link HeldReads}. */
    private transient HeldReads heldReads;

    private transient Counter duplicates;

    /** With {@link #DEFAULT_MAX_BUFFERED_EVENTS} and {@link #DEFAULT_REMEMBERED_TRANSACTIONS}. */
    public TransactionAssembler() {
        this(DEFAULT_MAX_BUFFERED_EVENTS, DEFAULT_REMEMBERED_TRANSACTIONS);
    }

    /**
     * @param maxBufferedEvents how many change events and waiting ENDs one key may hold before the job fails: more
     *     than the largest source transaction, and than the events that arrive while one waits for its last
     * @param rememberedTransactions how many emitted transactions per key are remembered to drop their repeats:
     *     more than the source commits between two offset commits of the connector (Kafka Connect's
     *     {@code offset.flush.interval.ms}, a minute by default) and its restart
     * @throws IllegalArgumentException when either is less than 1
     */
    public TransactionAssembler(long maxBufferedEvents, int rememberedTransactions) {
        if (maxBufferedEvents < 1 || rememberedTransactions < 1) {
            throw new IllegalArgumentException("maxBufferedEvents (" + maxBufferedEvents
                    + ") and rememberedTransactions (" + rememberedTransactions + ") must be at least 1");
        }
        this.maxBufferedEvents = maxBufferedEvents;
        this.rememberedTransactions = rememberedTransactions;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        RuntimeContext context = getRuntimeContext();
        TypeInformation<Tuple2<String, Long>> position = Types.TUPLE(Types.STRING, Types.LONG);
        events = context.getMapState(
                new MapStateDescriptor<>("buffered-events", position, new ImmutableValueTypeInfo<>(ChangeEvent.class)));
        transactions = context.getMapState(new MapStateDescriptor<>(
                "transactions", Types.STRING, new ImmutableValueTypeInfo<>(TransactionProgress.class)));
        bufferedEvents = context.getState(new ValueStateDescriptor<>("buffered-event-count", Types.LONG));
        arrivals = context.getState(new ValueStateDescriptor<>("transaction-arrivals", Types.LONG));
        nextSequence = context.getState(new ValueStateDescriptor<>("next-sequence", Types.LONG));
        lastEndPosition = context.getState(new ValueStateDescriptor<>("last-end-position", Types.LONG));
        ended = new EndedTransactions(context);
        recent = new RecentTransactions(context, rememberedTransactions);
        heldReads = new HeldReads(context);
        duplicates = context.getMetricGroup().counter(DUPLICATES_METRIC);
    }

    @Override
    public void processElement(CdcEvent event, Context context, Collector<SourceChanges> out) throws Exception {
        if (event instanceof ChangeEvent change) {
            Optional<SourceTransaction> transaction = change.transaction();
            if (transaction.isPresent()) {
                onChange(change, transaction.get(), context, out);
            } else if (heldReads.hold(change)) {
                bufferedEvents.update(valueOf(bufferedEvents) + 1); // counted with the buffered changes
                checkBound(context);
            } else {
                out.collect(new SingleChange(takeSequence(), change));
            }
        } else if (event instanceof TransactionBoundary boundary
                && boundary.status() == TransactionBoundary.Status.END) {
            onEnd(boundary, context, out);
        }
        // A BEGIN tells nothing the END does not, and may be missing: ignored.
    }

    private void onChange(
            ChangeEvent change, SourceTransaction transaction, Context context, Collector<SourceChanges> out)
            throws Exception {
        String key = transaction.transactionKey();
        Tuple2<String, Long> position = Tuple2.of(key, transaction.totalOrder());
        if (recent.contains(key) || events.contains(position)) {
            dropRepeat(change);
            return;
        }
        TransactionProgress progress = progressOf(key).withChange(transaction, change.table());
        events.put(position, change);
        heldReads.changed(change, key);
        transactions.put(key, progress);
        bufferedEvents.update(valueOf(bufferedEvents) + 1);
        if (progress.complete()) {
            emitCompleted(out);
        }
        checkBound(context);
    }

    private void onEnd(TransactionBoundary end, Context context, Collector<SourceChanges> out) throws Exception {
        String key = end.transactionKey();
        TransactionProgress known = transactions.get(key);
        if (recent.contains(key) || (known != null && known.end().isPresent())) {
            dropRepeat(end);
            return;
        }
        checkCommitOrder(end);
        transactions.put(key, (known == null ? progressOf(key) : known).withEnd(end));
        ended.add(key);
        emitCompleted(out);
        checkBound(context);
    }

    /**
     * The ENDs' order is the commit order this assembler emits in, so it must be the transaction topic's. Where the
     * ENDs carry a position (PostgreSQL's LSN, which grows with the commit order), one that does not grow means
     * that order was lost on the way (the transaction topic in several partitions, a rebalance or a parallel
     * operator before the key), or a repeat older than the remembered transactions: either would apply
     * transactions out of order, so it fails instead.
     */
    private void checkCommitOrder(TransactionBoundary end) throws Exception {
        java.util.OptionalLong position = end.position();
        if (position.isEmpty()) {
            return;
        }
        Long last = lastEndPosition.value();
        if (last != null && position.getAsLong() <= last) {
            throw new TransactionAssemblyException("the END of transaction " + end.id() + " (position "
                    + position.getAsLong() + ") came after an END at position " + last + ": the ENDs no longer come "
                    + "in commit order, which this assembler emits in. Remedy: keep the transaction topic's order into "
                    + "the assembler (one partition; the source's parallelism on every operator before the keyBy, "
                    + "no rebalance), or, if Debezium repeated a transaction older than the remembered ones, raise "
                    + "rememberedTransactions");
        }
        lastEndPosition.update(position.getAsLong());
    }

    /** The transaction's progress so far, or none if the key has seen nothing of it (it arrives now). */
    private TransactionProgress progressOf(String key) throws Exception {
        TransactionProgress progress = transactions.get(key);
        if (progress != null) {
            return progress;
        }
        long arrival = valueOf(arrivals);
        arrivals.update(arrival + 1);
        return TransactionProgress.none(key, arrival);
    }

    /** Emits the first ended transactions for as long as they are complete: commit order, whatever completes first. */
    private void emitCompleted(Collector<SourceChanges> out) throws Exception {
        for (Optional<String> first = ended.first(); first.isPresent(); first = ended.first()) {
            String key = first.get();
            TransactionProgress progress = transactions.get(key);
            if (!progress.complete()) {
                return;
            }
            TransactionBoundary end = progress.end().orElseThrow();
            long count = end.totals().orElseThrow().eventCount();
            List<ChangeEvent> changes = new ArrayList<>();
            for (long order = 1; order <= count; order++) {
                Tuple2<String, Long> position = Tuple2.of(key, order);
                ChangeEvent change = events.get(position);
                if (change == null) {
                    // TransactionProgress.complete() counts distinct orders, none above the count: cannot be.
                    throw new IllegalStateException(progress + " counts as complete but lacks event #" + order);
                }
                changes.add(change);
                events.remove(position);
            }
            transactions.remove(key);
            ended.removeFirst();
            recent.add(key);
            bufferedEvents.update(valueOf(bufferedEvents) - count);
            out.collect(new WholeTransaction(takeSequence(), end, changes));
            for (ChangeEvent read : heldReads.emitted(key, changes)) {
                bufferedEvents.update(valueOf(bufferedEvents) - 1);
                out.collect(new SingleChange(takeSequence(), read));
            }
        }
    }

    private void checkBound(Context context) throws Exception {
        long changes = valueOf(bufferedEvents);
        long ends = ended.size();
        if (changes + ends <= maxBufferedEvents) {
            return;
        }
        TransactionProgress oldest = oldestIncomplete();
        String why = oldest.end().isPresent()
                ? "Its events have not all come: does the job read every topic of the tables it waits for and send"
                        + " their records to this key?"
                : "Its END has not come: does the job read Debezium's transaction topic (<topic.prefix>.transaction,"
                        + " provide.transaction.metadata=true) and send its records to this key?";
        throw new TransactionAssemblyException("the TransactionAssembler of key " + context.getCurrentKey()
                + " holds " + TransactionProgress.count(changes, "change event") + " and "
                + TransactionProgress.count(ends, "END") + " waiting, " + (changes + ends)
                + " in all, more than its maxBufferedEvents of " + maxBufferedEvents
                + ". The oldest incomplete transaction: " + oldest.waitsFor() + ". " + why
                + " Transactions are emitted whole and in commit order, so one that never completes holds back all"
                + " later ones. If transactions are that large, raise maxBufferedEvents.");
    }

    /** The first ended transaction, which holds back the others; else the first of those without an END. */
    private TransactionProgress oldestIncomplete() throws Exception {
        Optional<String> first = ended.first();
        if (first.isPresent()) {
            return transactions.get(first.get());
        }
        TransactionProgress oldest = null;
        for (TransactionProgress progress : transactions.values()) {
            if (oldest == null || progress.arrival() < oldest.arrival()) {
                oldest = progress;
            }
        }
        if (oldest == null) {
            throw new IllegalStateException("over the bound with no transaction held");
        }
        return oldest;
    }

    private void dropRepeat(CdcEvent event) {
        duplicates.inc();
        LOG.debug("Dropped a repeat of what this key has or has emitted: {}", event);
    }

    private long takeSequence() throws Exception {
        Long next = nextSequence.value();
        long sequence = next == null ? 1 : next;
        nextSequence.update(sequence + 1);
        return sequence;
    }

    private static long valueOf(ValueState<Long> state) throws Exception {
        Long value = state.value();
        return value == null ? 0 : value;
    }

    /** How many repeats this instance dropped, as its metric counts them. */
    long duplicatesDropped() {
        return duplicates.getCount();
    }

    @Override
    public TypeInformation<SourceChanges> getProducedType() {
        return CdcTypes.sourceChanges();
    }
}
