/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.ForwardingEpochWriter;
import dev.eosink.core.spi.HeldWrites;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.util.UserCodeClassLoader;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Records, per sink id, what a sink of {@code Long} ids did against the real database and which
 * attempt did it: each transaction prepared (with its ids), each prepared transaction rolled back at
 * start, each commit and its outcome, each marker lookup and its answer, each snapshot that carried
 * held writes past its barrier and each restored writer that wrote them; how many records the
 * writers took, and how many rows each writer holds in its open transaction right now.
 *
 * <p>The tests use it to prove that an injected fault hit the transaction they meant, and what the
 * protocol did about that very transaction afterwards (rolled back by the restarted writer,
 * committed by the restored committer, found gone and proved by its marker, ...), rather than
 * inferring it from the final counts alone. It sees the sink's calls, not the database's answers:
 * it works alike on every database.
 *
 * <p>Wrap it inside the fault injection ({@code FaultInjectingDatabase.wrap(ProtocolTrace.wrap(sink))})
 * so that it sees what reached the database, not what a fault pretended.
 */
public final class ProtocolTrace implements TransactionalDatabase<Long> {

    private static final long serialVersionUID = 1L;

    /** What happened. */
    public enum Kind {
        /** The writer prepared {@code gid}; {@code ids} are the records of its epoch. */
        PREPARED,
        /**
         * The writer's prepare of {@code gid} failed (outcome: the exception's simple class name); the server
         * may have prepared it all the same (its answer lost with the connection), and a restarted writer
         * then rolls it back as its execution's own.
         */
        PREPARE_FAILED,
        /** A writer rolled back prepared {@code gid} at start. */
        ROLLED_BACK,
        /** A commit of {@code gid}: outcome COMMITTED, NOT_FOUND or the exception's simple class name. */
        COMMIT,
        /** Marker lookup of {@code gid}: outcome "true", "false" or the exception's simple class name. */
        MARKER,
        /**
         * The writer's snapshot carried writes it holds past the barrier that prepared {@code gid} (null:
         * it prepared nothing at that barrier); outcome: their size in bytes.
         */
        CARRIED,
        /** A restored writer wrote what a snapshot carried; outcome: the snapshot, as the writer names it. */
        CARRIED_WRITTEN,
        /**
         * Not the sink: an operator's tool ({@code eosink-admin resolve}) finished prepared {@code gid} while no
         * job ran; outcome COMMITTED or ROLLED_BACK. Subtask and attempt -1.
         */
        RESOLVED
    }

    /** One thing the sink did. */
    public static final class Event {
        /** Its place among all events recorded, of any sink: a later event has a higher one. */
        public final long seq;
        /** What the sink did. */
        public final Kind kind;
        /** The writer's or committer's subtask; -1 for {@link Kind#RESOLVED}. */
        public final int subtask;
        /** The attempt of that subtask's task; -1 for {@link Kind#RESOLVED}. */
        public final int attempt;
        /** The transaction's name, as the database knows it; null where its {@link Kind} says so. */
        public final String gid;
        /** What came of it, as its {@link Kind} says. */
        public final String outcome;
        /** The ids written in the epoch of a PREPARED event, in the order written; empty for the others. */
        private final long[] ids;
        /** System.nanoTime() when it was recorded, just after the database call returned. */
        public final long nanos;

        Event(long seq, Kind kind, int subtask, int attempt, String gid, String outcome, long[] ids) {
            this.seq = seq;
            this.kind = kind;
            this.subtask = subtask;
            this.attempt = attempt;
            this.gid = gid;
            this.outcome = outcome;
            this.ids = ids;
            this.nanos = System.nanoTime();
        }

        /** How many records the epoch of a PREPARED event wrote; 0 for the other events. */
        public long rows() {
            return ids.length;
        }

        /** The smallest id of a PREPARED event's epoch; {@link Long#MAX_VALUE} for an event without ids. */
        public long minId() {
            return Arrays.stream(ids).min().orElse(Long.MAX_VALUE);
        }

        /** The largest id of a PREPARED event's epoch; {@link Long#MIN_VALUE} for an event without ids. */
        public long maxId() {
            return Arrays.stream(ids).max().orElse(Long.MIN_VALUE);
        }

        /** Whether {@code id} is one of the records of a PREPARED event's epoch. */
        public boolean holds(long id) {
            for (long written : ids) {
                if (written == id) {
                    return true;
                }
            }
            return false;
        }

        /** The ids of the epoch, sorted. */
        public long[] ids() {
            long[] sorted = ids.clone();
            Arrays.sort(sorted);
            return sorted;
        }

        /**
         * The checkpoint that {@link #gid} names. Throws {@link java.util.NoSuchElementException} when the gid is not
         * the sink's transaction id.
         */
        public long checkpointOfGid() {
            return TransactionId.parse(gid).orElseThrow().checkpointId();
        }

        @Override
        public String toString() {
            return "#" + seq + " " + kind + " " + gid + " subtask " + subtask + " attempt " + attempt
                    + (outcome != null ? " -> " + outcome : "")
                    + (kind == Kind.PREPARED ? " rows=" + rows() + " ids=" + minId() + ".." + maxId() : "");
        }
    }

    private static final long[] NO_IDS = new long[0];
    private static final AtomicLong SEQ = new AtomicLong();
    private static final Map<String, List<Event>> EVENTS = new ConcurrentHashMap<>();
    /** sinkId -> subtask -> rows in the open transaction of that subtask's newest writer. */
    private static final Map<String, Map<Integer, OpenEpoch>> OPEN = new ConcurrentHashMap<>();
    /** sinkId -> records its writers took, every attempt. */
    private static final Map<String, AtomicLong> WRITTEN = new ConcurrentHashMap<>();

    private final TransactionalDatabase<Long> real;

    private ProtocolTrace(TransactionalDatabase<Long> real) {
        this.real = real;
    }

    /** The same sink, recording into {@link #events(String)} under its sink id. */
    public static ExactlyOnceSink<Long> wrap(ExactlyOnceSink<Long> sink) {
        return new ExactlyOnceSink<>(new ProtocolTrace(sink.database()), sink.settings(), sink.distribution());
    }

    /** Forgets everything recorded for {@code sinkId}: call it after each test. */
    public static void reset(String sinkId) {
        EVENTS.remove(sinkId);
        OPEN.remove(sinkId);
        WRITTEN.remove(sinkId);
    }

    /**
     * The highest sequence number any event was given so far, of any sink: an event recorded later gets a
     * higher one. (Not the last event's in a list: two writers may take numbers in one order and add their
     * events in the other.)
     */
    public static long lastSeq() {
        return SEQ.get();
    }

    /** Everything recorded for the sink, in the order it happened. */
    public static List<Event> events(String sinkId) {
        List<Event> events = EVENTS.getOrDefault(sinkId, List.of());
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    /** The events of {@code kind} recorded for {@code sinkId}, in order; a copy. */
    public static List<Event> events(String sinkId, Kind kind) {
        return events(sinkId).stream().filter(e -> e.kind == kind).collect(Collectors.toList());
    }

    /** Everything recorded about one transaction, in order. */
    public static List<Event> of(String sinkId, String gid) {
        return events(sinkId).stream().filter(e -> gid.equals(e.gid)).collect(Collectors.toList());
    }

    /** The PREPARED event of {@code gid}, or null if this sink never prepared it. */
    public static Event prepared(String sinkId, String gid) {
        return events(sinkId, Kind.PREPARED).stream()
                .filter(e -> e.gid.equals(gid))
                .findFirst()
                .orElse(null);
    }

    /** "COMMIT:COMMITTED@0", "MARKER:true@1", ...: a compact history of one transaction, for assertions. */
    public static List<String> history(String sinkId, String gid) {
        return of(sinkId, gid).stream()
                .map(e -> e.kind + (e.outcome != null ? ":" + e.outcome : "") + "@" + e.attempt)
                .collect(Collectors.toList());
    }

    /** Whether a writer of the sink has opened through this trace: the sink is traced. */
    public static boolean traces(String sinkId) {
        return OPEN.containsKey(sinkId);
    }

    /**
     * How many writer subtasks of the sink hold at least one row in their open transaction: rows
     * handed to the database since their last prepare. A checkpoint whose barrier reaches such a
     * writer prepares a transaction.
     */
    public static int writersWithOpenRows(String sinkId) {
        return (int) OPEN.getOrDefault(sinkId, Map.of()).values().stream()
                .filter(e -> e.rows > 0)
                .count();
    }

    /** How many writer subtasks of the sink are open through this trace. */
    public static int writers(String sinkId) {
        return OPEN.getOrDefault(sinkId, Map.of()).size();
    }

    /** How many records the writers of the sink took since {@link #reset}, in every attempt. */
    public static long written(String sinkId) {
        AtomicLong written = WRITTEN.get(sinkId);
        return written == null ? 0 : written.get();
    }

    /** The subtasks whose writer prepared a transaction named for {@code checkpointId}. */
    public static java.util.Set<Integer> preparedFor(String sinkId, long checkpointId) {
        return events(sinkId, Kind.PREPARED).stream()
                .filter(e -> e.checkpointOfGid() == checkpointId)
                .map(e -> e.subtask)
                .collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** Records that an operator's tool finished {@code gid} of {@code sinkId}: {@link Kind#RESOLVED}. */
    public static void resolved(String sinkId, String gid, String outcome) {
        record(sinkId, new Event(0, Kind.RESOLVED, -1, -1, gid, outcome, NO_IDS));
    }

    private static void record(SubtaskContext c, Kind kind, String gid, String outcome, long[] ids) {
        record(c.sinkId(), new Event(0, kind, c.subtask(), c.attempt(), gid, outcome, ids));
    }

    private static void record(String sinkId, Event unnumbered) {
        List<Event> events = EVENTS.computeIfAbsent(sinkId, k -> Collections.synchronizedList(new ArrayList<>()));
        synchronized (events) { // numbered and added as one: the list stays in the order of the numbers
            Event e = unnumbered;
            events.add(new Event(SEQ.incrementAndGet(), e.kind, e.subtask, e.attempt, e.gid, e.outcome, e.ids));
        }
    }

    private static String outcome(Exception e) {
        return e.getClass().getSimpleName();
    }

    @Override
    public String target() {
        return real.target();
    }

    @Override
    public Wording wording() {
        return real.wording();
    }

    @Override
    public void registerReleaseHooks(UserCodeClassLoader userCode) {
        real.registerReleaseHooks(userCode);
    }

    @Override
    public WriterSession<Long> openWriter(SubtaskContext context) throws IOException {
        WriterSession<Long> w = real.openWriter(context);
        OpenEpoch open = new OpenEpoch();
        // The newest writer of a subtask replaces the entry; a closing one removes only its own (a
        // failed attempt may still be closing while its successor writes).
        Map<Integer, OpenEpoch> ofSink = OPEN.computeIfAbsent(context.sinkId(), k -> new ConcurrentHashMap<>());
        ofSink.put(context.subtask(), open);
        AtomicLong written = WRITTEN.computeIfAbsent(context.sinkId(), k -> new AtomicLong());
        return new TracedSession(w, context, open, ofSink, written);
    }

    /**
     * A writer session whose roles record what the trace needs: the rollbacks of its recovery, the writes and
     * prepares of its epochs, the writes it carries past a barrier and those it applies from a restored state.
     */
    private static final class TracedSession implements WriterSession<Long> {
        private final WriterSession<Long> w;
        private final SubtaskContext context;
        private final OpenEpoch open;
        private final Map<Integer, OpenEpoch> ofSink;
        private final AtomicLong written;
        private final Recovery recovery;
        private final EpochWriter<Long> epoch;
        private final Optional<CarriedWrites> carriedWrites;
        private long[] ids = new long[64];
        private int rows;
        /** The transaction prepared at the last barrier; null when that barrier prepared nothing. */
        private String preparedAtLastBarrier;
        /** Whether a prepare came since the last snapshot. */
        private boolean preparedSinceSnapshot;

        TracedSession(
                WriterSession<Long> w,
                SubtaskContext context,
                OpenEpoch open,
                Map<Integer, OpenEpoch> ofSink,
                AtomicLong written) {
            this.w = w;
            this.context = context;
            this.open = open;
            this.ofSink = ofSink;
            this.written = written;
            this.recovery = tracedRecovery(w.recovery());
            this.epoch = tracedEpoch(w.epoch());
            this.carriedWrites = w.carriedWrites().map(c -> CarriedWrites.of(tracedHeld(c.held()), c.ledger()));
        }

        @Override
        public Recovery recovery() {
            return recovery;
        }

        @Override
        public EpochWriter<Long> epoch() {
            return epoch;
        }

        @Override
        public Optional<CarriedWrites> carriedWrites() {
            return carriedWrites;
        }

        @Override
        public void close() throws IOException {
            endEpoch();
            ofSink.remove(context.subtask(), open);
            w.close();
        }

        private Recovery tracedRecovery(Recovery r) {
            return new Recovery() {
                @Override
                public void claim(int subtask, long waitMillis) throws IOException {
                    r.claim(subtask, waitMillis);
                }

                @Override
                public void release(int subtask) throws IOException {
                    r.release(subtask);
                }

                @Override
                public List<TransactionId> listPrepared() throws IOException {
                    return r.listPrepared();
                }

                @Override
                public void rollbackPrepared(TransactionId id) throws IOException {
                    r.rollbackPrepared(id);
                    record(context, Kind.ROLLED_BACK, id.toString(), null, NO_IDS);
                }

                @Override
                public Optional<Committed> committedAfter(
                        long checkpointId, long sinceEpochMillis, Optional<String> takenBy) throws IOException {
                    return r.committedAfter(checkpointId, sinceEpochMillis, takenBy);
                }
            };
        }

        private EpochWriter<Long> tracedEpoch(EpochWriter<Long> e) {
            return new ForwardingEpochWriter<>(e) {
                @Override
                public void write(Long record, long positionInEpoch) throws IOException {
                    delegate.write(record, positionInEpoch);
                    if (rows == ids.length) {
                        ids = Arrays.copyOf(ids, rows * 2);
                    }
                    ids[rows++] = record;
                    open.rows = rows;
                    written.incrementAndGet();
                }

                @Override
                public void prepare(TransactionId id, long rowCount) throws IOException {
                    try {
                        delegate.prepare(id, rowCount);
                    } catch (IOException | RuntimeException ex) {
                        record(
                                context,
                                Kind.PREPARE_FAILED,
                                id.toString(),
                                ex.getClass().getSimpleName(),
                                NO_IDS);
                        throw ex;
                    }
                    record(context, Kind.PREPARED, id.toString(), null, Arrays.copyOf(ids, rows));
                    preparedAtLastBarrier = id.toString();
                    preparedSinceSnapshot = true;
                    endEpoch();
                }

                @Override
                public void abortOpen() throws IOException {
                    endEpoch();
                    delegate.abortOpen();
                }
            };
        }

        private HeldWrites tracedHeld(HeldWrites h) {
            return new HeldWrites() {
                @Override
                public Optional<byte[]> carried() throws IOException {
                    // Asked once per snapshot, after the barrier's prepare (if any).
                    Optional<byte[]> carried = h.carried();
                    if (carried.isPresent()) {
                        record(
                                context,
                                Kind.CARRIED,
                                preparedSinceSnapshot ? preparedAtLastBarrier : null,
                                String.valueOf(carried.get().length),
                                NO_IDS);
                    }
                    preparedSinceSnapshot = false;
                    return carried;
                }

                @Override
                public boolean holdsWrites() {
                    return h.holdsWrites();
                }

                @Override
                public void applyCarried(byte[] carried, int subtask, String origin) throws IOException {
                    h.applyCarried(carried, subtask, origin);
                    record(context, Kind.CARRIED_WRITTEN, null, origin, NO_IDS);
                }
            };
        }

        private void endEpoch() {
            rows = 0;
            open.rows = 0;
        }
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) throws IOException {
        CommitSession c = real.openCommitter(context);
        return new CommitSession() {
            @Override
            public Attempt commit(TransactionId id) throws IOException {
                try {
                    Attempt a = c.commit(id);
                    record(context, Kind.COMMIT, id.toString(), a.name(), NO_IDS);
                    return a;
                } catch (IOException | RuntimeException e) {
                    record(context, Kind.COMMIT, id.toString(), outcome(e), NO_IDS);
                    throw e;
                }
            }

            @Override
            public boolean isMarked(TransactionId id) throws IOException {
                try {
                    boolean marked = c.isMarked(id);
                    record(context, Kind.MARKER, id.toString(), String.valueOf(marked), NO_IDS);
                    return marked;
                } catch (IOException | RuntimeException e) {
                    record(context, Kind.MARKER, id.toString(), outcome(e), NO_IDS);
                    throw e;
                }
            }

            @Override
            public long pruneMarkers(Duration retention) throws IOException {
                return c.pruneMarkers(retention);
            }

            @Override
            public void close() throws IOException {
                c.close();
            }
        };
    }

    /** The rows of one writer's open transaction: written by its task thread, read by tests. */
    private static final class OpenEpoch {
        volatile int rows;
    }
}
