/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Arrays;
import java.util.List;

/**
 * What the sink writes of a Flink table: its physical columns (computed and metadata columns are not
 * written), by name into the database table's columns of the same names, and its primary key, if
 * declared: the columns by which the sink upserts and deletes, and by which it distributes its input.
 */
@Internal
public final class TableColumns {

    private final DataType rowDataType;
    private final int[] keyIndexes;

    private TableColumns(DataType rowDataType, int[] keyIndexes) {
        this.rowDataType = rowDataType;
        this.keyIndexes = keyIndexes;
    }

    public static TableColumns of(DynamicTableFactory.Context context) {
        return new TableColumns(context.getPhysicalRowDataType(), context.getPrimaryKeyIndexes());
    }

    /** The physical columns' names, in the order of the rows' fields. */
    public List<String> names() {
        return DataType.getFieldNames(rowDataType);
    }

    /** The physical row's type: the type of the rows the sink receives. */
    public RowType rowType() {
        return (RowType) rowDataType.getLogicalType();
    }

    public boolean hasPrimaryKey() {
        return keyIndexes.length > 0;
    }

    /** The primary key's columns' positions in the row; empty without a primary key. */
    public int[] keyIndexes() {
        return keyIndexes.clone();
    }

    /** The primary key's columns' names; empty without a primary key. */
    public List<String> keyNames() {
        List<String> names = names();
        return Arrays.stream(keyIndexes).mapToObj(names::get).toList();
    }
}
