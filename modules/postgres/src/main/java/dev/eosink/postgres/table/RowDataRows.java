/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.RowKindFunction;
import dev.eosink.postgres.row.ColumnsRefused;
import dev.eosink.postgres.row.RowEncoder;
import dev.eosink.postgres.row.RowFormat;
import dev.eosink.postgres.row.TargetColumn;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The rows of RowData records of one {@link RowType}: each record is its own row, field i going into
 * the sink's column i, read field by field ({@link RowDataEncoder}). At writer start every column is
 * checked against the table ({@link TypeMapping}), and all that do not fit are refused together.
 * Records are kept past a write as copies ({@link RowDataCopy}): the sink cannot tell whether Flink
 * reuses them (object reuse is a setting of the job, which the writer sessions do not see). Each
 * record's {@code RowKind} tells upserts from deletes.
 */
final class RowDataRows implements RowFormat<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    /** The fields' types: derived from the row type, not shipped twice. */
    private transient LogicalType[] types;
    /** How retained records are copied: made once, not per record. */
    private transient RowDataCopy copies;

    /** @throws IllegalArgumentException when a field's type goes into no PostgreSQL column (all of them named) */
    RowDataRows(RowType rowType) {
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        List<String> problems = new ArrayList<>();
        for (RowType.RowField field : rowType.getFields()) {
            TypeMapping.unsupported(field.getType())
                    .ifPresent(why -> problems.add("column " + TypeMapping.quote(field.getName()) + ": " + why));
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("the row type " + rowType.asSummaryString() + " cannot be written into "
                    + "PostgreSQL: " + String.join("; ", problems));
        }
    }

    private LogicalType[] types() {
        if (types == null) {
            types = rowType.getChildren().toArray(new LogicalType[0]);
        }
        return types;
    }

    @Override
    public RowData row(RowData record) {
        return record;
    }

    @Override
    public RowData retain(RowData record) {
        if (copies == null) {
            copies = new RowDataCopy(types());
        }
        return copies.copy(record);
    }

    @Override
    public Object shown(RowData record) {
        return RowDataText.show(record, types());
    }

    @Override
    public Optional<RowKindFunction<RowData>> rowKinds() {
        return Optional.of(RowData::getRowKind);
    }

    @Override
    public boolean checksColumns() {
        return true;
    }

    @Override
    public RowEncoder<RowData> encoder(List<TargetColumn> columns) throws ColumnsRefused {
        LogicalType[] fields = types();
        if (columns.size() != fields.length) {
            throw new ColumnsRefused(List.of("the sink writes " + columns.size() + " columns "
                    + columns.stream().map(TargetColumn::name).toList() + ", but its row type "
                    + rowType.asSummaryString()
                    + " has " + fields.length + " fields. Remedy: give as many columns as the row type has fields"));
        }
        List<String> problems = new ArrayList<>();
        FieldCodec[] codecs = new FieldCodec[fields.length];
        for (int i = 0; i < fields.length; i++) {
            TargetColumn column = columns.get(i);
            if (!column.exists()) {
                problems.add(TypeMapping.missing(column.name(), fields[i]));
                continue;
            }
            try {
                codecs[i] = TypeMapping.codec(fields[i], column);
            } catch (TypeMapping.Mismatch e) {
                problems.add(e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new ColumnsRefused(problems);
        }
        return new RowDataEncoder(columns.stream().map(TargetColumn::name).toList(), codecs, fields);
    }

    @Override
    public String toString() {
        return "RowDataRows[" + rowType.asSummaryString() + "]";
    }
}
