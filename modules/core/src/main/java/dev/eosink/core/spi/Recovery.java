/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The ownership and recovery role of a {@link WriterSession}: the guard of a subtask index, and what the
 * resource holds of the sink's transactions (the prepared ones, and the markers of committed ones).
 *
 * <p>These calls run at start and between epochs (never while the epoch's transaction is open): the
 * writer's recovery also runs at the first checkpoint after a restore. One exception: {@link #listPrepared}
 * is also called within an epoch, from the {@link OwnCommits} the session's {@link EpochWriter} calls, and
 * must then leave the open transaction alone: not run inside it (its snapshot, its locks), not interrupt a
 * statement or COPY in flight. A database session that can do one thing at a time lists on a connection of
 * its own then; one whose guard has a connection of its own (XA) runs all of these there.
 */
@PublicEvolving
public interface Recovery {

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
}
