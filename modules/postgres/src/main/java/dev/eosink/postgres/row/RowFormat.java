/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.row;

import dev.eosink.postgres.RowKindFunction;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.List;
import java.util.Optional;

/**
 * How a table-mode sink's records become rows of its table. Serializable, shipped with the job; at
 * writer start, {@link #encoder} makes from it the session's {@link RowEncoder}, for the table's
 * column types as the catalog has them.
 *
 * <p>The write paths call, per record: {@link #row} once, to write it (into COPY, or bound into a
 * statement); {@link #retain} before they keep a record past the write (the latest records COPY sent,
 * for messages; a batch's records, which a dead-letter table may send again one by one; upserts held
 * back by key, which the paths keep as {@code row(retain(record))}); {@link #shown} only when a
 * message or a dead letter shows a record.
 *
 * @param <IN> the records the sink writes
 * @param <R> a record's row, what its columns' values are read from: the record itself, or what a
 *     mapper made of it
 */
@Internal
public interface RowFormat<IN, R> extends Serializable {

    /**
     * The record's row. It needs to hold only until the write that asked for it returns, unless the
     * record was {@linkplain #retain retained}. Whatever it throws fails the record, as PostgreSQL's
     * refusal would (or sends it to the dead-letter table).
     */
    R row(IN record) throws Exception;

    /**
     * A record that stays as it is once the write returns: the record itself where its producer never
     * changes it afterwards, a copy where it may (Flink reuses objects between operators when object
     * reuse is on).
     */
    IN retain(IN record);

    /** The record as messages and the dead-letter table show it (its {@code toString}, cut short). */
    default Object shown(IN record) {
        return record;
    }

    /**
     * The kind of each record, where records carry their own (RowData): with {@code upsert(...)} and no
     * {@code changelog(...)}, it tells the deletes. Empty where they do not: every record is then an
     * insert (upserted).
     */
    default Optional<RowKindFunction<IN>> rowKinds() {
        return Optional.empty();
    }

    /**
     * Whether {@link #encoder} checks the columns itself, the missing ones included: then the start-up
     * check passes it every column, a missing one as {@link TargetColumn#missing}, so that one message
     * names every column that does not fit. False (the row mapper's rows, whose values' types are
     * known only record by record): a missing column is refused before, on its own.
     */
    default boolean checksColumns() {
        return false;
    }

    /**
     * How this format's rows go into {@code columns}, the sink's columns in their order, for one writer
     * session. Called at writer start, before anything is written.
     *
     * @throws ColumnsRefused when a column cannot take this format's values, naming every such column
     */
    RowEncoder<R> encoder(List<TargetColumn> columns) throws ColumnsRefused;
}
