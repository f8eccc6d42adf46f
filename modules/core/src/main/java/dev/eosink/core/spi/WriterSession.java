package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * One writer subtask's connection to the database. It holds at most one open transaction, which it
 * begins lazily at the first record of an epoch, so that an empty epoch prepares nothing.
 *
 * <p>{@link #claim}, {@link #release}, {@link #listPrepared} and {@link #rollbackPrepared} run at start
 * and between epochs (never while a transaction is open): the writer's recovery also runs at the
 * first checkpoint after a restore.
 *
 * <p>A session never reconnects on its own: if the connection of an open transaction is lost, the
 * rows of that epoch are gone, and only a replay from the last checkpoint can restore them. Every
 * method then throws, and Flink restarts the task.
 */
@PublicEvolving
public interface WriterSession<IN> extends AutoCloseable {

    /**
     * Claims the ownership guard of a subtask index of this sink (its own, or one it adopts after a
     * rescale down) for as long as the session lives. Refuses, with a message naming the sink and
     * subtask, when another live session holds it: that is a second job running with the same sink
     * id, which would roll back this job's transactions.
     *
     * @param waitMillis how long to wait for a holder that is going away (a task being restarted)
     */
    void claim(int subtask, long waitMillis) throws IOException;

    /** Releases a claim taken for an adopted subtask index once its leftovers are dealt with. */
    void release(int subtask) throws IOException;

    /** The prepared transactions of this sink id in the database, whatever subtask or run. */
    List<TransactionId> listPrepared() throws IOException;

    /** Rolls back a prepared transaction. A transaction that no longer exists is not an error. */
    void rollbackPrepared(TransactionId id) throws IOException;

    /**
     * What this sink committed, by its marker rows, in transactions named after checkpoint {@code
     * checkpointId} whose epoch began after {@code sinceEpochMillis}: the evidence that a job restored
     * from checkpoint {@code checkpointId} (taken at that time) is rewound. Empty when nothing was,
     * or when the database cannot tell. Runs at start, between epochs.
     */
    default Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis) throws IOException {
        return Optional.empty();
    }

    /**
     * Called before the first record of an epoch with the name that {@link #prepare} of this epoch
     * will receive. The name is fixed when the epoch begins: every checkpoint the writer snapshots
     * falls between two epochs, never inside one. Sessions whose transactions must be named when
     * they begin use it (XA's {@code start(xid)}); PostgreSQL names a transaction only at {@code
     * PREPARE TRANSACTION} and ignores it.
     */
    default void begin(TransactionId id) throws IOException {}

    /**
     * Adds a record to the open transaction, beginning one if none is open. The record may be
     * buffered up to the configured batch size.
     *
     * @param positionInEpoch the 0-based index of the record in this epoch, for error messages
     */
    void write(IN record, long positionInEpoch) throws IOException;

    /** Sends whatever is buffered to the database (still inside the open transaction). */
    void flush() throws IOException;

    /**
     * Ends the open transaction with a marker row naming {@code id} and prepares it, detaching it from
     * this session. Called only when the epoch wrote at least one record.
     */
    void prepare(TransactionId id, long rows) throws IOException;

    /**
     * Called once, before the first write, with what lets this session wait for the commit of its
     * own previous, prepared transaction. A session whose statements may touch rows that transaction
     * wrote (upserts) must call {@link OwnCommits#await()} before running them: see {@link
     * OwnCommits} for why such a wait can never end by itself. Inserts never touch those rows and
     * ignore it.
     */
    default void ownCommits(OwnCommits ownCommits) {}

    /** Rolls back the open, unprepared transaction if there is one. Never touches prepared ones. */
    void abortOpen() throws IOException;

    @Override
    void close() throws IOException;
}
