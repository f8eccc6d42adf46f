package dev.eosink.postgres.table;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * The typed getters that {@link RowData} and {@link ArrayData} both have, behind one face, so that a
 * column's {@link FieldCodec} reads a row's field and an array's element alike, without boxing. Each
 * is a reusable view, pointed at a row or an array before its values are read; single-threaded, as
 * the writer session that uses it.
 */
abstract class Values {

    abstract boolean isNullAt(int i);

    abstract boolean getBoolean(int i);

    abstract byte getByte(int i);

    abstract short getShort(int i);

    abstract int getInt(int i);

    abstract long getLong(int i);

    abstract float getFloat(int i);

    abstract double getDouble(int i);

    abstract StringData getString(int i);

    abstract DecimalData getDecimal(int i, int precision, int scale);

    abstract TimestampData getTimestamp(int i, int precision);

    abstract byte[] getBinary(int i);

    abstract ArrayData getArray(int i);

    /** A row's fields. */
    static final class OfRow extends Values {
        private RowData row;

        OfRow of(RowData row) {
            this.row = row;
            return this;
        }

        @Override
        boolean isNullAt(int i) {
            return row.isNullAt(i);
        }

        @Override
        boolean getBoolean(int i) {
            return row.getBoolean(i);
        }

        @Override
        byte getByte(int i) {
            return row.getByte(i);
        }

        @Override
        short getShort(int i) {
            return row.getShort(i);
        }

        @Override
        int getInt(int i) {
            return row.getInt(i);
        }

        @Override
        long getLong(int i) {
            return row.getLong(i);
        }

        @Override
        float getFloat(int i) {
            return row.getFloat(i);
        }

        @Override
        double getDouble(int i) {
            return row.getDouble(i);
        }

        @Override
        StringData getString(int i) {
            return row.getString(i);
        }

        @Override
        DecimalData getDecimal(int i, int precision, int scale) {
            return row.getDecimal(i, precision, scale);
        }

        @Override
        TimestampData getTimestamp(int i, int precision) {
            return row.getTimestamp(i, precision);
        }

        @Override
        byte[] getBinary(int i) {
            return row.getBinary(i);
        }

        @Override
        ArrayData getArray(int i) {
            return row.getArray(i);
        }
    }

    /** An array's elements. */
    static final class OfArray extends Values {
        private ArrayData array;

        OfArray of(ArrayData array) {
            this.array = array;
            return this;
        }

        int size() {
            return array.size();
        }

        @Override
        boolean isNullAt(int i) {
            return array.isNullAt(i);
        }

        @Override
        boolean getBoolean(int i) {
            return array.getBoolean(i);
        }

        @Override
        byte getByte(int i) {
            return array.getByte(i);
        }

        @Override
        short getShort(int i) {
            return array.getShort(i);
        }

        @Override
        int getInt(int i) {
            return array.getInt(i);
        }

        @Override
        long getLong(int i) {
            return array.getLong(i);
        }

        @Override
        float getFloat(int i) {
            return array.getFloat(i);
        }

        @Override
        double getDouble(int i) {
            return array.getDouble(i);
        }

        @Override
        StringData getString(int i) {
            return array.getString(i);
        }

        @Override
        DecimalData getDecimal(int i, int precision, int scale) {
            return array.getDecimal(i, precision, scale);
        }

        @Override
        TimestampData getTimestamp(int i, int precision) {
            return array.getTimestamp(i, precision);
        }

        @Override
        byte[] getBinary(int i) {
            return array.getBinary(i);
        }

        @Override
        ArrayData getArray(int i) {
            return array.getArray(i);
        }
    }
}
