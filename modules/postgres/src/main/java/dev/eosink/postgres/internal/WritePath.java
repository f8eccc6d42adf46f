/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.jdbc.sql.CarriedStatementsRefused;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Optional;

/**
 * One way of writing records into a writer session's open transaction: JDBC batches ({@link
 * BatchPath}, or {@link DeadLetterBatchPath} keeping refused records), binary COPY ({@link CopyPath}),
 * or upserts and deletes by key ({@link UpsertPath}). The session opens one from its {@link WritePlan}
 * and keeps it for its life. The session owns the transaction (begin, marker row, PREPARE, rollback);
 * the path owns what travels inside it.
 *
 * <p>Each path holds what its error messages need (the records of the batch not yet executed, the
 * records COPY sent last) and throws its failures as the error the user reads ({@link WriteErrors}),
 * a {@link dev.eosink.core.SinkException}.
 * Calls follow the epoch: {@link #begin}, then {@link #write} and {@link #flush}, then {@link #end}
 * before PREPARE, or {@link #abort} at any point.
 *
 * @param <IN> the records the sink writes
 */
sealed interface WritePath<IN> permits BatchPath, CopyPath, UpsertPath, TablesPath {

    /** The epoch's transaction begins (autocommit just turned off): forget the previous epoch. */
    void begin() throws SQLException;

    /** Adds a record at {@code positionInEpoch} to the transaction, or buffers it. */
    void write(IN record, long positionInEpoch) throws IOException;

    /** Sends what is buffered, still inside the open transaction. */
    void flush() throws IOException;

    /**
     * Before the marker row and PREPARE: sends everything, and refuses when the server stored other
     * than the epoch's {@code rows}, where the path can tell.
     */
    void end(TransactionId id, long rows) throws IOException;

    /**
     * Writes into the transaction what the path kept aside (refused records), just before the marker
     * row: a failure here fails the prepare.
     */
    default void writeKept(TransactionId id) throws SQLException {}

    /**
     * The epoch is prepared. Returns what it did, for the session's debug line, when the path has more
     * to say than the rows.
     */
    default Optional<String> prepared() {
        return Optional.empty();
    }

    /** See {@link dev.eosink.core.spi.EpochWriter#ownCommits}: only upserts wait for them. */
    default void ownCommits(OwnCommits ownCommits) {}

    /** See {@link dev.eosink.core.spi.HeldWrites#carried()}: only upserts hold statements past a barrier. */
    default Optional<byte[]> carried() {
        return Optional.empty();
    }

    /** Whether {@link #carried()} would hold anything; cheap. */
    default boolean holdsWrites() {
        return heldWrites() > 0;
    }

    /** How many writes (one per key) {@link #carried()} would hold; cheap. */
    default int heldWrites() {
        return 0;
    }

    /**
     * Writes what a restored checkpoint's state carried ({@link #carried()}) into the open transaction,
     * before any record.
     *
     * @throws CarriedStatementsRefused when this path carries nothing, or the bytes do not fit its table
     */
    default void writeCarried(byte[] carried) throws SQLException, IOException {
        throw new CarriedStatementsRefused(
                "this sink does not upsert, yet the restored state carries upserts or deletes: "
                        + "restore with the sink's write mode of the job that took the checkpoint");
    }

    /**
     * Forgets the open epoch's writes; the transaction is rolled back next. Returns false when the
     * connection can run no statement any more (a COPY that could not be cancelled): the session must
     * then be ended without one.
     */
    boolean abort();
}
