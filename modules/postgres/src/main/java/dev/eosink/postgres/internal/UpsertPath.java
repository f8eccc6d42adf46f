/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.postgres.RowKindFunction;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Upserts and deletes by key, through {@link UpsertWriter} (its class comment has the invariants):
 * keys this subtask never wrote by COPY, the rest as statements that wait for the subtask's own
 * previous commit. Rows are not counted at the end: an upsert of a key written before writes no new
 * row, and a batch keeps only the last record of each key.
 *
 * @param <R> the records' rows, which the writer holds (made of retained records) until they are sent
 */
final class UpsertPath<IN, R> implements WritePath<IN> {

    private final TableRows<IN, R> rows;
    private final RowKindFunction<IN> rowKind;
    private final UpsertWriter<R> upserts;
    private final WriteErrors errors;

    UpsertPath(
            WritePlan.Resources session, TableRows<IN, R> rows, RowKindFunction<IN> rowKind, UpsertWriter<R> upserts) {
        this.rows = rows;
        this.rowKind = rowKind;
        this.upserts = upserts;
        this.errors = session.errors();
    }

    @Override
    public void begin() {}

    @Override
    public void write(IN record, long positionInEpoch) throws SinkException {
        try {
            upserts.add(rows.row(rows.retain(record)), rowKind.kindOf(record), positionInEpoch);
        } catch (UpsertWriter.Failure f) {
            throw f.unknownBecause == null && f.first == positionInEpoch
                    ? errors.writeFailed(f.error, FailurePosition.exact(positionInEpoch, rows.shown(record)))
                    : failed(f);
        } catch (IOException e) {
            // Not about the record: the writer's look at the database for the commit its statements wait
            // for failed (OwnCommits), and says so itself.
            throw e instanceof SinkException ? (SinkException) e : new SinkException(e.getMessage(), e);
        } catch (Exception e) {
            throw errors.writeFailed(e, FailurePosition.exact(positionInEpoch, rows.shown(record)));
        }
    }

    @Override
    public void flush() throws IOException {
        try {
            upserts.flush();
        } catch (UpsertWriter.Failure f) {
            throw failed(f);
        }
    }

    /** A failure about an earlier record than the one being written: it names what it has of it. */
    private SinkException failed(UpsertWriter.Failure f) {
        FailurePosition where = f.unknownBecause != null
                ? FailurePosition.batch(f.first, f.last, f.unknownBecause)
                : f.row != null
                        ? FailurePosition.exact(f.first, "row " + f.row)
                        : FailurePosition.row(f.first, f.error);
        return errors.writeFailed(f.error, where);
    }

    @Override
    public void end(TransactionId id, long rows) throws IOException {
        flush();
    }

    /** The epoch's COPY and statements, for the session's debug line; sizes the next epoch's chunks. */
    @Override
    public Optional<String> prepared() {
        String summary = upserts.epochSummary();
        upserts.epochPrepared();
        return Optional.of(summary);
    }

    @Override
    public void ownCommits(OwnCommits ownCommits) {
        upserts.ownCommits(ownCommits);
    }

    @Override
    public Optional<byte[]> carried() {
        return upserts.carried();
    }

    @Override
    public boolean holdsWrites() {
        return upserts.holdsWrites();
    }

    @Override
    public int heldWrites() {
        return upserts.heldWrites();
    }

    @Override
    public void writeCarried(byte[] carried) throws SQLException, IOException {
        upserts.executeCarried(carried);
    }

    @Override
    public boolean abort() {
        return upserts.abort();
    }
}
