/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.spi.OwnCommits;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.postgres.carried.CarriedStatements;

import org.apache.flink.types.RowKind;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Upserts and deletes by key into the open transaction, on two paths:
 *
 * <ul>
 *   <li><b>COPY</b>: the first record of a key this subtask has never written waits in a window of
 *       {@link #WINDOW_ROWS} such keys (a later record of the key replaces it there), then streams
 *       into the table by binary COPY, in chunks, each chunk under a savepoint ({@link CopyChunks});
 *   <li><b>statements</b>: every other record (a key written before, a delete, which an UPDATE_BEFORE
 *       is here ({@link #add}), any record while COPY is paused) goes to {@link UpsertBuffer}'s
 *       array-bound {@code INSERT ... ON CONFLICT DO UPDATE} and {@code DELETE}.
 * </ul>
 *
 * <p>Why: PostgreSQL's conflict check makes {@code INSERT ... ON CONFLICT} about twice as expensive
 * on the server as COPY (measured, docs/design-and-recovery.md "Trade-offs"), yet in most upsert streams most records
 * bring a key the table has never seen. COPY cannot update, so it only gets keys that are new to
 * this subtask, and when one of them exists in the table after all (written before the job, by an
 * earlier run or by someone else), the COPY fails on the unique index, the savepoint undoes the
 * chunk, and the chunk is done again as upserts. The end state is the one of plain upserts.
 *
 * <p>Keys are compared in the form {@link UpsertBuffer#keyOf} gives them, which must be the unique
 * index's equality exactly: the filter, the window and the one-row-per-key rule of a statement all
 * rely on it. Where no Java form is exact (citext, nondeterministic collations: {@link KeyColumns}),
 * the writer has no COPY, so neither the filter nor the window decides anything, and each statement
 * merges the batch's records by the database's own equality.
 *
 * <p>Invariants:
 *
 * <ol>
 *   <li>Per key, writes apply in record order. A key goes to the window only if {@link KeyFilter} is
 *       sure this subtask never wrote it (the filter's errors only ever say "perhaps written"); a later
 *       record of it replaces its row while it is in the window (a delete drops it and still goes to
 *       statements, the key may predate the job), else goes to statements. The open chunk is ended (and
 *       redone if it failed) before any statement runs, so a key's COPY row always lands before its
 *       later writes.
 *   <li>Statements may touch rows of this subtask's previous epoch, locked until that prepared
 *       transaction commits; they run only after {@link OwnCommits#await()} (see there for why: an
 *       upsert would wait for that commit, a delete would not even see a row that transaction
 *       inserted, and miss it). When that commit can only come with a later checkpoint (the wait
 *       says no), they are held past the barrier, in checkpoint state ({@link #carried()}), and run
 *       in a later epoch, after the commit. COPY never touches those rows (their keys are in the
 *       filter), so it goes on while the commit is pending, and statements are deferred meanwhile,
 *       up to a bound (unless they are held: then until the commit, whatever their number).
 *   <li>The filter is only cleared when nothing is buffered (window, chunk, statements) and the
 *       previous transaction is committed: from then on a key still gets its writes in order
 *       (nothing of it is pending), and a COPY of an already written key fails and is redone; it
 *       never waits for a lock of our own.
 *   <li>Memory is bounded: the window holds {@link #WINDOW_ROWS} rows, a chunk at most {@link
 *       CopyChunks#MAX_CHUNK_ROWS} (kept for the redo), deferred statements at most {@link #DEFER_BATCHES}
 *       batches (held ones: one row per key they touch), the filter is a fixed 4 MiB.
 * </ol>
 *
 * <p>Savepoints cost a subtransaction each; chunks are sized from the previous epoch so that an epoch
 * uses about {@link CopyChunks#CHUNKS_PER_EPOCH} of them (PostgreSQL tracks up to 64 per transaction cheaply).
 *
 * @param <R> the rows it writes: each its own (retained), as it may hold them until the epoch ends
 */
final class UpsertWriter<R> {

    /** New keys held back before COPY, where later writes of theirs are merged: see {@link #window}. */
    static final int WINDOW_ROWS = 16_384;

    /** Statements wait for the previous commit, while COPY goes on, for at most this many batches. */
    static final int DEFER_BATCHES = 8;

    private final Connection connection;
    private final IoWatchdog io;
    private final UpsertBuffer<R> statements;
    /** Null when a column has no binary COPY encoder: then every record goes to statements. */
    private final CopyChunks<R> chunks;

    private final int batchSize;
    private final KeyFilter written;
    private OwnCommits ownCommits = OwnCommits.NONE;
    /**
     * The wait for the previous commit said no in this epoch: statements are held (past the barrier,
     * if need be) until {@link OwnCommits#pending()} turns false; until then, adding a record does not
     * ask again.
     */
    private boolean held;

    /**
     * New keys' rows not sent yet, oldest first: a later write of such a key replaces its row here,
     * so keys that change again soon (hot keys of a changelog) reach the table once, by COPY.
     */
    private final KeyWindow<R> window = new KeyWindow<>(WINDOW_ROWS);

    /**
     * @param on the session's connection, with the IO watchdog that bounds every statement on it
     * @param copy the COPY stream of the keys never written, on the same connection; null: statements only
     */
    UpsertWriter(
            WatchedConnection on, UpsertBuffer<R> statements, CopyStream<R> copy, int batchSize, KeyFilter written) {
        this.connection = on.connection();
        this.io = on.io();
        this.statements = statements;
        this.chunks = copy == null ? null : new CopyChunks<>(on, statements, copy);
        this.batchSize = batchSize;
        this.written = written;
    }

    void ownCommits(OwnCommits ownCommits) {
        this.ownCommits = ownCommits;
    }

    /** A write failed: the database's error (or the encoder's) and where in the epoch. */
    static final class Failure extends Exception {
        final Exception error;
        final long first;
        final long last;
        /** Null when the row is known exactly (first == last). */
        final String unknownBecause;
        /** The refused row, as messages show it, when it is at hand (an encoder's refusal); else null. */
        final String row;

        Failure(Exception error, long first, long last, String unknownBecause) {
            this(error, first, last, unknownBecause, null);
        }

        Failure(Exception error, long first, long last, String unknownBecause, String row) {
            super(error.getMessage(), error, false, false);
            this.error = error;
            this.first = first;
            this.last = last;
            this.unknownBecause = unknownBecause;
            this.row = row;
        }
    }

    /**
     * Adds a record. DELETE and UPDATE_BEFORE delete the key: Flink's planner sends an UPDATE_BEFORE
     * without its UPDATE_AFTER when the key leaves a query's result (a filter after an aggregate), and
     * when the UPDATE_AFTER (or an INSERT) follows, it replaces the delete as any later record of a key
     * does. So an UPDATE_BEFORE takes a delete's path in every respect (window, filter, own commits).
     */
    void add(R row, RowKind kind, long position) throws Failure, IOException {
        boolean delete = kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE;
        Object key = statements.keyOf(row);
        long hash = KeyFilter.hash(key);
        boolean neverWritten = written.add(hash); // deletes too: a later insert must follow the delete
        if (neverWritten && !delete && chunks != null) {
            if (chunks.takesNewKey()) {
                toWindow(key, hash, row, position);
                return;
            }
        } else if (!neverWritten && !window.isEmpty()) {
            int held = window.find(key, hash);
            if (held >= 0) {
                if (delete) {
                    // Never sent: drop it. The delete still runs, the key may have been in the table before.
                    window.remove(held);
                } else {
                    window.replace(held, row, position); // the key's first write, not sent yet, becomes its latest
                    return;
                }
            }
        }
        statements.add(key, row, delete, position);
        int due = statementBatch();
        if (statements.size() >= due
                && (held ? heldMayRun() : statements.size() >= DEFER_BATCHES * due || !ownCommits.pending())) {
            runStatements();
            if (written.saturated() && !ownCommits.pending()) {
                clearFilter();
            }
        }
    }

    /**
     * Whether held statements may run now: nothing is pending any more, or a look at the database is due
     * and shows the commit they wait for. The look runs on a connection of its own, so the COPY chunk in
     * flight goes on; only statements that may run end it.
     */
    private boolean heldMayRun() throws IOException {
        return !ownCommits.pending() || ownCommits.lookDue() && ownCommits.await();
    }

    /**
     * How many keys the statements gather before they run. Running them ends the open chunk, and
     * every end of a chunk waits for the server to catch up with the stream (a pipeline bubble), so
     * with COPY on they gather a quarter chunk; on their own, the builder's batch size.
     */
    private int statementBatch() {
        return chunks == null || chunks.paused() ? batchSize : Math.max(batchSize, chunks.limit() / 4);
    }

    /**
     * Sends everything: ends the chunk, runs the statements (after the previous commit). Statements
     * that must wait for a commit that only a later checkpoint brings stay held: see {@link #carried()}.
     */
    void flush() throws Failure, IOException {
        while (!window.isEmpty()) {
            sendEldest();
        }
        endChunk();
        runStatements();
    }

    /**
     * The statements held past the barrier that just prepared the epoch, encoded for checkpoint state
     * ({@link CarriedStatements}); empty when none are. They stay buffered, and run in a later epoch
     * once the commit they wait for is done.
     */
    Optional<byte[]> carried() {
        return statements.carried();
    }

    /** Whether statements are buffered between epochs, held past the last barrier. */
    boolean holdsWrites() {
        return statements.size() > 0;
    }

    /** How many statements (one per key) are buffered between epochs, held past the last barrier. */
    int heldWrites() {
        return statements.size();
    }

    /** Runs statements carried in a restored checkpoint's state, in the open transaction, before any record. */
    void executeCarried(byte[] bytes) throws SQLException, IOException {
        CarriedStatements carried = statements.readCarried(bytes);
        io.call("writing carried statements", () -> {
            statements.executeCarried(connection, carried);
            return null;
        });
    }

    /**
     * Starts the filter afresh, mid-epoch, once its answers turned mostly "perhaps written". Only here:
     * the previous transaction is committed (nothing of ours is locked but by this very transaction,
     * where a COPY of a key it wrote fails at once and is redone), and the window is sent and the chunk
     * ended first, so that nothing of any key is pending (see invariant 3). Never at a flush before
     * PREPARE: that epoch's keys stay locked until its commit, and a COPY of one would wait for it.
     */
    private void clearFilter() throws Failure, IOException {
        while (!window.isEmpty()) {
            sendEldest();
        }
        endChunk();
        if (statements.size() == 0) { // always, as statements just ran; a redone chunk runs its own
            written.clear();
        }
    }

    /**
     * After the epoch is prepared: sizes the next epoch's chunks from this one's COPY rows. It never
     * clears the filter (see {@link #clearFilter}).
     */
    void epochPrepared() {
        held = false; // the next epoch waits for this one's commit, asking afresh
        statements.carriedIntoNextEpoch();
        if (chunks != null) {
            chunks.epochPrepared();
        }
    }

    /** What this epoch did, for the session's log line. */
    String epochSummary() {
        return chunks == null ? CopyChunks.summary(0, 0, 0) : chunks.epochSummary();
    }

    /** The open transaction is being rolled back: forget what is buffered. */
    boolean abort() {
        window.clear();
        statements.clear();
        return chunks == null || chunks.abort();
    }

    /** A new key's row, held back {@link #WINDOW_ROWS} new keys long, then streamed by COPY. */
    private void toWindow(Object key, long hash, R row, long position) throws Failure, IOException {
        if (window.isFull()) {
            sendEldest();
        }
        window.add(key, hash, row, position);
    }

    private void sendEldest() throws Failure, IOException {
        if (window.pollEldest()) {
            chunks.add(window.polledRow(), window.polledPosition());
        }
    }

    /** Ends the open COPY chunk, if any: before any statement runs (see invariant 1). */
    private void endChunk() throws Failure, IOException {
        if (chunks != null) {
            chunks.end();
        }
    }

    private void runStatements() throws Failure, IOException {
        if (statements.size() == 0) {
            return;
        }
        endChunk();
        if (!ownCommits.await()) {
            // The commit comes only with a later checkpoint, which this very thread holds up: an
            // upsert would wait for its locks, a delete would not see the rows it inserted and miss
            // them. Hold the statements, past the barrier if need be (add() asks again only once
            // nothing is pending, or a look at the database shows the commit, so a held batch does not
            // end a chunk per record).
            held = true;
            return;
        }
        held = false;
        long first = statements.firstPosition();
        long last = statements.lastPosition();
        try {
            io.call("upserting a batch", () -> {
                statements.execute(connection);
                return null;
            });
        } catch (SQLException e) {
            throw new Failure(e, first, last, "one statement upserts the whole batch (the last record of each key)");
        }
    }
}
