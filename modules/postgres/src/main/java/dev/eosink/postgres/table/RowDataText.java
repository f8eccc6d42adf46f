/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.jdbc.sql.RecordText;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.util.HexFormat;

/**
 * A RowData as messages and dead letters show it, as Flink's {@code Row} prints: its kind, then its
 * fields, {@code +I[1, alice, 2026-01-01 10:00:00.5, null]}. {@code BinaryRowData}, what Flink's
 * runtime hands a sink most often, has no {@code toString} of its own that shows its values.
 */
final class RowDataText {

    private RowDataText() {}

    /** The row, cut a little past {@link RecordText#MAX_CHARS}, where messages cut it anyway. */
    static String show(RowData row, LogicalType[] types) {
        StringBuilder b =
                new StringBuilder(64).append(row.getRowKind().shortString()).append('[');
        for (int i = 0; i < types.length && b.length() <= RecordText.MAX_CHARS; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(
                    row.isNullAt(i)
                            ? "null"
                            : value(RowData.createFieldGetter(types[i], i).getFieldOrNull(row), types[i]));
        }
        return b.append(']').toString();
    }

    private static String value(Object v, LogicalType type) {
        switch (type.getTypeRoot()) {
            case DECIMAL:
                return ((DecimalData) v).toBigDecimal().toPlainString();
            case BINARY:
            case VARBINARY:
                return "\\x" + HexFormat.of().formatHex((byte[]) v);
            case DATE:
                return PgText.date((Integer) v);
            case TIME_WITHOUT_TIME_ZONE:
                return PgText.time((Integer) v);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                TimestampData t = (TimestampData) v;
                return PgText.timestamp(
                        t.getMillisecond() * 1000 + t.getNanoOfMillisecond() / 1000,
                        type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE);
            }
            case ARRAY: {
                LogicalType elementType = ((ArrayType) type).getElementType();
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
                ArrayData a = (ArrayData) v;
                StringBuilder b = new StringBuilder().append('[');
                for (int e = 0; e < a.size(); e++) {
                    Object element = getter.getElementOrNull(a, e);
                    b.append(e == 0 ? "" : ", ").append(element == null ? "null" : value(element, elementType));
                }
                return b.append(']').toString();
            }
            default:
                return String.valueOf(v); // numbers, booleans, StringData
        }
    }
}
