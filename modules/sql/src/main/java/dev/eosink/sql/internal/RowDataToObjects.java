/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import dev.eosink.jdbc.RowMapper;
import dev.eosink.jdbc.sql.RecordText;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Turns a table's {@link RowData} into the Java values the sinks' row mappers return, one per physical
 * column, in order: the one place that knows which Java value stands for which Flink type.
 *
 * <table>
 *   <caption>Flink type to Java value</caption>
 *   <tr><td>BOOLEAN</td><td>Boolean</td></tr>
 *   <tr><td>TINYINT, SMALLINT</td><td>Short</td></tr>
 *   <tr><td>INTEGER, BIGINT</td><td>Integer, Long</td></tr>
 *   <tr><td>FLOAT, DOUBLE</td><td>Float, Double</td></tr>
 *   <tr><td>DECIMAL</td><td>BigDecimal</td></tr>
 *   <tr><td>CHAR, VARCHAR (STRING)</td><td>String</td></tr>
 *   <tr><td>BINARY, VARBINARY (BYTES)</td><td>byte[]</td></tr>
 *   <tr><td>DATE, TIME</td><td>LocalDate, LocalTime</td></tr>
 *   <tr><td>TIMESTAMP</td><td>LocalDateTime</td></tr>
 *   <tr><td>TIMESTAMP_LTZ</td><td>OffsetDateTime at UTC: the instant, in the one form that binary COPY, pgjdbc's
 *       {@code setObject} and MariaDB Connector/J all take (pgjdbc refuses an {@code Instant})</td></tr>
 *   <tr><td>ARRAY of one of these</td><td>a Java array of its element's class ({@code Long[]}, ...)</td></tr>
 * </table>
 *
 * <p>No other type has a conversion: {@link #of} refuses it, naming the column. Which database column
 * type takes which value is the database's (and the sink's start-up checks') business, not this
 * class's. The XA connector writes through it; the PostgreSQL connector writes {@code RowData}
 * straight into PostgreSQL's wire format instead ({@code PostgresRowDataSink}).
 */
@Internal
public final class RowDataToObjects implements RowMapper<RowData> {

    private static final long serialVersionUID = 1L;

    /** From one of Flink's internal values (as {@link RowData} holds them) to the Java value. */
    @FunctionalInterface
    private interface Conversion extends Serializable {
        Object toJava(Object internal);
    }

    /** A conversion and the class of what it returns: an array's elements need it. */
    private static final class Column implements Serializable {
        private static final long serialVersionUID = 1L;
        final Conversion conversion;
        final Class<?> javaClass;
        final RowData.FieldGetter getter;

        Column(Conversion conversion, Class<?> javaClass, RowData.FieldGetter getter) {
            this.conversion = conversion;
            this.javaClass = javaClass;
            this.getter = getter;
        }
    }

    private final Column[] columns;

    private RowDataToObjects(Column[] columns) {
        this.columns = columns;
    }

    /**
     * The conversion of rows of {@code rowType}.
     *
     * @throws IllegalArgumentException naming the first column whose type has no conversion, and the
     *     types that have one
     */
    public static RowDataToObjects of(RowType rowType) {
        List<RowType.RowField> fields = rowType.getFields();
        Column[] columns = new Column[fields.size()];
        for (int i = 0; i < columns.length; i++) {
            LogicalType type = fields.get(i).getType();
            Column column = conversion(type, RowData.createFieldGetter(type, i));
            if (column == null) {
                throw new IllegalArgumentException("column '" + fields.get(i).getName() + "' is of type "
                        + type.asSummaryString() + ", which the sink cannot write. It writes BOOLEAN, TINYINT, "
                        + "SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR (STRING), BINARY, "
                        + "VARBINARY (BYTES), DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ and ARRAYs of these: declare the "
                        + "column as one of them, and CAST the query's value to it.");
            }
            columns[i] = column;
        }
        return new RowDataToObjects(columns);
    }

    @Override
    public Object[] toRow(RowData row) {
        Object[] values = new Object[columns.length];
        for (int i = 0; i < columns.length; i++) {
            Object internal = columns[i].getter.getFieldOrNull(row);
            values[i] = internal == null ? null : columns[i].conversion.toJava(internal);
        }
        return values;
    }

    /**
     * {@code +I[1, alice, 2026-01-01T10:00:00.500]}: the row's kind and its values as the sink binds
     * them, cut a little past {@link RecordText#MAX_CHARS} where messages cut anyway. A row whose
     * values do not convert is shown by its {@code toString}.
     */
    @Override
    public Object shown(RowData row) {
        StringBuilder b =
                new StringBuilder(64).append(row.getRowKind().shortString()).append('[');
        try {
            for (int i = 0; i < columns.length && b.length() <= RecordText.MAX_CHARS; i++) {
                Object internal = columns[i].getter.getFieldOrNull(row);
                Object value = internal == null ? null : columns[i].conversion.toJava(internal);
                b.append(i > 0 ? ", " : "").append(text(value));
            }
        } catch (RuntimeException e) {
            return row;
        }
        return b.append(']').toString();
    }

    private static String text(Object value) {
        if (value instanceof byte[] bytes) {
            return "\\x" + HexFormat.of().formatHex(bytes);
        }
        return value instanceof Object[] array ? Arrays.deepToString(array) : String.valueOf(value);
    }

    /** The conversion of a value of {@code type}, or null when there is none. */
    private static Column conversion(LogicalType type, RowData.FieldGetter getter) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return new Column(v -> v, Boolean.class, getter);
            case TINYINT:
                return new Column(v -> (short) (byte) v, Short.class, getter);
            case SMALLINT:
                return new Column(v -> v, Short.class, getter);
            case INTEGER:
                return new Column(v -> v, Integer.class, getter);
            case BIGINT:
                return new Column(v -> v, Long.class, getter);
            case FLOAT:
                return new Column(v -> v, Float.class, getter);
            case DOUBLE:
                return new Column(v -> v, Double.class, getter);
            case DECIMAL:
                return new Column(v -> ((DecimalData) v).toBigDecimal(), BigDecimal.class, getter);
            case CHAR:
            case VARCHAR:
                return new Column(v -> ((StringData) v).toString(), String.class, getter);
            case BINARY:
            case VARBINARY:
                return new Column(v -> v, byte[].class, getter);
            case DATE:
                return new Column(v -> LocalDate.ofEpochDay((int) v), LocalDate.class, getter);
            case TIME_WITHOUT_TIME_ZONE:
                return new Column(v -> LocalTime.ofNanoOfDay((int) v * 1_000_000L), LocalTime.class, getter);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new Column(v -> ((TimestampData) v).toLocalDateTime(), LocalDateTime.class, getter);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new Column(
                        v -> ((TimestampData) v).toInstant().atOffset(ZoneOffset.UTC), OffsetDateTime.class, getter);
            case ARRAY:
                return array((ArrayType) type, getter);
            default:
                return null;
        }
    }

    /** An ARRAY of a convertible element type: a Java array of the element's Java class. */
    private static Column array(ArrayType type, RowData.FieldGetter getter) {
        LogicalType elementType = type.getElementType();
        ArrayData.ElementGetter elementGetter = ArrayData.createElementGetter(elementType);
        Column element = conversion(elementType, null);
        if (element == null) {
            return null;
        }
        Conversion elementConversion = element.conversion;
        Class<?> elementClass = element.javaClass;
        Conversion toArray = v -> {
            ArrayData data = (ArrayData) v;
            Object array = Array.newInstance(elementClass, data.size());
            for (int i = 0; i < data.size(); i++) {
                Object internal = elementGetter.getElementOrNull(data, i);
                Array.set(array, i, internal == null ? null : elementConversion.toJava(internal));
            }
            return array;
        };
        return new Column(toArray, elementClass.arrayType(), getter);
    }
}
