/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.postgres.row.ColumnsRefused;
import dev.eosink.postgres.row.RowEncoder;
import dev.eosink.postgres.row.RowFormat;
import dev.eosink.postgres.row.TargetColumn;

import java.sql.PreparedStatement;
import java.util.List;

/**
 * A table's rows as one writer session writes them: its {@link RowFormat}, which turns records into
 * rows, with the {@link RowEncoder} made at start for the table's columns.
 *
 * @param <IN> the records the sink writes
 * @param <R> their rows
 */
final class TableRows<IN, R> implements RecordBinder<IN> {

    private final RowFormat<IN, R> format;
    private final RowEncoder<R> encoder;

    private TableRows(RowFormat<IN, R> format, RowEncoder<R> encoder) {
        this.format = format;
        this.encoder = encoder;
    }

    /** The format's encoder for {@code columns}, at writer start. */
    static <IN, R> TableRows<IN, R> open(RowFormat<IN, R> format, List<TargetColumn> columns) throws ColumnsRefused {
        return new TableRows<>(format, format.encoder(columns));
    }

    R row(IN record) throws Exception {
        return format.row(record);
    }

    RowEncoder<R> encoder() {
        return encoder;
    }

    @Override
    public void bind(PreparedStatement statement, IN record) throws Exception {
        encoder.bind(format.row(record), statement);
    }

    @Override
    public IN retain(IN record) {
        return format.retain(record);
    }

    @Override
    public Object shown(IN record) {
        return format.shown(record);
    }

    @Override
    public String toString() {
        return "TableRows[" + format + "]";
    }
}
