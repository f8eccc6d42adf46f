package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.WriterSession;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Records, per sink id, what a sink of {@code Long} ids did against the real database and which
 * attempt did it: each transaction prepared (with its rows and id range), each prepared transaction
 * rolled back at start, each COMMIT PREPARED and its outcome, each marker lookup and its answer.
 *
 * <p>The tests use it to prove that an injected fault hit the transaction they meant, and what the
 * protocol did about that very transaction afterwards (rolled back by the restarted writer,
 * committed by the restored committer, found gone and proved by its marker, ...), rather than
 * inferring it from the final counts alone.
 *
 * <p>Wrap it inside the fault injection ({@code FaultInjectingDatabase.wrap(ProtocolTrace.wrap(sink))})
 * so that it sees what reached the database, not what a fault pretended.
 */
public final class ProtocolTrace implements TransactionalDatabase<Long> {

    private static final long serialVersionUID = 1L;

    /** What happened. */
    public enum Kind {
        /** The writer prepared {@code gid}; {@code rows}, {@code minId}, {@code maxId} describe its epoch. */
        PREPARED,
        /** A writer rolled back prepared {@code gid} at start. */
        ROLLED_BACK,
        /** COMMIT PREPARED {@code gid}: outcome COMMITTED, NOT_FOUND or the exception's simple class name. */
        COMMIT,
        /** Marker lookup of {@code gid}: outcome "true", "false" or the exception's simple class name. */
        MARKER
    }

    /** One thing the sink did. */
    public static final class Event {
        public final long seq;
        public final Kind kind;
        public final int subtask;
        public final int attempt;
        public final String gid;
        public final String outcome;
        public final long rows;
        public final long minId;
        public final long maxId;
        /** System.nanoTime() when it was recorded, just after the database call returned. */
        public final long nanos;

        Event(long seq, Kind kind, int subtask, int attempt, String gid, String outcome, long rows, long minId, long maxId) {
            this.seq = seq;
            this.kind = kind;
            this.subtask = subtask;
            this.attempt = attempt;
            this.gid = gid;
            this.outcome = outcome;
            this.rows = rows;
            this.minId = minId;
            this.maxId = maxId;
            this.nanos = System.nanoTime();
        }

        public long checkpointOfGid() {
            return TransactionId.parse(gid).orElseThrow().checkpointId();
        }

        @Override
        public String toString() {
            return "#" + seq + " " + kind + " " + gid + " subtask " + subtask + " attempt " + attempt
                    + (outcome != null ? " -> " + outcome : "")
                    + (kind == Kind.PREPARED ? " rows=" + rows + " ids=" + minId + ".." + maxId : "");
        }
    }

    private static final AtomicLong SEQ = new AtomicLong();
    private static final Map<String, List<Event>> EVENTS = new ConcurrentHashMap<>();

    private final TransactionalDatabase<Long> real;

    private ProtocolTrace(TransactionalDatabase<Long> real) {
        this.real = real;
    }

    /** The same sink, recording into {@link #events(String)} under its sink id. */
    public static ExactlyOnceSink<Long> wrap(ExactlyOnceSink<Long> sink) {
        return new ExactlyOnceSink<>(new ProtocolTrace(sink.database()), sink.settings());
    }

    public static void reset(String sinkId) {
        EVENTS.remove(sinkId);
    }

    /** Everything recorded for the sink, in the order it happened. */
    public static List<Event> events(String sinkId) {
        List<Event> events = EVENTS.getOrDefault(sinkId, List.of());
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    public static List<Event> events(String sinkId, Kind kind) {
        return events(sinkId).stream().filter(e -> e.kind == kind).collect(Collectors.toList());
    }

    /** Everything recorded about one transaction, in order. */
    public static List<Event> of(String sinkId, String gid) {
        return events(sinkId).stream().filter(e -> gid.equals(e.gid)).collect(Collectors.toList());
    }

    /** The PREPARED event of {@code gid}, or null if this sink never prepared it. */
    public static Event prepared(String sinkId, String gid) {
        return events(sinkId, Kind.PREPARED).stream().filter(e -> e.gid.equals(gid)).findFirst().orElse(null);
    }

    /** "COMMIT:COMMITTED@0", "MARKER:true@1", ...: a compact history of one transaction, for assertions. */
    public static List<String> history(String sinkId, String gid) {
        return of(sinkId, gid).stream()
                .map(e -> e.kind + (e.outcome != null ? ":" + e.outcome : "") + "@" + e.attempt)
                .collect(Collectors.toList());
    }

    private static void record(SubtaskContext c, Kind kind, String gid, String outcome, long rows, long min, long max) {
        List<Event> events = EVENTS.computeIfAbsent(c.sinkId(), k -> Collections.synchronizedList(new ArrayList<>()));
        events.add(new Event(SEQ.incrementAndGet(), kind, c.subtask(), c.attempt(), gid, outcome, rows, min, max));
    }

    private static String outcome(Exception e) {
        return e.getClass().getSimpleName();
    }

    @Override
    public String target() {
        return real.target();
    }

    @Override
    public WriterSession<Long> openWriter(SubtaskContext context) throws IOException {
        WriterSession<Long> w = real.openWriter(context);
        return new dev.eosink.core.spi.ForwardingWriterSession<>(w) {
            private long rows;
            private long min = Long.MAX_VALUE;
            private long max = Long.MIN_VALUE;

            private void resetEpoch() {
                rows = 0;
                min = Long.MAX_VALUE;
                max = Long.MIN_VALUE;
            }

            @Override
            public void rollbackPrepared(TransactionId id) throws IOException {
                w.rollbackPrepared(id);
                record(context, Kind.ROLLED_BACK, id.toString(), null, 0, 0, 0);
            }

            @Override
            public void write(Long record, long positionInEpoch) throws IOException {
                w.write(record, positionInEpoch);
                rows++;
                min = Math.min(min, record);
                max = Math.max(max, record);
            }

            @Override
            public void prepare(TransactionId id, long rowCount) throws IOException {
                w.prepare(id, rowCount);
                record(context, Kind.PREPARED, id.toString(), null, rows, min, max);
                resetEpoch();
            }

            @Override
            public void abortOpen() throws IOException {
                resetEpoch();
                w.abortOpen();
            }
        };
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) throws IOException {
        CommitSession c = real.openCommitter(context);
        return new CommitSession() {
            @Override
            public Attempt commit(TransactionId id) throws IOException {
                try {
                    Attempt a = c.commit(id);
                    record(context, Kind.COMMIT, id.toString(), a.name(), 0, 0, 0);
                    return a;
                } catch (IOException | RuntimeException e) {
                    record(context, Kind.COMMIT, id.toString(), outcome(e), 0, 0, 0);
                    throw e;
                }
            }

            @Override
            public boolean isMarked(TransactionId id) throws IOException {
                try {
                    boolean marked = c.isMarked(id);
                    record(context, Kind.MARKER, id.toString(), String.valueOf(marked), 0, 0, 0);
                    return marked;
                } catch (IOException | RuntimeException e) {
                    record(context, Kind.MARKER, id.toString(), outcome(e), 0, 0, 0);
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
}
