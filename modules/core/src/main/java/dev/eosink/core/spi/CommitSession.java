/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.time.Duration;

/**
 * One committer subtask's access to the database (or other resource): commits prepared transactions
 * that any writer session prepared. Holds no ownership guard: any committer may commit any of the
 * sink's transactions.
 */
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
     * Commits the prepared transaction {@code id}: its writes become visible, with its marker. Idempotent
     * by contract: a name no longer prepared (committed before, by this or another session, or rolled
     * back by someone else) answers {@link Attempt#NOT_FOUND}, and the protocol asks {@link #isMarked}.
     *
     * @throws RetriableCommitException when the outcome is unknown or may change: the connection
     *     broke during the call, or another session is finishing the same transaction right now
     * @throws IOException for anything else (fatal: the task fails and the restarted task retries)
     */
    Attempt commit(TransactionId id) throws IOException;

    /**
     * Whether the marker of transaction {@code id} is visible (a marker row written inside it; for files,
     * the committed file itself), which proves the transaction committed. The only way to tell a
     * committed transaction from a rolled-back one once its name has left the list of prepared
     * transactions: it must stay true for as long as a checkpoint that names {@code id} may be restored
     * (see {@link #pruneMarkers}).
     */
    boolean isMarked(TransactionId id) throws IOException;

    /**
     * Deletes this sink's markers older than {@code retention}; returns how many. The protocol calls it
     * only once no snapshot that could still be restored names them. A resource whose marker is the
     * committed data itself (a committed file) deletes nothing and returns 0.
     */
    long pruneMarkers(Duration retention) throws IOException;

    @Override
    void close() throws IOException;
}
