package dev.eosink.postgres.table;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryArrayData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * A RowData that no later record changes: what the sink keeps past a write (see {@link
 * dev.eosink.postgres.row.RowFormat#retain}). With object reuse on, Flink hands the next record in
 * the same object, or in objects sharing its memory. A {@code BinaryRowData} is copied as its bytes;
 * any other RowData field by field into a {@code GenericRowData}, each value that refers to memory
 * (strings, decimals, bytes, arrays) copied too.
 */
final class RowDataCopy {

    private RowDataCopy() {}

    static RowData copy(RowData row, LogicalType[] types) {
        if (row instanceof BinaryRowData) {
            return ((BinaryRowData) row).copy();
        }
        GenericRowData copy = new GenericRowData(row.getRowKind(), types.length);
        for (int i = 0; i < types.length; i++) {
            if (!row.isNullAt(i)) {
                copy.setField(i, value(RowData.createFieldGetter(types[i], i).getFieldOrNull(row), types[i]));
            }
        }
        return copy;
    }

    /** A value of {@code type} as a getter read it, made independent of the row it came from. */
    private static Object value(Object v, LogicalType type) {
        switch (type.getTypeRoot()) {
            case CHAR: case VARCHAR:
                return v instanceof BinaryStringData ? ((BinaryStringData) v).copy() : StringData.fromString(v.toString());
            case DECIMAL:
                return ((DecimalData) v).copy();
            case BINARY: case VARBINARY:
                return ((byte[]) v).clone();
            case ARRAY: {
                if (v instanceof BinaryArrayData) {
                    return ((BinaryArrayData) v).copy();
                }
                ArrayData a = (ArrayData) v;
                LogicalType elementType = ((ArrayType) type).getElementType();
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
                Object[] elements = new Object[a.size()];
                for (int e = 0; e < elements.length; e++) {
                    Object element = getter.getElementOrNull(a, e);
                    elements[e] = element == null ? null : value(element, elementType);
                }
                return new GenericArrayData(elements);
            }
            default:
                return v; // boxed primitives; TimestampData, which nothing changes
        }
    }
}
