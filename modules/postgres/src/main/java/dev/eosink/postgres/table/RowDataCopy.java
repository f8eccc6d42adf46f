/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import org.apache.flink.table.data.ArrayData;
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
 * Copies of the RowData of one row type that no later record changes: what the sink keeps past a write
 * (see {@link dev.eosink.postgres.row.RowFormat#retain}). With object reuse on, Flink hands the next
 * record in the same object, or in objects sharing its memory, and the sink cannot tell whether it is
 * on; so every record kept is copied, on the sink's thread, record by record. What reads and copies
 * each field is therefore made once per row type, here, and a {@code GenericRowData}'s fields are
 * taken as it holds them, without a getter boxing them again.
 *
 * <p>A {@code BinaryRowData} is copied as its bytes. Any other RowData is copied field by field into a
 * {@code GenericRowData} of the same kind: immutable values (boxed primitives, {@code TimestampData},
 * {@code DecimalData}) are shared; what refers to memory is copied: byte arrays, arrays, and strings,
 * as their bytes, or, for a string that has only its Java {@code String} so far (as {@code
 * StringData.fromString} makes it), as a new string of that {@code String}, without encoding it.
 *
 * <p>Immutable and thread-safe.
 */
final class RowDataCopy {

    private final LogicalType[] types;
    /** Reads field i of a RowData that is not a GenericRowData (a GenericRowData is read as it holds them). */
    private final RowData.FieldGetter[] getters;
    /** Per field, its value made independent of the record. */
    private final Value[] values;

    RowDataCopy(LogicalType[] types) {
        this.types = types.clone();
        this.getters = new RowData.FieldGetter[types.length];
        this.values = new Value[types.length];
        for (int i = 0; i < types.length; i++) {
            getters[i] = RowData.createFieldGetter(types[i], i);
            values[i] = value(types[i]);
        }
    }

    /** A copy of {@code row}, of this copy's row type, that stays as it is whatever becomes of {@code row}. */
    RowData copy(RowData row) {
        if (row instanceof BinaryRowData) {
            return ((BinaryRowData) row).copy();
        }
        GenericRowData copy = new GenericRowData(row.getRowKind(), types.length);
        if (row instanceof GenericRowData) {
            // Its fields as it holds them: no getter, no boxing again of what is boxed already.
            GenericRowData generic = (GenericRowData) row;
            for (int i = 0; i < types.length; i++) {
                Object v = generic.getField(i);
                if (v != null) {
                    copy.setField(i, values[i].copy(v));
                }
            }
        } else {
            for (int i = 0; i < types.length; i++) {
                if (!row.isNullAt(i)) {
                    copy.setField(i, values[i].copy(getters[i].getFieldOrNull(row)));
                }
            }
        }
        return copy;
    }

    /** A value of one type, as a getter read it, made independent of the record it came from. */
    @FunctionalInterface
    private interface Value {
        Object copy(Object v);
    }

    private static Value value(LogicalType type) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return RowDataCopy::string;
            case BINARY:
            case VARBINARY:
                return v -> ((byte[]) v).clone();
            case ARRAY: {
                LogicalType elementType = ((ArrayType) type).getElementType();
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
                Value element = value(elementType);
                return v -> array((ArrayData) v, getter, element);
            }
            default:
                return v -> v; // boxed primitives, TimestampData, DecimalData: immutable
        }
    }

    /**
     * A string that no later record changes. One that has only its Java {@code String} (none of its
     * bytes exist yet) refers to no memory: a new string of that {@code String} is independent of it,
     * the producer's reuse of the string object included, and needs no encoding here, as the encoder
     * needs none for such a string either ({@link FieldCodecs.StringCodec}). Any other is copied as its
     * bytes.
     */
    private static Object string(Object v) {
        if (v instanceof BinaryStringData) {
            BinaryStringData s = (BinaryStringData) v;
            String java = s.getJavaObject();
            if (java != null && s.getBinarySection() == null) {
                return BinaryStringData.fromString(java);
            }
            return s.copy();
        }
        return StringData.fromString(v.toString());
    }

    private static ArrayData array(ArrayData a, ArrayData.ElementGetter getter, Value element) {
        if (a instanceof BinaryArrayData) {
            return ((BinaryArrayData) a).copy();
        }
        Object[] elements = new Object[a.size()];
        for (int e = 0; e < elements.length; e++) {
            Object v = getter.getElementOrNull(a, e);
            elements[e] = v == null ? null : element.copy(v);
        }
        return new GenericArrayData(elements);
    }
}
