/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;

/**
 * The epoch role of a {@link WriterSession}: one open transaction at a time, which it begins lazily at the
 * first record of an epoch, so that an empty epoch prepares nothing, and ends by preparing it at the barrier.
 *
 * <p>It never reconnects on its own: if the connection of an open transaction is lost, the rows of that
 * epoch are gone, and only a replay from the last checkpoint can restore them. Every method then throws,
 * and Flink restarts the task.
 *
 * @param <IN> the records the sink writes
 */
@PublicEvolving
public interface EpochWriter<IN> {

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
     * record, or wrote held writes alone ({@link HeldWrites#holdsWrites()}).
     *
     * <p>When the session holds writes past this barrier ({@link HeldWrites#holdsWrites()} is true at this
     * call: they go into this checkpoint's writer state, {@link HeldWrites#carried()}), the transaction also
     * records that, with how many, so that once it committed {@link CarriedLedger#openCarried()} shows them
     * until they are written (the transaction of the epoch that writes them removes the record, as {@link
     * HeldWrites#applyCarried} and {@link CarriedLedger#closeCarried} do): a run started without that writer
     * state must not go on as if they were written.
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
}
