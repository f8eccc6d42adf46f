package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.time.Duration;

/** One committer subtask's access to the database: commits prepared transactions from any session. */
@PublicEvolving
public interface CommitSession extends AutoCloseable {

    /** What a single attempt to commit a prepared transaction found. */
    enum Attempt {
        /** This call committed it. */
        COMMITTED,
        /** No prepared transaction of that name exists: committed earlier, or lost. Ask {@link #isMarked}. */
        NOT_FOUND
    }

    /**
     * Commits the prepared transaction {@code id}.
     *
     * @throws RetriableCommitException when the outcome is unknown or may change: the connection
     *     broke during the call, or another session is finishing the same transaction right now
     * @throws IOException for anything else (fatal: the task fails and the restarted task retries)
     */
    Attempt commit(TransactionId id) throws IOException;

    /**
     * Whether the marker row written inside transaction {@code id} is visible, which proves the
     * transaction committed. The only way to tell a committed transaction from a rolled-back one
     * once its name has left the list of prepared transactions.
     */
    boolean isMarked(TransactionId id) throws IOException;

    /** Deletes this sink's marker rows older than {@code retention}; returns how many. */
    long pruneMarkers(Duration retention) throws IOException;

    @Override
    void close() throws IOException;
}
