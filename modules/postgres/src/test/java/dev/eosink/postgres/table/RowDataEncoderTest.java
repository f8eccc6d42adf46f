/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.copy.BinaryCopyEncoder;
import dev.eosink.postgres.row.RowEncoder;
import dev.eosink.postgres.row.TargetColumn;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import static dev.eosink.postgres.table.Columns.array;
import static dev.eosink.postgres.table.Columns.scalar;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * RowData's encoders: the same binary COPY bytes as the row mapper's encoder writes for the same
 * values, the text forms PostgreSQL reads, the refusals, the copies kept past a write, and the rows
 * as messages show them.
 */
class RowDataEncoderTest {

    private static final LogicalType STRING = VarCharType.STRING_TYPE;

    /** One Flink type into one column type, with a value in both worlds. */
    private record Case(LogicalType flink, TargetColumn column, Object internal, Object external) {}

    @Test
    void copyWritesTheBytesOfTheRowMappersEncoder() throws Exception {
        BigDecimal big = new BigDecimal("-123456789012345678901234567890.1234567");
        List<Case> cases = List.of(
                new Case(new TinyIntType(), scalar("a", "int2"), (byte) -7, (short) -7),
                new Case(new SmallIntType(), scalar("b", "int4"), Short.MIN_VALUE, (int) Short.MIN_VALUE),
                new Case(new IntType(), scalar("c", "int8"), Integer.MAX_VALUE, (long) Integer.MAX_VALUE),
                new Case(new BigIntType(), scalar("d", "int8"), Long.MIN_VALUE, Long.MIN_VALUE),
                new Case(new BigIntType(), scalar("e", "numeric"), Long.MIN_VALUE, Long.MIN_VALUE),
                new Case(new IntType(), scalar("f", "numeric"), -42, -42L),
                new Case(new FloatType(), scalar("g", "float4"), Float.NaN, Float.NaN),
                new Case(new FloatType(), scalar("h", "float8"), 0.1f, (double) 0.1f),
                new Case(new DoubleType(), scalar("i", "float8"), Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY),
                new Case(new BooleanType(), scalar("j", "bool"), true, true),
                new Case(
                        new DecimalType(10, 3),
                        scalar("k", "numeric"),
                        DecimalData.fromBigDecimal(new BigDecimal("-1234567.890"), 10, 3),
                        new BigDecimal("-1234567.890")),
                new Case(new DecimalType(38, 7), scalar("l", "numeric"), DecimalData.fromBigDecimal(big, 38, 7), big),
                new Case(
                        new DecimalType(18, 18),
                        scalar("m", "numeric"),
                        DecimalData.fromBigDecimal(new BigDecimal("0.000000000000000001"), 18, 18),
                        new BigDecimal("0.000000000000000001")),
                new Case(STRING, scalar("n", "text"), StringData.fromString("ünï \"q\" 😀"), "ünï \"q\" 😀"),
                new Case(
                        STRING,
                        scalar("o", "varchar", "character varying(4)", 8),
                        StringData.fromString("ab  "),
                        "ab  "),
                new Case(STRING, scalar("p", "jsonb"), StringData.fromString("{\"a\": [1]}"), "{\"a\": [1]}"),
                new Case(
                        STRING,
                        scalar("q", "uuid"),
                        StringData.fromString("{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}"),
                        UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
                new Case(new VarBinaryType(10), scalar("r", "bytea"), new byte[] {0, -1, 7}, new byte[] {0, -1, 7}),
                new Case(
                        new DateType(),
                        scalar("s", "date"),
                        (int) LocalDate.of(-44, 3, 15).toEpochDay(),
                        LocalDate.of(-44, 3, 15)),
                new Case(
                        new TimestampType(6),
                        scalar("t", "timestamp"),
                        TimestampData.fromLocalDateTime(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000)),
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000)),
                new Case(
                        new LocalZonedTimestampType(6),
                        scalar("u", "timestamptz"),
                        TimestampData.fromInstant(Instant.parse("2100-01-01T00:00:00.000001Z")),
                        Instant.parse("2100-01-01T00:00:00.000001Z")));
        RowType type = RowType.of(
                cases.stream().map(Case::flink).toArray(LogicalType[]::new),
                cases.stream().map(c -> c.column().name()).toArray(String[]::new));
        List<TargetColumn> columns = cases.stream().map(Case::column).toList();
        RowEncoder<RowData> rowData = new RowDataRows(type).encoder(columns);
        BinaryCopyEncoder objects = BinaryCopyEncoder.forTypes(
                        columns.stream().map(TargetColumn::name).toList(),
                        columns.stream().map(TargetColumn::typeName).toList())
                .orElseThrow();

        GenericRowData row =
                GenericRowData.of(cases.stream().map(Case::internal).toArray());
        Object[] values = cases.stream().map(Case::external).toArray();
        assertThat(copied(rowData, row)).isEqualTo(copied(objects, values));

        GenericRowData nulls = new GenericRowData(cases.size());
        assertThat(copied(rowData, nulls)).isEqualTo(copied(objects, new Object[cases.size()]));
    }

    @Test
    void timeAndArraysInTheirBinaryForms() throws Exception {
        RowType type = RowType.of(
                new LogicalType[] {new TimeType(3), new ArrayType(new IntType()), new ArrayType(STRING)},
                new String[] {"t", "a", "s"});
        RowEncoder<RowData> encoder = new RowDataRows(type)
                .encoder(List.of(
                        scalar("t", "time"),
                        array("a", "int4", 23, "integer[]", -1),
                        array("s", "text", 25, "text[]", -1)));
        GenericRowData row = GenericRowData.of(
                45_296_789, new GenericArrayData(new Object[] {5, null}), new GenericArrayData(new Object[0]));
        BinaryCopyEncoder.Buffer expected = new BinaryCopyEncoder.Buffer(64);
        expected.int16(3);
        expected.int32(8);
        expected.int64(45_296_789_000L); // 12:34:56.789 in microseconds
        expected.int32(4 * 5 + 4 + 4 + 4); // header, dimension, element, NULL
        expected.int32(1); // one dimension
        expected.int32(1); // with NULLs
        expected.int32(23);
        expected.int32(2); // two elements
        expected.int32(1); // from 1
        expected.int32(4);
        expected.int32(5);
        expected.int32(-1);
        expected.int32(12); // the empty array: no dimension
        expected.int32(0);
        expected.int32(0);
        expected.int32(25);
        assertThat(copied(encoder, row)).isEqualTo(Arrays.copyOf(expected.array(), expected.size()));
    }

    @Test
    void textFormsAreWhatPostgresReads() throws Exception {
        RowType type = RowType.of(
                new LogicalType[] {
                    new DateType(),
                    new TimestampType(6),
                    new LocalZonedTimestampType(3),
                    new TimeType(0),
                    new ArrayType(STRING),
                    new DecimalType(10, 4),
                    new FloatType(),
                    new VarBinaryType(4)
                },
                new String[] {"d", "ts", "tz", "t", "a", "n", "f", "b"});
        RowEncoder<RowData> encoder = new RowDataRows(type)
                .encoder(List.of(
                        scalar("d", "date"),
                        scalar("ts", "timestamp"),
                        scalar("tz", "timestamptz"),
                        scalar("t", "time"),
                        array("a", "text", 25, "text[]", -1),
                        scalar("n", "numeric"),
                        scalar("f", "float8"),
                        scalar("b", "bytea")));
        GenericRowData row = GenericRowData.of(
                (int) LocalDate.of(0, 1, 1).toEpochDay(),
                TimestampData.fromLocalDateTime(LocalDateTime.of(12345, 6, 7, 8, 9, 10, 120_000_000)),
                TimestampData.fromEpochMillis(-1),
                0,
                new GenericArrayData(
                        new Object[] {StringData.fromString("a,\"b\"\\"), null, StringData.fromString("NULL")}),
                DecimalData.fromBigDecimal(new BigDecimal("1.5000"), 10, 4),
                0.1f,
                new byte[] {0, 15});
        assertThat(encoder.text(row, 0)).isEqualTo("0001-01-01 BC");
        assertThat(encoder.text(row, 1)).isEqualTo("12345-06-07 08:09:10.12");
        assertThat(encoder.text(row, 2)).isEqualTo("1969-12-31 23:59:59.999+00");
        assertThat(encoder.text(row, 3)).isEqualTo("00:00:00");
        assertThat(encoder.text(row, 4)).isEqualTo("{\"a,\\\"b\\\"\\\\\",NULL,\"NULL\"}");
        assertThat(encoder.text(row, 5)).isEqualTo("1.5000");
        assertThat(encoder.keyText(row, 5)).isEqualTo("1.5");
        assertThat(encoder.text(row, 6))
                .as("the float's own value, as a double")
                .isEqualTo(Double.toString(0.1f));
        assertThat(encoder.text(row, 7)).isEqualTo("\\x000f");
        assertThat(encoder.text(new GenericRowData(8), 0)).isNull();
        assertThat(catchThrowableOfType(
                        IllegalArgumentException.class, () -> encoder.keyText(new GenericRowData(8), 0)))
                .hasMessage("key column value is null; an upsert key must not be null");
        assertThat(PgText.timestamp(Long.MIN_VALUE / 4, false)).endsWith(" BC");
    }

    @Test
    void valuesTheColumnRefusesAreRefusedBeforeAnythingOfTheRowIsWritten() throws Exception {
        RowType type = RowType.of(
                new LogicalType[] {new IntType(), STRING, STRING, STRING}, new String[] {"id", "code", "u", "t"});
        RowEncoder<RowData> encoder = new RowDataRows(type)
                .encoder(List.of(
                        scalar("id", "int4"),
                        scalar("code", "varchar", "character varying(3)", 7),
                        scalar("u", "uuid"),
                        scalar("t", "text")));
        BinaryCopyEncoder.Buffer out = new BinaryCopyEncoder.Buffer(64);
        out.int32(99);

        BinaryCopyEncoder.Refused tooLong =
                refused(encoder, out, GenericRowData.of(1, StringData.fromString("abcd"), null, null));
        assertThat(tooLong)
                .hasMessage("column \"code\": value too long for type character varying(3) (4 characters: \"abcd\")");
        assertThat(tooLong.sqlState()).isEqualTo("22001");
        assertThat(out.size()).as("nothing of the row").isEqualTo(4);
        // Trailing spaces beyond n are cut, as PostgreSQL does; 3 characters in 6 bytes fit.
        encoder.copy(GenericRowData.of(1, StringData.fromString("ab    "), null, null), out);
        encoder.copy(GenericRowData.of(1, StringData.fromString("äöü"), null, null), out);

        BinaryCopyEncoder.Refused uuid =
                refused(encoder, out, GenericRowData.of(1, null, StringData.fromString("1-2-3"), null));
        assertThat(uuid).hasMessage("column \"u\": invalid input syntax for type uuid: \"1-2-3\"");
        assertThat(uuid.sqlState()).isEqualTo("22P02");

        BinaryCopyEncoder.Refused nul =
                refused(encoder, out, GenericRowData.of(1, null, null, StringData.fromString("a\0b")));
        assertThat(nul.getMessage()).startsWith("column \"t\": invalid byte sequence for encoding \"UTF8\": 0x00");
        assertThat(nul.sqlState()).isEqualTo("22021");
    }

    /**
     * A string that has only its Java String (as StringData.fromString makes it) is written without
     * being encoded into bytes when it is ASCII: the same bytes as a string made of its UTF-8 bytes, the
     * same refusals, and the record's string is left as it was.
     */
    @Test
    void stringsWithoutBytesAreWrittenAsStringsWithBytesAre() throws Exception {
        RowType type = RowType.of(new LogicalType[] {STRING, STRING}, new String[] {"t", "v"});
        RowEncoder<RowData> encoder = new RowDataRows(type)
                .encoder(List.of(scalar("t", "text"), scalar("v", "varchar", "character varying(5)", 9)));
        for (String s : List.of("plain", "", "héllo", "ab      ", "12345")) {
            StringData javaOnly = StringData.fromString(s);
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            assertThat(copied(encoder, GenericRowData.of(javaOnly, StringData.fromString(s))))
                    .as(s)
                    .isEqualTo(
                            copied(encoder, GenericRowData.of(StringData.fromBytes(utf8), StringData.fromBytes(utf8))));
            if (s.chars().allMatch(c -> c < 0x80)) {
                assertThat(((BinaryStringData) javaOnly).getBinarySection())
                        .as("'%s' encoded", s)
                        .isNull();
            }
        }
        BinaryCopyEncoder.Buffer out = new BinaryCopyEncoder.Buffer(16);
        assertThat(refused(encoder, out, GenericRowData.of(null, StringData.fromString("abcdef"))))
                .hasMessage("column \"v\": value too long for type character varying(5) (6 characters: \"abcdef\")");
        assertThat(refused(encoder, out, GenericRowData.of(StringData.fromString("a\0"), null))
                        .sqlState())
                .isEqualTo("22021");
        assertThat(out.size()).as("nothing of the refused rows").isZero();
    }

    @Test
    void retainedRowsKeepTheirValuesWhenTheRecordIsReused() {
        RowType type = RowType.of(
                new LogicalType[] {new BigIntType(), STRING, new ArrayType(STRING), new VarBinaryType(4)},
                new String[] {"id", "s", "a", "b"});
        RowDataRows rows = new RowDataRows(type);
        byte[] utf8 = "first".getBytes(StandardCharsets.UTF_8);
        byte[] bytes = {1, 2};
        GenericRowData reused = GenericRowData.ofKind(
                RowKind.UPDATE_AFTER,
                1L,
                BinaryStringData.fromBytes(utf8),
                new GenericArrayData(new Object[] {BinaryStringData.fromBytes(utf8)}),
                bytes);
        RowData kept = rows.retain(reused);
        byte[] second = "xxxxx".getBytes(StandardCharsets.UTF_8);
        System.arraycopy(second, 0, utf8, 0, utf8.length); // the producer writes the next record into the same memory
        bytes[0] = 9;
        reused.setField(0, 2L);
        assertThat(rows.shown(reused)).isEqualTo("+U[2, xxxxx, [xxxxx], \\x0902]");
        assertThat(rows.shown(kept)).isEqualTo("+U[1, first, [first], \\x0102]");
        assertThat(kept.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
    }

    @Test
    void rowsAreShownAsFlinksRowsPrintWithPostgresDatesAndTimes() {
        RowType type = RowType.of(
                new LogicalType[] {
                    new IntType(), STRING, new DateType(), new LocalZonedTimestampType(3), new DecimalType(5, 2)
                },
                new String[] {"a", "b", "c", "d", "e"});
        GenericRowData row = GenericRowData.ofKind(
                RowKind.DELETE,
                7,
                null,
                0,
                TimestampData.fromEpochMillis(1500),
                DecimalData.fromBigDecimal(new BigDecimal("-1.50"), 5, 2));
        assertThat(new RowDataRows(type).shown(row))
                .isEqualTo("-D[7, null, 1970-01-01, 1970-01-01 00:00:01.5+00, -1.50]");
    }

    private static BinaryCopyEncoder.Refused refused(
            RowEncoder<RowData> encoder, BinaryCopyEncoder.Buffer out, RowData row) {
        return catchThrowableOfType(BinaryCopyEncoder.Refused.class, () -> encoder.copy(row, out));
    }

    private static byte[] copied(RowEncoder<RowData> encoder, RowData row) {
        BinaryCopyEncoder.Buffer out = new BinaryCopyEncoder.Buffer(16);
        encoder.copy(row, out);
        return Arrays.copyOf(out.array(), out.size());
    }

    private static byte[] copied(BinaryCopyEncoder encoder, Object[] values) {
        BinaryCopyEncoder.Buffer out = new BinaryCopyEncoder.Buffer(16);
        encoder.row(out, values);
        return Arrays.copyOf(out.array(), out.size());
    }
}
