/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key that picks a row's writer subtask depends on the key's values alone: the upstream subtasks
 * of a job run in different JVMs on a cluster, and each must send a key to the same writer.
 */
class PrimaryKeySelectorTest {

    private static final RowType ROW = RowType.of(
            new BigIntType(false),
            new VarCharType(false, 20),
            new VarBinaryType(10),
            new DecimalType(10, 2),
            new TimestampType(3),
            new DoubleType(),
            new VarCharType(100));

    /** Key: all columns but the last. */
    private final PrimaryKeySelector key = new PrimaryKeySelector(ROW, new int[] {0, 1, 2, 3, 4, 5});

    @Test
    void theSameInEveryJvm() {
        // A constant: it fails if any part of the key hashes by identity (as GenericRowData's RowKind does).
        assertThat(key.getKey(row(RowKind.INSERT, "k", 0.5, "x"))).isEqualTo(1_735_419_004);
    }

    @Test
    void theSameWhateverTheChangeTheNonKeyColumnsOrTheValuesRepresentation() {
        int insert = key.getKey(row(RowKind.INSERT, "k", 0.5, "x"));
        GenericRowData other = row(RowKind.UPDATE_AFTER, "k", 0.5, "y");
        other.setField(1, BinaryStringData.fromBytes("k".getBytes(StandardCharsets.UTF_8)));
        other.setField(2, new byte[] {1, 2, 3});

        assertThat(key.getKey(other)).isEqualTo(insert);
        assertThat(key.getKey(row(RowKind.DELETE, "k", 0.5, null))).isEqualTo(insert);
    }

    @Test
    void aNegativeZeroIsTheKeyOfZero() {
        assertThat(key.getKey(row(RowKind.INSERT, "k", -0.0, "x")))
                .isEqualTo(key.getKey(row(RowKind.INSERT, "k", 0.0, "x")));
    }

    /**
     * The spellings a case- or accent-insensitive PAD SPACE collation, or citext, takes as one key go to
     * one writer (XaMariaDbSqlITCase shows two writers on one row waiting for each other's lock).
     */
    @Test
    void spellingsTheDatabaseTakesAsOneKeyAreOneKey() {
        int plain = key.getKey(row(RowKind.INSERT, "strasse", 0.5, "x"));
        for (String spelling : new String[] {"STRASSE", "Strasse  ", "stra\u00dfe", "str\u00e2sse"}) {
            assertThat(key.getKey(row(RowKind.INSERT, spelling, 0.5, "x")))
                    .as(spelling)
                    .isEqualTo(plain);
        }
    }

    @Test
    void differentKeysMostlyDiffer() {
        assertThat(key.getKey(row(RowKind.INSERT, "k", 0.5, "x")))
                .isNotEqualTo(key.getKey(row(RowKind.INSERT, "l", 0.5, "x")));
    }

    private static GenericRowData row(RowKind kind, String k, double d, String payload) {
        GenericRowData row = GenericRowData.ofKind(
                kind,
                42L,
                StringData.fromString(k),
                new byte[] {1, 2, 3},
                DecimalData.fromBigDecimal(new BigDecimal("12.34"), 10, 2),
                TimestampData.fromEpochMillis(1_700_000_000_000L),
                d,
                payload == null ? null : StringData.fromString(payload));
        return row;
    }
}
