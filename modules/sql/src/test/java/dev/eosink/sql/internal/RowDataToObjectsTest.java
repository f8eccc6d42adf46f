/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import dev.eosink.jdbc.sql.RecordText;

import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the XA connector shows a row in messages and in the dead-letter table: its kind and the values
 * it binds, never {@code BinaryRowData@...}.
 */
class RowDataToObjectsTest {

    private static final RowType ROW = RowType.of(
            new BigIntType(false),
            new VarCharType(100),
            new VarBinaryType(10),
            new TimestampType(3),
            new ArrayType(new BigIntType()));

    private final RowDataToObjects rows = RowDataToObjects.of(ROW);

    @Test
    void aRowIsShownByItsKindAndValues() {
        GenericRowData row = GenericRowData.ofKind(
                RowKind.UPDATE_AFTER,
                7L,
                StringData.fromString("alice"),
                new byte[] {1, (byte) 0xab},
                TimestampData.fromLocalDateTime(LocalDateTime.of(2026, 1, 1, 10, 0, 0, 500_000_000)),
                new GenericArrayData(new Long[] {1L, null}));

        assertThat(rows.shown(row)).hasToString("+U[7, alice, \\x01ab, 2026-01-01T10:00:00.500, [1, null]]");
    }

    @Test
    void nullsAreShownAsNull() {
        GenericRowData row = GenericRowData.ofKind(RowKind.DELETE, 1L, null, null, null, null);

        assertThat(rows.shown(row)).hasToString("-D[1, null, null, null, null]");
    }

    @Test
    void aLongRowIsCutWhereMessagesCutIt() {
        String big = "x".repeat(2 * RecordText.MAX_CHARS);
        GenericRowData row = GenericRowData.of(1L, StringData.fromString(big), null, null, null);

        assertThat(RecordText.plain(rows.shown(row)))
                .hasSize(RecordText.MAX_CHARS + 3)
                .startsWith("+I[1, xxx")
                .endsWith("...");
    }
}
