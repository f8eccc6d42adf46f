/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.postgres.internal.UpsertWriter.Failure;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * The COPY path of an {@link UpsertWriter}: the rows of keys new to this subtask stream into the table by
 * binary COPY in chunks, each chunk under a savepoint. When a chunk's COPY fails on the unique index (a key
 * new to this subtask exists in the table after all), the savepoint undoes the chunk and its rows are upserted
 * instead; after failed chunks, COPY pauses for a while ({@link #takesNewKey}), and the writer sends new keys
 * to statements meanwhile.
 *
 * <p>Invariants: a chunk is ended, or undone and redone, before the writer runs any statement, so a key's
 * COPY row always lands before its later writes; a chunk holds at most {@link #MAX_CHUNK_ROWS} rows, kept
 * for the redo and for naming a refused row; what COPY stored is checked against what it was handed, and a
 * chunk that does not match fails the writer. Savepoints cost a subtransaction each; chunks are sized from
 * the previous epoch so that an epoch uses about {@link #CHUNKS_PER_EPOCH} of them (PostgreSQL tracks up to
 * 64 per transaction cheaply).
 *
 * @param <R> the rows it writes, kept until their chunk is ended
 */
final class CopyChunks<R> {

    static final int MIN_CHUNK_ROWS = 10_000;
    static final int MAX_CHUNK_ROWS = 50_000;
    static final int CHUNKS_PER_EPOCH = 32;
    /** After failed chunks, COPY pauses for chunk size x 2^failures records, at most 2^6 chunks. */
    private static final int MAX_PAUSE_SHIFT = 6;

    private static final String SAVEPOINT = "eosink_copy_chunk";

    private final Connection connection;
    private final IoWatchdog io;
    /** Upserts the rows of a failed chunk again, and shows a refused row in messages. */
    private final UpsertBuffer<R> statements;

    private final CopyStream<R> copy;

    private Statement control;

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
     * @param statements the writer's statements, which redo a failed chunk
     * @param copy the COPY stream of the keys never written, on the same connection
     */
    CopyChunks(WatchedConnection on, UpsertBuffer<R> statements, CopyStream<R> copy) {
        this.connection = on.connection();
        this.io = on.io();
        this.statements = statements;
        this.copy = copy;
    }

    /**
     * Whether the record of a key new to this subtask goes to COPY: not while COPY pauses after failed
     * chunks, a pause this record counts down.
     */
    boolean takesNewKey() {
        if (copyPausedFor == 0) {
            return true;
        }
        copyPausedFor--;
        return false;
    }

    /** Whether COPY pauses after failed chunks: new keys go to statements. */
    boolean paused() {
        return copyPausedFor > 0;
    }

    /** How many rows a chunk takes in this epoch, sized from the previous one's. */
    int limit() {
        return chunkLimit;
    }

    /** Adds a row to the open chunk (starting one if none is), and ends the chunk once it is full. */
    void add(R row, long position) throws Failure, IOException {
        if (chunk.isEmpty()) {
            start(position);
        }
        if (chunk.size() == chunkPositions.length) {
            chunkPositions = Arrays.copyOf(chunkPositions, chunkPositions.length * 2);
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
            failed(e);
            return;
        } catch (RuntimeException e) {
            // The encoder refused a value (a wrong Java type, a value out of range) before sending it.
            throw new Failure(e, position, position, null, statements.show(row));
        }
        if (chunk.size() >= chunkLimit) {
            end();
        }
    }

    private void start(long position) throws Failure, IOException {
        try {
            control("SAVEPOINT " + SAVEPOINT);
            copy.start();
        } catch (SQLException e) {
            throw new Failure(e, position, position, "starting a COPY chunk failed");
        }
    }

    /** Ends the open chunk, if one is: its rows are stored, or, after a unique violation, upserted again. */
    void end() throws Failure, IOException {
        if (chunk.isEmpty()) {
            return;
        }
        long stored;
        try {
            stored = copy.end();
        } catch (SQLException e) {
            failed(e);
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
    private void failed(SQLException e) throws Failure, IOException {
        int rows = chunk.size();
        long first = chunkFirst;
        long last = chunkLast;
        if (!"23505".equals(e.getSQLState()) || !copy.cancel()) {
            OptionalLong line = CopyStream.failedRow(e); // 0-based within this chunk's COPY
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

    /** After the epoch is prepared: sizes the next epoch's chunks from this one's COPY rows. */
    void epochPrepared() {
        if (copiedInEpoch > 0) {
            chunkLimit = (int) Math.max(MIN_CHUNK_ROWS, Math.min(MAX_CHUNK_ROWS, copiedInEpoch / CHUNKS_PER_EPOCH));
        }
        copiedInEpoch = 0;
        chunksInEpoch = 0;
        redoneInEpoch = 0;
    }

    /** What this epoch did, for the session's log line. */
    String epochSummary() {
        return summary(copiedInEpoch, chunksInEpoch, redoneInEpoch);
    }

    /** An epoch's COPY as the session's log line says it; a writer without COPY says it did none. */
    static String summary(long copied, long chunks, long redone) {
        return copied + " row(s) by COPY in " + chunks + " chunk(s), " + redone + " chunk(s) redone as upserts";
    }

    /** The open transaction is being rolled back: forget the chunk; false when the COPY could not be cancelled. */
    boolean abort() {
        chunk.clear();
        return copy.cancel();
    }

    private void control(String sql) throws SQLException {
        if (control == null) {
            control = connection.createStatement();
        }
        io.call(sql, () -> control.execute(sql));
    }
}
