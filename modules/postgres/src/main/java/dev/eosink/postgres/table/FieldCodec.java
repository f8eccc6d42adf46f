/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.apache.flink.table.data.RowData;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * One column's values, of one Flink type going into one PostgreSQL type, in the forms a {@link
 * dev.eosink.postgres.row.RowEncoder} writes: binary COPY, a statement parameter, text. It reads the
 * value at {@code i} of a {@link RowData}, a row's field or an array's element ({@link ArrayCodec} shows an
 * array's elements as a row's fields), never a NULL (the
 * encoder and the array codec write NULLs themselves). Chosen at writer start by {@link TypeMapping},
 * which checked that the pair fits; a value that does not fit (a varchar too long, an invalid uuid) is
 * refused as {@link BinaryCopyEncoder.Refused}, with the SQLSTATE the server would report.
 */
abstract class FieldCodec {

    /** Appends the whole field: its length, then the value in the PostgreSQL type's binary form. */
    abstract void copy(RowData v, int i, BinaryCopyEncoder.Buffer out);

    /**
     * Binds the value as parameter {@code parameter} of a statement that casts it to the column's type:
     * as the Java type pgjdbc sends for it where that is exact (numbers, booleans, bytes), else as text.
     */
    abstract void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException;

    /** The value in the PostgreSQL type's text input form. */
    abstract String text(RowData v, int i);

    /** The value as upserts compare keys: equal values give equal texts (see {@link DecimalCodec}). */
    String keyText(RowData v, int i) {
        return text(v, i);
    }

    /**
     * A codec whose values no Java type of pgjdbc's carries exactly (dates, times, timestamps, arrays):
     * it binds the value's {@link #text}, which the statement casts to the column's type.
     */
    abstract static class BoundAsText extends FieldCodec {
        @Override
        final void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException {
            s.setString(parameter, text(v, i));
        }
    }
}
