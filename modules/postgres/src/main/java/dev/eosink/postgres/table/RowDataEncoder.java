/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.copy.BinaryCopyEncoder;
import dev.eosink.postgres.row.RowEncoder;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * RowData's fields into one writer session's table: field i into column i, by the column's {@link
 * FieldCodec}, read straight from the row (no {@code Object[]}, no boxing of primitives).
 */
final class RowDataEncoder implements RowEncoder<RowData> {

    private final List<String> columns;
    private final FieldCodec[] codecs;
    private final LogicalType[] types;

    RowDataEncoder(List<String> columns, FieldCodec[] codecs, LogicalType[] types) {
        this.columns = List.copyOf(columns);
        this.codecs = codecs;
        this.types = types;
    }

    @Override
    public boolean copies() {
        return true;
    }

    @Override
    public void copy(RowData row, BinaryCopyEncoder.Buffer out) {
        RowData v = row;
        int mark = out.size();
        out.int16(codecs.length);
        for (int i = 0; i < codecs.length; i++) {
            try {
                if (v.isNullAt(i)) {
                    out.int32(-1);
                } else {
                    codecs[i].copy(v, i, out);
                }
            } catch (BinaryCopyEncoder.Refused e) {
                out.truncate(mark); // nothing of a refused row reaches the server
                throw new BinaryCopyEncoder.Refused(
                        "column " + TypeMapping.quote(columns.get(i)) + ": " + e.getMessage(), e.sqlState());
            } catch (RuntimeException e) {
                out.truncate(mark);
                throw new IllegalArgumentException("column " + TypeMapping.quote(columns.get(i)) + ": " + e, e);
            }
        }
    }

    @Override
    public void bind(RowData row, PreparedStatement statement) throws SQLException {
        RowData v = row;
        for (int i = 0; i < codecs.length; i++) {
            if (v.isNullAt(i)) {
                statement.setNull(i + 1, Types.OTHER); // typed by the statement's cast
            } else {
                codecs[i].bind(v, i, statement, i + 1);
            }
        }
    }

    @Override
    public String text(RowData row, int column) {
        RowData v = row;
        return v.isNullAt(column) ? null : codecs[column].text(v, column);
    }

    @Override
    public String keyText(RowData row, int column) {
        RowData v = row;
        if (v.isNullAt(column)) {
            throw new IllegalArgumentException("key column value is null; an upsert key must not be null");
        }
        return codecs[column].keyText(v, column);
    }

    @Override
    public String show(RowData row) {
        return RowDataText.show(row, types);
    }
}
