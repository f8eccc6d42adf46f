/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The copies the sink keeps of RowData records past a write ({@link RowDataRows#retain}): whatever the
 * producer does to the record afterwards, as Flink's operators do with object reuse on (the same row
 * object filled again, its string objects re-pointed, its memory overwritten), the copy shows the
 * record as it was written. Each kind of RowData is copied in its own way.
 */
class RowDataCopyTest {

    private static final LogicalType STRING = VarCharType.STRING_TYPE;

    private static final RowType ROW = RowType.of(
            new LogicalType[] {
                new BigIntType(),
                STRING,
                STRING,
                new ArrayType(STRING),
                new VarBinaryType(4),
                new DecimalType(5, 2),
                new LocalZonedTimestampType(3),
                new DoubleType()
            },
            new String[] {"id", "s", "b", "a", "bin", "n", "ts", "d"});

    @Test
    void aGenericRowIsCopiedSoThatNothingTheProducerDoesToItChangesTheCopy() {
        RowDataRows rows = new RowDataRows(ROW);
        StringData javaOnly = StringData.fromString("first"); // as most sources make strings: no bytes yet
        byte[] utf8 = "bytes".getBytes(StandardCharsets.UTF_8);
        byte[] bin = {1, 2};
        GenericRowData reused = GenericRowData.ofKind(
                RowKind.UPDATE_AFTER,
                1L,
                javaOnly,
                BinaryStringData.fromBytes(utf8),
                new GenericArrayData(new Object[] {BinaryStringData.fromBytes(utf8), null}),
                bin,
                DecimalData.fromBigDecimal(new BigDecimal("-1.50"), 5, 2),
                TimestampData.fromEpochMillis(1500),
                null);
        String before = "+U[1, first, bytes, [bytes, null], \\x0102, -1.50, 1970-01-01 00:00:01.5+00, null]";

        RowData kept = rows.retain(reused);

        assertThat(kept).isNotSameAs(reused);
        assertThat(((BinaryStringData) javaOnly).getBinarySection())
                .as("the record's string, still not encoded")
                .isNull();
        assertThat(((BinaryStringData) kept.getString(1)).getBinarySection())
                .as("the copy's string, not encoded")
                .isNull();
        // The producer's next record, in the same objects and memory.
        ((BinaryStringData) javaOnly).setJavaObject("other");
        System.arraycopy("xxxxx".getBytes(StandardCharsets.UTF_8), 0, utf8, 0, utf8.length);
        bin[0] = 9;
        reused.setField(0, 2L);
        reused.setField(7, 0.5);
        reused.setRowKind(RowKind.INSERT);
        assertThat(rows.shown(reused))
                .isEqualTo("+I[2, other, xxxxx, [xxxxx, null], \\x0902, -1.50, " + "1970-01-01 00:00:01.5+00, 0.5]");
        assertThat(rows.shown(kept)).isEqualTo(before);
        assertThat(kept.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
    }

    @Test
    void aBinaryRowIsCopiedAsItsBytes() {
        RowType longs = RowType.of(new BigIntType(), new BigIntType());
        RowDataRows rows = new RowDataRows(longs);
        BinaryRowData reused = new BinaryRowData(2);
        reused.pointTo(
                MemorySegmentFactory.wrap(new byte[BinaryRowData.calculateFixPartSizeInBytes(2)]),
                0,
                BinaryRowData.calculateFixPartSizeInBytes(2));
        reused.setLong(0, 1L);
        reused.setNullAt(1);

        RowData kept = rows.retain(reused);
        reused.setLong(0, 2L); // the next record, written into the same memory
        reused.setLong(1, 3L);

        assertThat(kept).isInstanceOf(BinaryRowData.class);
        assertThat(rows.shown(kept)).isEqualTo("+I[1, null]");
        assertThat(rows.shown(reused)).isEqualTo("+I[2, 3]");
    }

    @Test
    void anyOtherRowIsReadFieldByFieldIntoAGenericRow() {
        RowType idAndText = RowType.of(new LogicalType[] {new BigIntType(), STRING}, new String[] {"id", "s"});
        RowDataRows rows = new RowDataRows(idAndText);
        GenericRowData left = GenericRowData.of(1L);
        byte[] utf8 = "first".getBytes(StandardCharsets.UTF_8);
        GenericRowData right = GenericRowData.of(BinaryStringData.fromBytes(utf8));
        JoinedRowData joined = new JoinedRowData(RowKind.DELETE, left, right);

        RowData kept = rows.retain(joined);
        left.setField(0, 2L);
        System.arraycopy("xxxxx".getBytes(StandardCharsets.UTF_8), 0, utf8, 0, utf8.length);
        joined.setRowKind(RowKind.INSERT);

        assertThat(kept).isInstanceOf(GenericRowData.class);
        assertThat(rows.shown(kept)).isEqualTo("-D[1, first]");
        assertThat(rows.shown(joined)).isEqualTo("+I[2, xxxxx]");
    }
}
