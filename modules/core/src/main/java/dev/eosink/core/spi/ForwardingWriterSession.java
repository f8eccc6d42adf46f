package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link WriterSession} that passes every call to another one: extend it to watch or change a few
 * calls (lifecycle hooks, test tracing, fault injection) without restating the rest. New methods of
 * the interface are forwarded here, so that no wrapper silently drops one (a wrapper that forgot
 * {@link #ownCommits} would make an upsert session wait for locks of its own).
 */
@PublicEvolving
public abstract class ForwardingWriterSession<IN> implements WriterSession<IN> {

    protected final WriterSession<IN> delegate;

    protected ForwardingWriterSession(WriterSession<IN> delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public void claim(int subtask, long waitMillis) throws IOException {
        delegate.claim(subtask, waitMillis);
    }

    @Override
    public void release(int subtask) throws IOException {
        delegate.release(subtask);
    }

    @Override
    public List<TransactionId> listPrepared() throws IOException {
        return delegate.listPrepared();
    }

    @Override
    public void rollbackPrepared(TransactionId id) throws IOException {
        delegate.rollbackPrepared(id);
    }

    @Override
    public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws IOException {
        return delegate.committedAfter(checkpointId, sinceEpochMillis, takenBy);
    }

    @Override
    public void begin(TransactionId id) throws IOException {
        delegate.begin(id);
    }

    @Override
    public void write(IN record, long positionInEpoch) throws IOException {
        delegate.write(record, positionInEpoch);
    }

    @Override
    public void flush() throws IOException {
        delegate.flush();
    }

    @Override
    public void prepare(TransactionId id, long rows) throws IOException {
        delegate.prepare(id, rows);
    }

    @Override
    public void ownCommits(OwnCommits ownCommits) {
        delegate.ownCommits(ownCommits);
    }

    @Override
    public Optional<byte[]> carried() throws IOException {
        return delegate.carried();
    }

    @Override
    public boolean holdsWrites() {
        return delegate.holdsWrites();
    }

    @Override
    public void applyCarried(byte[] carried, int subtask, String origin) throws IOException {
        delegate.applyCarried(carried, subtask, origin);
    }

    @Override
    public List<CarriedNotice> openCarried() throws IOException {
        return delegate.openCarried();
    }

    @Override
    public void closeCarried(int subtask) throws IOException {
        delegate.closeCarried(subtask);
    }

    @Override
    public long backlogBytes() {
        return delegate.backlogBytes();
    }

    @Override
    public void abortOpen() throws IOException {
        delegate.abortOpen();
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
