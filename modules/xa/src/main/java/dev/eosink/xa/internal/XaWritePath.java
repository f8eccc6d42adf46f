/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.JdbcDialect;

import org.apache.flink.runtime.execution.SuppressRestartsException;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * One way of writing an epoch's records into the open XA branch: JDBC batches of inserts ({@link
 * XaInsertPath}), the same keeping the records the database refuses for a dead-letter table ({@link
 * XaDeadLetterInsertPath}), or upserts and deletes by key ({@link XaUpsertPath}). {@link #of} chooses
 * it from the options' {@link WriteMode} when a writer opens, and its {@link XaEpochBranch} keeps it for
 * the writer's life: nothing asks for the mode again. The branch owns the XA branch (start, the marker
 * row, end, prepare, rollback), its connection and its locks; the path owns what travels inside it: its
 * statements, prepared again on each epoch connection ({@link #prepareStatements}), and its buffers.
 *
 * <p>Calls follow the epoch: {@link #begin}, then {@link #write} and {@link #flush}, then {@link
 * #writeKept} before the marker row and {@link #prepared} after PREPARE, or {@link #abort} at any point.
 * A path throws its failures as the error the user reads ({@link XaWriteErrors}). Used by the task
 * thread only.
 *
 * @param <IN> the records the sink writes
 */
sealed interface XaWritePath<IN> permits XaInsertPath, XaDeadLetterInsertPath, XaUpsertPath {

    /** The path of {@code database}'s write mode for one writer, in the database's dialect. */
    static <IN> XaWritePath<IN> of(SubtaskContext context, XaDatabase<IN> database, JdbcDialect dialect) {
        WriteMode<IN> mode = database.options().common().writeMode();
        if (mode instanceof WriteMode.Upserts<IN> upserts) {
            return new XaUpsertPath<>(context, database, dialect, upserts);
        }
        WriteMode.Inserts<IN> inserts = (WriteMode.Inserts<IN>) mode; // the other mode
        XaInsertBatch<IN> batch = XaInsertBatch.of(inserts.insert(), dialect, database.batchSize());
        if (inserts.refused() instanceof RefusedRecords.DeadLetterTable deadLetterTable) {
            return new XaDeadLetterInsertPath<>(
                    context,
                    database,
                    dialect,
                    batch,
                    new XaDeadLetters<>(dialect, inserts.insert(), deadLetterTable.table()));
        }
        return new XaInsertPath<>(database, dialect, batch);
    }

    /**
     * The session settings the path needs on a new epoch connection, set inside the call that sets the
     * connection's lock timeout, before any statement is prepared on it.
     */
    default void configure(Connection c) throws SQLException {}

    /**
     * Prepares the path's statements on a new epoch connection: they replace those of the connection
     * before, which were closed with it.
     */
    void prepareStatements(Connection c, XaIo io) throws SQLException;

    /** A branch begins: forget what the previous epoch kept aside. */
    default void begin() {}

    /**
     * Adds a record at {@code positionInEpoch} to the open branch, or buffers it.
     *
     * @param branch the open branch, for messages
     */
    void write(IN record, long positionInEpoch, TransactionId branch) throws IOException;

    /**
     * Sends what is buffered into the open branch; a path whose statements need a branch holds them
     * while none is open.
     *
     * @param branch the open branch, for messages; null when none is open
     */
    void flush(TransactionId branch) throws IOException;

    /**
     * Writes into the branch {@code id} what the path kept aside (refused records), after the last
     * {@link #flush} and just before the marker row: a failure here fails the prepare.
     */
    default void writeKept(TransactionId id) throws SinkException {}

    /** The epoch's branch is prepared. */
    default void prepared() {}

    /** Forgets the open epoch's writes; the branch is rolled back next. */
    void abort();

    /** See {@link dev.eosink.core.spi.WriterSession#ownCommits}: only upserts wait for them. */
    default void ownCommits(OwnCommits ownCommits) {}

    /** See {@link XaEpochBranch#carried()}: only upserts hold statements past a barrier. */
    default Optional<byte[]> carried() throws IOException {
        return Optional.empty();
    }

    /** Whether {@link #carried()} would hold anything; cheap. */
    default boolean holdsWrites() {
        return false;
    }

    /** How many writes (one per key) {@link #carried()} would hold; cheap. */
    default int heldWrites() {
        return 0;
    }

    /**
     * Writes what a writer of this sink carried in a restored checkpoint's state (see {@link
     * XaEpochBranch#applyCarried}); a path that carries nothing refuses for good.
     *
     * @param failed the message's start, naming the origin and the target
     */
    default void applyCarried(byte[] bytes, int subtask, String origin, String failed) throws IOException {
        throw new SuppressRestartsException(new SinkException(failed + ": this sink inserts and carries none. "
                + "Remedy: restore with the upsert sink that took the checkpoint"));
    }
}
