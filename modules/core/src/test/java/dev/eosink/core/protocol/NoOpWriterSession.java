package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.WriterSession;

import java.util.List;

/** A writer session that finds no leftovers and does nothing; unit tests override what they observe. */
class NoOpWriterSession implements WriterSession<String> {

    @Override
    public void claim(int subtask, long waitMillis) {}

    @Override
    public void release(int subtask) {}

    @Override
    public List<TransactionId> listPrepared() {
        return List.of();
    }

    @Override
    public void rollbackPrepared(TransactionId id) {}

    @Override
    public void write(String record, long positionInEpoch) throws java.io.IOException {}

    @Override
    public void flush() {}

    @Override
    public void prepare(TransactionId id, long rows) {}

    @Override
    public void abortOpen() {}

    @Override
    public void close() {}
}
