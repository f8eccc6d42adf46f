/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * ARRAY of a scalar Flink type into a one-dimensional PostgreSQL array of a type the elements may go
 * into (int4[], text[], numeric[], ...), elements by their own {@link FieldCodec}. An empty array is
 * PostgreSQL's empty array ({@code '{}'}, no dimensions); NULL elements are NULLs, and the lower bound
 * is 1. Arrays of arrays are refused at start ({@link TypeMapping}): PostgreSQL's arrays of several
 * dimensions must be rectangular, Flink's nested arrays need not be.
 */
final class ArrayCodec extends FieldCodec.BoundAsText {

    private final FieldCodec element;
    /** The element type's oid: binary arrays carry it, and the server checks it against the column's. */
    private final int elementOid;
    /** Reads an element of the array, as the internal data structure the element's codec reads from a row. */
    private final ArrayData.ElementGetter getter;

    /** @param elementType the array's element type, whose internal values {@code element} encodes */
    ArrayCodec(FieldCodec element, int elementOid, LogicalType elementType) {
        this.element = element;
        this.elementOid = elementOid;
        this.getter = ArrayData.createElementGetter(elementType);
    }

    /**
     * The array's elements as the fields of a row, so that the element's codec reads them as it reads a row's field.
     * Flink's rows and arrays share no interface; an array's elements are boxed here once, where the row's fields
     * (the common case) are read unboxed.
     */
    private RowData elements(ArrayData array) {
        GenericRowData row = new GenericRowData(array.size());
        for (int e = 0; e < array.size(); e++) {
            row.setField(e, getter.getElementOrNull(array, e));
        }
        return row;
    }

    @Override
    void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
        RowData a = elements(v.getArray(i));
        int n = a.getArity();
        boolean nulls = false;
        for (int e = 0; e < n && !nulls; e++) {
            nulls = a.isNullAt(e);
        }
        int length = out.size();
        out.int32(0); // the field's length, known at the end
        out.int32(n == 0 ? 0 : 1); // dimensions
        out.int32(nulls ? 1 : 0);
        out.int32(elementOid);
        if (n > 0) {
            out.int32(n);
            out.int32(1); // lower bound
        }
        for (int e = 0; e < n; e++) {
            if (a.isNullAt(e)) {
                out.int32(-1);
            } else {
                element.copy(a, e, out);
            }
        }
        out.int32At(length, out.size() - length - 4);
    }

    /**
     * The array's text form: {@code {"1","2",NULL}}, each element in double quotes with {@code "} and
     * {@code \} escaped by a backslash, so that no element's text needs more thought.
     */
    @Override
    String text(RowData v, int i) {
        RowData a = elements(v.getArray(i));
        StringBuilder b = new StringBuilder().append('{');
        for (int e = 0; e < a.getArity(); e++) {
            if (e > 0) {
                b.append(',');
            }
            if (a.isNullAt(e)) {
                b.append("NULL");
                continue;
            }
            String text = element.text(a, e);
            b.append('"');
            for (int c = 0; c < text.length(); c++) {
                char ch = text.charAt(c);
                if (ch == '"' || ch == '\\') {
                    b.append('\\');
                }
                b.append(ch);
            }
            b.append('"');
        }
        return b.append('}').toString();
    }
}
