package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * One writer subtask's session on the database (or other resource: see the package documentation). It
 * holds at most one open transaction, which it begins lazily at the first record of an epoch, so that
 * an empty epoch prepares nothing.
 *
 * <p>{@link #claim}, {@link #release}, {@link #listPrepared} and {@link #rollbackPrepared} run at start
 * and between epochs (never while a transaction is open): the writer's recovery also runs at the
 * first checkpoint after a restore. One exception: {@link #listPrepared} is also called within an epoch,
 * from the {@link OwnCommits} the session itself calls, and must then leave the open transaction alone:
 * not run inside it (its snapshot, its locks), not interrupt a statement or COPY in flight. A database
 * session that can do one thing at a time lists on a connection of its own then.
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
     * id, which would roll back this job's transactions. The guard must be freed when its holder dies,
     * however it dies (PostgreSQL: a session-level advisory lock; files: an operating-system file lock).
     * Claiming an index the session already holds does nothing.
     *
     * @param waitMillis how long to wait for a holder that is going away (a task being restarted)
     */
    void claim(int subtask, long waitMillis) throws IOException;

    /** Releases a claim taken for an adopted subtask index once its leftovers are dealt with. */
    void release(int subtask) throws IOException;

    /** The prepared transactions of this sink id in the database, whatever subtask or run. */
    List<TransactionId> listPrepared() throws IOException;

    /**
     * Rolls back a prepared transaction: discards its writes and its marker for good. A transaction
     * that no longer exists is not an error.
     */
    void rollbackPrepared(TransactionId id) throws IOException;

    /**
     * What this sink committed, by its markers, in transactions whose epoch began after {@code
     * sinceEpochMillis} and that are named after checkpoint {@code checkpointId} or, when {@code takenBy}
     * names the execution tag of the writers that took that checkpoint, named by any other execution at
     * any checkpoint (another line of history, a fresh start of the job above all, numbers its checkpoints
     * from 1 again): the evidence that a job restored from checkpoint {@code checkpointId} (taken at that
     * time) is rewound. Empty when nothing was, or when the database cannot tell. Runs at start, between
     * epochs.
     */
    default Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws IOException {
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

    /** Sends whatever is buffered to the database (still inside the open transaction, still invisible). */
    void flush() throws IOException;

    /**
     * Ends the open transaction with its marker (a marker row naming {@code id}; whatever will prove,
     * once {@code id} is no longer prepared, that it committed) and prepares it: durable, and committable
     * by {@code id} from any session. It is detached from this session: a crash of the task, or of the
     * whole machine, after this returns leaves it prepared. Called only when the epoch wrote at least one
     * record, or wrote held writes alone ({@link #holdsWrites()}).
     *
     * <p>When the session holds writes past this barrier ({@link #holdsWrites()} is true at this call: they
     * go into this checkpoint's writer state, {@link #carried()}), the transaction also records that, with
     * how many, so that once it committed {@link #openCarried()} shows them until they are written (the
     * transaction of the epoch that writes them removes the record, as {@link #applyCarried} and {@link
     * #closeCarried} do): a run started without that writer state must not go on as if they were written.
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

    /**
     * The writes this session holds past the barrier that just prepared its transaction, encoded as
     * it likes; empty when it holds none. Only a session that {@link OwnCommits#await() waits} for its
     * own commits holds any: writes that must follow the commit of an earlier transaction of this
     * writer, when that commit comes only with a later checkpoint (the earlier one's was aborted, or
     * was a plain savepoint). The writer keeps them in the checkpoint's state, and the session writes
     * them into a later epoch once that commit is done. Called when Flink snapshots the writer, right
     * after {@link #prepare} (or after {@link #flush} when the epoch wrote nothing), and at the end of
     * input, where writes still held could never be written.
     */
    default Optional<byte[]> carried() throws IOException {
        return Optional.empty();
    }

    /**
     * Whether the session holds writes past the last barrier, what {@link #carried()} would encode;
     * cheap, asked at every flush. When it does and they may run, the writer begins an epoch for them
     * even if no record comes ({@link #begin}, then {@link #flush}, then {@link #prepare} with 0 rows).
     */
    default boolean holdsWrites() {
        return false;
    }

    /**
     * Writes what a writer of this sink carried in a restored checkpoint's state ({@link #carried()}),
     * in a transaction of its own, committed before it returns, which also removes what the resource records of
     * the carried writes of subtask index {@code subtask}, so that {@link #openCarried()} no longer shows them.
     * Runs at start, before the first record, once no transaction of the writer that carried them is
     * prepared any more (the restored committers committed those its checkpoint promised, recovery rolled
     * back the rest), and before any checkpoint of the run: a write of the same key that the restored
     * sources replay comes later, and no epoch of the run commits before it. After a rescale, another
     * subtask may own those keys now; a session refuses, rather than waits, when such a write got there
     * first (see the implementation).
     *
     * @param subtask the subtask index of the writer that carried them
     * @param origin the snapshot that carried them, for messages
     * @throws IOException when the writes fail; nothing of them is committed then
     */
    default void applyCarried(byte[] carried, int subtask, String origin) throws IOException {
        throw new IOException(origin + " carries writes, but " + getClass().getName() + " carries none and cannot "
                + "apply them: restore the checkpoint with the sink that took it");
    }

    /**
     * What the resource records of writes carried past a barrier and not written since (see {@link #prepare}):
     * one notice per committed transaction that recorded carried writes, of any subtask index of this sink id,
     * until they are written or given up. Runs at start, between epochs, and within one (at the end of input:
     * then without touching the epoch's transaction). The default, for resources whose sessions never carry
     * writes, is none.
     */
    default List<CarriedNotice> openCarried() throws IOException {
        return List.of();
    }

    /**
     * Removes, in a transaction of its own, what the resource records of carried writes of subtask index {@code
     * subtask}: they are given up, and {@link #openCarried()} no longer shows them. For writes a restore
     * supersedes (it replays their records, or they belong to a line of history it abandons). Runs at start,
     * between epochs. The default does nothing, as {@link #openCarried()} shows nothing.
     */
    default void closeCarried(int subtask) throws IOException {}

    /**
     * Bytes written into the open transaction's stream that the server has not yet confirmed it read
     * (PostgreSQL's COPY: sent, minus what {@code pg_stat_progress_copy} last showed processed), for the
     * writer's {@code copyBacklogBytes} gauge; 0 when nothing is in flight, or the session cannot tell.
     *
     * <p>Called on the metric reporter's thread, concurrently with every other method: return the last
     * known value (a volatile read), never ask the database. The default is 0.
     */
    default long backlogBytes() {
        return 0;
    }

    /** Rolls back the open, unprepared transaction if there is one. Never touches prepared ones. */
    void abortOpen() throws IOException;

    @Override
    void close() throws IOException;
}
