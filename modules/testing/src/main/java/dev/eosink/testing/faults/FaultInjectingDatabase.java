package dev.eosink.testing.faults;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;

import java.io.IOException;

/**
 * Makes a sink's lifecycle points reach {@link Faults}, through the sink's own lifecycle hook.
 * Everything else goes to the real database: this is failure injection, not a mock.
 */
public final class FaultInjectingDatabase {

    private FaultInjectingDatabase() {}

    /** The same sink with faults injectable at every point of its lifecycle. */
    public static <IN> ExactlyOnceSink<IN> wrap(ExactlyOnceSink<IN> sink) {
        return sink.withLifecycleHook(FaultInjectingDatabase::at);
    }

    private static void at(LifecycleHook.Point point, SubtaskContext context, TransactionId id) throws IOException {
        if (point == LifecycleHook.Point.WRITER_OPENED) {
            Faults.writerOpened(context.sinkId(), context.subtask(), context.attempt());
            return;
        }
        Faults.reach(
                context.sinkId(),
                Faults.Point.valueOf(point.name()),
                context.subtask(),
                context.attempt(),
                id == null ? null : id.toString());
    }
}
