package dev.eosink.core.protocol;

import dev.eosink.core.spi.SubtaskContext;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Which sinks have a committer in this JVM inside a commit call right now, per sink id and execution.
 *
 * <p>Who asks: a restored writer whose promised transactions are still prepared when its claim wait runs
 * out ({@link StartupRecovery}). A restored committer commits what it holds while its task initializes.
 * Chained to the writer, that is done before the writer's task starts; with chaining disabled the
 * committer is a task of its own, initializing at the same time as the writer, and a commit that takes
 * longer than the claim wait (a synchronous standby, a database that takes connections again only slowly
 * after a failover) is no dropped committer state. With Flink's default slot sharing, writer and
 * committer of a subtask share a slot, so that committer runs in this JVM, and the writer sees it busy.
 */
final class LocalCommitters {

    private static final ConcurrentHashMap<String, Integer> COMMITTING = new ConcurrentHashMap<>();

    private LocalCommitters() {}

    /** A committer of {@code committer}'s sink and execution entered a commit call; {@link #left} follows. */
    static void entered(SubtaskContext committer) {
        COMMITTING.merge(key(committer), 1, Integer::sum);
    }

    /** The commit call {@link #entered} ended, however it ended. */
    static void left(SubtaskContext committer) {
        COMMITTING.computeIfPresent(key(committer), (k, n) -> n == 1 ? null : n - 1);
    }

    /** Whether a committer of {@code writer}'s sink and execution in this JVM is inside a commit call. */
    static boolean committing(SubtaskContext writer) {
        return COMMITTING.containsKey(key(writer));
    }

    private static String key(SubtaskContext context) {
        return context.sinkId() + "/" + context.execution();
    }
}
