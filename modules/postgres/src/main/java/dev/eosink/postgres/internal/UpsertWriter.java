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
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Upserts and deletes by key into the open transaction, on two paths:
 *
 * <ul>
 *   <li><b>COPY</b>: the first record of a key this subtask has never written waits in a window of
 *       {@link #WINDOW_ROWS} such keys (a later record of the key replaces it there), then streams
 *       into the table by binary COPY, in chunks, each chunk under a savepoint;
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
 *       #MAX_CHUNK_ROWS} (kept for the redo), deferred statements at most {@link #DEFER_BATCHES}
 *       batches (held ones: one row per key they touch), the filter is a fixed 4 MiB.
 * </ol>
 *
 * <p>Savepoints cost a subtransaction each; chunks are sized from the previous epoch so that an epoch
 * uses about {@link #CHUNKS_PER_EPOCH} of them (PostgreSQL tracks up to 64 per transaction cheaply).
 *
 * @param <R> the rows it writes: each its own (retained), as it may hold them until the epoch ends
 */
final class UpsertWriter<R> {

    /** New keys held back before COPY, where later writes of theirs are merged: see {@link #window}. */
    static final int WINDOW_ROWS = 16_384;

    static final int MIN_CHUNK_ROWS = 10_000;
    static final int MAX_CHUNK_ROWS = 50_000;
    static final int CHUNKS_PER_EPOCH = 32;
    /** Statements wait for the previous commit, while COPY goes on, for at most this many batches. */
    static final int DEFER_BATCHES = 8;
    /** After failed chunks, COPY pauses for chunk size x 2^failures records, at most 2^6 chunks. */
    private static final int MAX_PAUSE_SHIFT = 6;

    private static final String SAVEPOINT = "eosink_copy_chunk";

    private final Connection connection;
    private final IoWatchdog io;
    private final UpsertBuffer<R> statements;
    /** Null when a column has no binary COPY encoder: then every record goes to statements. */
    private final CopyStream<R> copy;

    private final int batchSize;
    private final KeyFilter written;
    private OwnCommits ownCommits = OwnCommits.NONE;
    /**
     * The wait for the previous commit said no in this epoch: statements are held (past the barrier,
     * if need be) until {@link OwnCommits#pending()} turns false; until then, adding a record does not
     * ask again.
     */
    private boolean held;

    private Statement control;

    /**
     * New keys' rows not sent yet, oldest first: a later write of such a key replaces its row here,
     * so keys that change again soon (hot keys of a changelog) reach the table once, by COPY.
     */
    private final KeyWindow<R> window = new KeyWindow<>(WINDOW_ROWS);

    private final List<R> chunk = new ArrayList<>();
    private long[] chunkPositions = new long[1024];
    /**
     * The smallest and largest position in the chunk: the window reorders rows (a merged row keeps
     * its key's place but takes the latest position), so the first and last slots need not hold them.
     */
    private long chunkFirst;

    private long chunkLast;
    private int chunkLimit = MIN_CHUNK_ROWS;
    private int failedChunksInARow;
    /** Records of new keys still to route to statements after failed chunks. */
    private long copyPausedFor;

    private long copiedInEpoch;
    private long chunksInEpoch;
    private long redoneInEpoch;

    /**
     * @param on the session's connection, with the IO watchdog that bounds every statement on it
     * @param copy the COPY stream of the keys never written, on the same connection; null: statements only
     */
    UpsertWriter(
            WatchedConnection on, UpsertBuffer<R> statements, CopyStream<R> copy, int batchSize, KeyFilter written) {
        this.connection = on.connection();
        this.io = on.io();
        this.statements = statements;
        this.copy = copy;
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
        if (neverWritten && !delete && copy != null) {
            if (copyPausedFor == 0) {
                toWindow(key, hash, row, position);
                return;
            }
            copyPausedFor--;
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
        return copy == null || copyPausedFor > 0 ? batchSize : Math.max(batchSize, chunkLimit / 4);
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
        if (copiedInEpoch > 0) {
            chunkLimit = (int) Math.max(MIN_CHUNK_ROWS, Math.min(MAX_CHUNK_ROWS, copiedInEpoch / CHUNKS_PER_EPOCH));
        }
        copiedInEpoch = 0;
        chunksInEpoch = 0;
        redoneInEpoch = 0;
    }

    /** What this epoch did, for the session's log line. */
    String epochSummary() {
        return copiedInEpoch + " row(s) by COPY in " + chunksInEpoch + " chunk(s), " + redoneInEpoch
                + " chunk(s) redone as upserts";
    }

    /** The open transaction is being rolled back: forget what is buffered. */
    boolean abort() {
        window.clear();
        chunk.clear();
        statements.clear();
        return copy == null || copy.cancel();
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
            addToChunk(window.polledRow(), window.polledPosition());
        }
    }

    private void addToChunk(R row, long position) throws Failure, IOException {
        if (chunk.isEmpty()) {
            startChunk(position);
        }
        if (chunk.size() == chunkPositions.length) {
            chunkPositions = java.util.Arrays.copyOf(chunkPositions, chunkPositions.length * 2);
        }
        chunkPositions[chunk.size()] = position;
        if (chunk.isEmpty()) {
            chunkFirst = position;
            chunkLast = position;
        } else {
            chunkFirst = Math.min(chunkFirst, position);
            chunkLast = Math.max(chunkLast, position);
        }
        chunk.add(row);
        try {
            copy.add(row);
        } catch (SQLException e) {
            // The server refused an earlier row of the chunk (COPY streams ahead of its answers).
            chunkFailed(e);
            return;
        } catch (RuntimeException e) {
            // The encoder refused a value (a wrong Java type, a value out of range) before sending it.
            throw new Failure(e, position, position, null, statements.show(row));
        }
        if (chunk.size() >= chunkLimit) {
            endChunk();
        }
    }

    private void startChunk(long position) throws Failure, IOException {
        try {
            control("SAVEPOINT " + SAVEPOINT);
            copy.start();
        } catch (SQLException e) {
            throw new Failure(e, position, position, "starting a COPY chunk failed");
        }
    }

    private void endChunk() throws Failure, IOException {
        if (chunk.isEmpty()) {
            return;
        }
        long stored;
        try {
            stored = copy.end();
        } catch (SQLException e) {
            chunkFailed(e);
            return;
        }
        if (stored != chunk.size()) {
            // Never go on with what does not match what was handed over.
            throw new IllegalStateException("COPY stored " + stored + " rows of a chunk of " + chunk.size());
        }
        try {
            control("RELEASE SAVEPOINT " + SAVEPOINT);
        } catch (SQLException e) {
            throw new Failure(e, chunkFirst, chunkLast, "ending a COPY chunk failed");
        }
        copiedInEpoch += stored;
        chunksInEpoch++;
        failedChunksInARow = 0;
        chunk.clear();
    }

    /**
     * The chunk's COPY failed (it is cancelled already). A unique violation means a key new to this
     * subtask exists in the table: undo the chunk and upsert its rows instead. Anything else is the
     * row's own fault and fails the epoch, naming the row.
     */
    private void chunkFailed(SQLException e) throws Failure, IOException {
        int rows = chunk.size();
        long first = chunkFirst;
        long last = chunkLast;
        if (!"23505".equals(e.getSQLState()) || !copy.cancel()) {
            java.util.OptionalLong line = CopyStream.failedRow(e); // 0-based within this chunk's COPY
            if (line.isPresent() && line.getAsLong() < rows) {
                int refused = (int) line.getAsLong();
                long position = chunkPositions[refused];
                R row = chunk.get(refused); // the chunk keeps its rows, so the message can show it
                chunk.clear();
                throw new Failure(e, position, position, null, statements.show(row));
            }
            chunk.clear();
            throw new Failure(e, first, last, "the database did not name the row of the COPY chunk");
        }
        try {
            control("ROLLBACK TO SAVEPOINT " + SAVEPOINT);
            control("RELEASE SAVEPOINT " + SAVEPOINT);
            for (int from = 0; from < chunk.size(); from += MIN_CHUNK_ROWS) {
                List<R> slice = chunk.subList(from, Math.min(chunk.size(), from + MIN_CHUNK_ROWS));
                io.call("upserting a COPY chunk's rows", () -> {
                    statements.upsertRows(connection, slice);
                    return null;
                });
            }
        } catch (SQLException redo) {
            chunk.clear();
            throw new Failure(
                    redo,
                    first,
                    last,
                    "these records' rows went by COPY, which a unique index refused, "
                            + "and one statement upserts them again");
        }
        redoneInEpoch++;
        failedChunksInARow++;
        copyPausedFor = (long) chunkLimit << Math.min(failedChunksInARow - 1, MAX_PAUSE_SHIFT);
        chunk.clear();
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

    private void control(String sql) throws SQLException {
        if (control == null) {
            control = connection.createStatement();
        }
        io.call(sql, () -> control.execute(sql));
    }
}
