/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.row;

import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.apache.flink.annotation.Internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * How one writer session's rows go into its table's columns, in each of the forms the write paths
 * send: a binary COPY tuple, the parameters of a statement, and text (the arrays of upserts and
 * deletes, and the keys they compare). Made by {@link RowFormat#encoder} at writer start, for the
 * columns' types; used by the session's thread alone. Column indexes count from 0, in the order of the
 * sink's columns.
 *
 * <p>A value that cannot go into its column is refused with an {@link IllegalArgumentException} whose
 * message names the column, or a {@link BinaryCopyEncoder.Refused} where the encoder applies the
 * database's own rule (a {@code varchar(n)} length) and knows its SQLSTATE.
 *
 * @param <R> the rows, as the format makes them
 */
@Internal
public interface RowEncoder<R> {

    /**
     * Whether {@link #copy} can write every column: false when a column's type has no binary encoder
     * here, and the sink then writes by statements alone.
     */
    boolean copies();

    /**
     * Appends the row as one tuple of binary COPY: its field count, then each column's field. A refused
     * value leaves nothing of the row appended.
     */
    void copy(R row, BinaryCopyEncoder.Buffer out);

    /**
     * Binds the row's values as parameters 1 to n of a statement whose every parameter is cast to its
     * column's type ({@code ?::jsonb}), so that a value may be bound as text.
     */
    void bind(R row, PreparedStatement statement) throws SQLException;

    /**
     * Column {@code column}'s value in PostgreSQL's text input form, cast by the server to the column's
     * type; null for NULL.
     */
    String text(R row, int column);

    /**
     * Key column {@code column}'s value as upserts compare keys: its {@link #text} form, with numbers
     * normalized (1.0 and 1.00 are one key). Equal keys must give equal texts, in every session.
     *
     * @throws IllegalArgumentException for NULL: an upsert key must not be null
     */
    String keyText(R row, int column);

    /** The row, for a message that has only the row at hand (an upsert held back and refused later). */
    String show(R row);
}
