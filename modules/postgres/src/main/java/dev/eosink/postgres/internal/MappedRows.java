/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.Parameters;
import dev.eosink.postgres.copy.BinaryCopyEncoder;
import dev.eosink.postgres.row.RowEncoder;
import dev.eosink.postgres.row.RowFormat;
import dev.eosink.postgres.row.TargetColumn;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The rows of the builder's {@code rows(RowMapper)}: an {@code Object[]} per record, one value per
 * column, whose Java types are known record by record. COPY takes them through {@link
 * BinaryCopyEncoder} where every column's type has an encoder there (else the sink writes by
 * statements); statements bind them as {@code setObject} does; upserts send their {@code toString} forms
 * ({@link #text}). The records themselves are kept as they are: a record handed to the sink is the
 * mapper's to read, and a mapped row is a new array per record.
 */
final class MappedRows<IN> implements RowFormat<IN, Object[]> {

    private static final long serialVersionUID = 1L;

    private final InsertStatement.Columns<IN> statement;

    MappedRows(InsertStatement.Columns<IN> statement) {
        this.statement = statement;
    }

    /** The mapper's row, checked to have one value per column. */
    @Override
    public Object[] row(IN record) throws Exception {
        return statement.toRow(record);
    }

    @Override
    public IN retain(IN record) {
        return record;
    }

    /** As the row mapper shows it ({@code RowMapper#shown}). */
    @Override
    public Object shown(IN record) {
        return statement.shown(record);
    }

    /** Never refuses: a column whose type has no COPY encoder only turns COPY off. */
    @Override
    public RowEncoder<Object[]> encoder(List<TargetColumn> columns) {
        List<String> typeNames = columns.stream().map(TargetColumn::typeName).collect(Collectors.toList());
        int[] maxLengths =
                columns.stream().mapToInt(TargetColumn::declaredLength).toArray();
        return encoder(BinaryCopyEncoder.forTypes(statement.columns(), typeNames, maxLengths), typeNames);
    }

    /**
     * The encoder of mapped rows into columns of {@code typeNames} (PostgreSQL's {@code typname}, which key values
     * are compared by), with COPY by {@code copy} where there is one.
     */
    static RowEncoder<Object[]> encoder(Optional<BinaryCopyEncoder> copy, List<String> typeNames) {
        return new Encoder(copy.orElse(null), typeNames);
    }

    @Override
    public String toString() {
        return "MappedRows[" + statement.describe() + "]";
    }

    /** Types whose values compare as numbers: a BigDecimal key is one key at any scale there. */
    private static final java.util.Set<String> NUMBERS =
            java.util.Set.of("numeric", "int2", "int4", "int8", "float4", "float8", "money");

    private static final class Encoder implements RowEncoder<Object[]> {
        /** Null when a column's type has no COPY encoder. */
        private final BinaryCopyEncoder copy;
        /** Each column's type name: a key value is compared as that type compares it. */
        private final List<String> typeNames;

        Encoder(BinaryCopyEncoder copy, List<String> typeNames) {
            this.copy = copy;
            this.typeNames = List.copyOf(typeNames);
        }

        @Override
        public boolean copies() {
            return copy != null;
        }

        @Override
        public void copy(Object[] row, BinaryCopyEncoder.Buffer out) {
            if (copy == null) {
                throw new IllegalStateException("a column's type has no binary COPY encoder");
            }
            copy.row(out, row);
        }

        @Override
        public void bind(Object[] row, PreparedStatement statement) throws SQLException {
            Parameters.bindRow(statement, row);
        }

        @Override
        public String text(Object[] row, int column) {
            return MappedRows.text(row[column]);
        }

        @Override
        public String keyText(Object[] row, int column) {
            Object value = row[column];
            if (value == null) {
                throw new IllegalArgumentException("key column value is null; an upsert key must not be null");
            }
            String type = typeNames.get(column);
            if (value instanceof BigDecimal && NUMBERS.contains(type)) {
                return ((BigDecimal) value).stripTrailingZeros().toPlainString(); // 1.50 = 1.5 in a number column
            }
            if ("timestamptz".equals(type)) {
                // One instant, whatever its offset, as timestamptz compares it.
                if (value instanceof java.time.OffsetDateTime t) {
                    return t.toInstant().toString();
                }
                if (value instanceof java.time.ZonedDateTime t) {
                    return t.toInstant().toString();
                }
            }
            return MappedRows.text(value); // as the column receives it: a text column keeps "1.50"
        }

        @Override
        public String show(Object[] row) {
            return Arrays.deepToString(row);
        }
    }

    /** A value's PostgreSQL text input form. */
    static String text(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof byte[]) {
            return "\\x" + HexFormat.of().formatHex((byte[]) v);
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        if (v instanceof java.sql.Timestamp) {
            // Wall-clock time in the JVM's zone, which pgjdbc sets as the session's TimeZone: right for
            // timestamp and timestamptz columns alike (an ISO instant would lose its zone on timestamp).
            return v.toString();
        }
        return v.toString(); // numbers, booleans, strings, UUIDs, java.time values in ISO-8601
    }
}
