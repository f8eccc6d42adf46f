package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.WriterSession;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Wraps the real PostgreSQL database of a sink and throws {@link Faults} at armed lifecycle points.
 * Everything else goes to the real database: this is failure injection, not a mock.
 */
public final class FaultInjectingDatabase<IN> implements TransactionalDatabase<IN> {

    private static final long serialVersionUID = 1L;

    private final TransactionalDatabase<IN> real;

    private FaultInjectingDatabase(TransactionalDatabase<IN> real) {
        this.real = real;
    }

    /** The same sink with faults injectable at every point of its lifecycle. */
    public static <IN> ExactlyOnceSink<IN> wrap(ExactlyOnceSink<IN> sink) {
        return new ExactlyOnceSink<>(new FaultInjectingDatabase<>(sink.database()), sink.settings());
    }

    @Override
    public String target() {
        return real.target();
    }

    @Override
    public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
        WriterSession<IN> w = real.openWriter(context);
        String sink = context.sinkId();
        int subtask = context.subtask();
        int attempt = context.attempt();
        Faults.writerOpened(sink, subtask, attempt);
        return new WriterSession<>() {
            @Override
            public void claim(int subtask, long waitMillis) throws IOException {
                w.claim(subtask, waitMillis);
            }

            @Override
            public void release(int subtask) throws IOException {
                w.release(subtask);
            }

            @Override
            public List<TransactionId> listPrepared() throws IOException {
                return w.listPrepared();
            }

            @Override
            public void rollbackPrepared(TransactionId id) throws IOException {
                w.rollbackPrepared(id);
            }

            @Override
            public void write(IN record, long positionInEpoch) throws IOException {
                Faults.reach(sink, Faults.Point.WRITE, subtask, attempt, null);
                w.write(record, positionInEpoch);
            }

            @Override
            public void flush() throws IOException {
                w.flush();
            }

            @Override
            public void prepare(TransactionId id, long rows) throws IOException {
                Faults.reach(sink, Faults.Point.BEFORE_PREPARE, subtask, attempt, id.toString());
                w.prepare(id, rows);
                Faults.reach(sink, Faults.Point.AFTER_PREPARE, subtask, attempt, id.toString());
            }

            @Override
            public void abortOpen() throws IOException {
                w.abortOpen();
            }

            @Override
            public void close() throws IOException {
                w.close();
            }
        };
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) throws IOException {
        CommitSession c = real.openCommitter(context);
        String sink = context.sinkId();
        int subtask = context.subtask();
        int attempt = context.attempt();
        return new CommitSession() {
            @Override
            public Attempt commit(TransactionId id) throws IOException {
                Faults.reach(sink, Faults.Point.BEFORE_COMMIT, subtask, attempt, id.toString());
                Attempt a = c.commit(id);
                Faults.reach(sink, Faults.Point.AFTER_COMMIT, subtask, attempt, id.toString());
                return a;
            }

            @Override
            public boolean isMarked(TransactionId id) throws IOException {
                return c.isMarked(id);
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
