/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.row.ColumnsRefused;
import dev.eosink.postgres.row.TargetColumn;

import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.eosink.postgres.table.Columns.array;
import static dev.eosink.postgres.table.Columns.numeric;
import static dev.eosink.postgres.table.Columns.scalar;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Which Flink type goes into which column type, and what the refusals say (docs/types.md's table). */
class TypeMappingTest {

    private static final LogicalType STRING = VarCharType.STRING_TYPE;

    /** Every pair of docs/types.md's table that is allowed: each gets a codec. */
    @Test
    void everyFlinkTypeGoesIntoTheColumnsOfTheTable() throws Exception {
        Map<LogicalType, List<TargetColumn>> allowed = Map.ofEntries(
                Map.entry(new BooleanType(), List.of(scalar("c", "bool"))),
                Map.entry(
                        new TinyIntType(),
                        List.of(
                                scalar("c", "int2"),
                                scalar("c", "int4"),
                                scalar("c", "int8"),
                                scalar("c", "numeric"),
                                scalar("c", "numeric", "numeric(3,0)", numeric(3, 0)))),
                Map.entry(
                        new SmallIntType(),
                        List.of(scalar("c", "int2"), scalar("c", "int4"), scalar("c", "int8"), scalar("c", "numeric"))),
                Map.entry(
                        new IntType(),
                        List.of(
                                scalar("c", "int4"),
                                scalar("c", "int8"),
                                scalar("c", "numeric", "numeric(12,2)", numeric(12, 2)))),
                Map.entry(new BigIntType(), List.of(scalar("c", "int8"), scalar("c", "numeric"))),
                Map.entry(new FloatType(), List.of(scalar("c", "float4"), scalar("c", "float8"))),
                Map.entry(new DoubleType(), List.of(scalar("c", "float8"))),
                Map.entry(
                        new DecimalType(10, 2),
                        List.of(
                                scalar("c", "numeric"),
                                scalar("c", "numeric", "numeric(10,2)", numeric(10, 2)),
                                scalar("c", "numeric", "numeric(14,4)", numeric(14, 4)))),
                Map.entry(
                        STRING,
                        List.of(
                                scalar("c", "text"),
                                scalar("c", "varchar", "character varying(5)", 9),
                                scalar("c", "varchar"),
                                scalar("c", "bpchar", "character(3)", 7),
                                scalar("c", "citext"),
                                scalar("c", "json"),
                                scalar("c", "jsonb"),
                                scalar("c", "uuid"),
                                scalar("c", "mood"))),
                Map.entry(new CharType(3), List.of(scalar("c", "bpchar", "character(3)", 7))),
                Map.entry(new VarBinaryType(VarBinaryType.MAX_LENGTH), List.of(scalar("c", "bytea"))),
                Map.entry(new BinaryType(16), List.of(scalar("c", "bytea"))),
                Map.entry(new DateType(), List.of(scalar("c", "date"))),
                Map.entry(
                        new TimeType(3),
                        List.of(scalar("c", "time"), scalar("c", "time", "time(3) without time zone", 3))),
                Map.entry(new TimeType(0), List.of(scalar("c", "time", "time(0) without time zone", 0))),
                Map.entry(new TimestampType(6), List.of(scalar("c", "timestamp"))),
                Map.entry(new TimestampType(3), List.of(scalar("c", "timestamp", "timestamp(3) without time zone", 3))),
                Map.entry(new LocalZonedTimestampType(3), List.of(scalar("c", "timestamptz"))),
                Map.entry(
                        new ArrayType(new IntType()),
                        List.of(
                                array("c", "int4", 23, "integer[]", -1),
                                array("c", "int8", 20, "bigint[]", -1),
                                array("c", "numeric", 1700, "numeric[]", -1))),
                Map.entry(
                        new ArrayType(STRING),
                        List.of(
                                array("c", "text", 25, "text[]", -1),
                                array("c", "varchar", 1043, "character varying(4)[]", 8))));
        for (Map.Entry<LogicalType, List<TargetColumn>> e : allowed.entrySet()) {
            for (TargetColumn column : e.getValue()) {
                assertThat(TypeMapping.codec(e.getKey(), column))
                        .as("%s into %s", e.getKey(), column)
                        .isNotNull();
            }
        }
    }

    @Test
    void aNarrowerColumnIsRefusedWithBothTypesAndTheRemedy() {
        TypeMapping.Mismatch m = catchThrowableOfType(
                TypeMapping.Mismatch.class,
                () -> TypeMapping.codec(new BigIntType(false), scalar("amount", "int4", "integer", -1)));
        assertThat(m)
                .hasMessage("column \"amount\": Flink type BIGINT cannot be written into integer (a BIGINT goes "
                        + "into bigint or numeric). Remedy: declare the column as INT in the Flink table, or ALTER the column "
                        + "to bigint");
        assertThat(refusal(new DoubleType(), scalar("c", "float4", "real", -1)))
                .contains(
                        "DOUBLE cannot be written into real",
                        "declare the column as FLOAT",
                        "ALTER the column to double precision");
        assertThat(refusal(new IntType(), scalar("c", "int2", "smallint", -1)))
                .contains("declare the column as SMALLINT");
        assertThat(refusal(STRING, scalar("c", "int8", "bigint", -1)))
                .contains("Flink type STRING cannot be written into bigint", "a STRING goes into text");
        assertThat(refusal(new TimestampType(3), scalar("c", "timestamptz", "timestamp with time zone", -1)))
                .contains(
                        "a TIMESTAMP, a wall-clock time, goes into timestamp without time zone",
                        "declare the column as TIMESTAMP_LTZ(6)",
                        "ALTER the column to timestamp(3)");
        assertThat(refusal(new LocalZonedTimestampType(3), scalar("c", "timestamp", "timestamp without time zone", -1)))
                .contains("a TIMESTAMP_LTZ, an instant");
        assertThat(refusal(new IntType(), scalar("c", "point", "point", -1)))
                .contains(
                        "ALTER the column to integer, or leave it out of the Flink table (no Flink type is written into point)");
    }

    @Test
    void columnsThatWouldRoundOrOverflowAreRefused() {
        assertThat(refusal(new DecimalType(12, 4), scalar("c", "numeric", "numeric(10,2)", numeric(10, 2))))
                .contains(
                        "DECIMAL(12, 4) cannot be written into numeric(10,2)",
                        "keeps 8 integer digits and 2 decimals",
                        "declare the column as DECIMAL(10, 2)",
                        "ALTER the column to numeric(12,4)");
        assertThat(refusal(new DecimalType(12, 4), scalar("c", "numeric", "numeric(12,4)", numeric(14, 6))))
                .isNull();
        assertThat(refusal(new IntType(), scalar("c", "numeric", "numeric(9,0)", numeric(9, 0))))
                .contains("up to 10 and 0");
        assertThat(refusal(new BigIntType(), scalar("c", "numeric", "numeric(20,2)", numeric(20, 2))))
                .contains("up to 19");
        assertThat(refusal(new TimestampType(6), scalar("c", "timestamp", "timestamp(3) without time zone", 3)))
                .contains("keeps 3 fractional digits of the 6", "declare the column as TIMESTAMP(3)");
        assertThat(refusal(new TimeType(3), scalar("c", "time", "time(0) without time zone", 0)))
                .contains("keeps 0");
        assertThat(refusal(new TimeType(6), scalar("c", "time", "time(3) without time zone", 3)))
                .as("Flink's TIME holds milliseconds whatever its precision")
                .isNull();
    }

    @Test
    void arraysGoIntoArraysOfTheirElementsColumnTypes() {
        assertThat(refusal(new ArrayType(new BigIntType()), array("c", "int4", 23, "integer[]", -1)))
                .contains(
                        "ARRAY<BIGINT> cannot be written into integer[]",
                        "declare the column as ARRAY<INT>",
                        "ALTER the column to bigint[]");
        assertThat(refusal(new ArrayType(new IntType()), scalar("c", "int4", "integer", -1)))
                .contains("an ARRAY goes into an array column", "ALTER the column to integer[]");
        assertThat(refusal(new IntType(), array("c", "int4", 23, "integer[]", -1)))
                .contains("only an ARRAY goes into an array column", "declare the column as ARRAY<INT>");
    }

    @Test
    void typesThatGoNowhereAreRefusedWhenTheSinkIsBuilt() {
        RowType type = RowType.of(
                new LogicalType[] {
                    new IntType(),
                    new MapType(STRING, new IntType()),
                    new ArrayType(new ArrayType(new IntType())),
                    new TimestampType(9),
                    RowType.of(new IntType())
                },
                new String[] {"ok", "m", "nested", "nanos", "r"});
        assertThatThrownBy(() -> PostgresRowDataSink.builder(type))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column \"m\": MAP<STRING, INT> has no PostgreSQL column type")
                .hasMessageContaining("column \"nested\": ARRAY<ARRAY<INT>> is an array of arrays")
                .hasMessageContaining("column \"nanos\": TIMESTAMP(9) has fractions of a second below microseconds")
                .hasMessageContaining("column \"r\": ROW<`f0` INT> has no PostgreSQL column type")
                .hasMessageNotContaining("\"ok\"");
    }

    /** Every column that does not fit, missing ones included, in one refusal; the fitting ones not named. */
    @Test
    void everyColumnThatDoesNotFitIsNamedInOneRefusal() {
        RowType type = RowType.of(
                new LogicalType[] {new BigIntType(false), new IntType(), STRING, new DateType()},
                new String[] {"id", "qty", "note", "day"});
        RowDataRows rows = new RowDataRows(type);
        ColumnsRefused refused = catchThrowableOfType(
                ColumnsRefused.class,
                () -> rows.encoder(List.of(
                        scalar("id", "int8", "bigint", -1), scalar("qty", "int2", "smallint", -1),
                        TargetColumn.missing("note"), scalar("day", "date"))));
        assertThat(refused.problems()).hasSize(2);
        assertThat(refused.problems().get(0))
                .startsWith("column \"qty\": Flink type INT cannot be written into smallint");
        assertThat(refused.problems().get(1))
                .isEqualTo(
                        "column \"note\" (Flink type STRING) is missing from the table. "
                                + "Remedy: add it (ALTER TABLE ... ADD COLUMN \"note\" text), or leave it out of the Flink table");
        assertThat(refused).hasMessage(String.join("; ", refused.problems()));

        ColumnsRefused count = catchThrowableOfType(
                ColumnsRefused.class, () -> rows.encoder(List.of(scalar("id", "int8"), scalar("qty", "int4"))));
        assertThat(count)
                .hasMessageContaining("the sink writes 2 columns [id, qty], but its row type")
                .hasMessageContaining("has 4 fields");
    }

    private static String refusal(LogicalType type, TargetColumn column) {
        try {
            TypeMapping.codec(type, column);
            return null;
        } catch (TypeMapping.Mismatch e) {
            return e.getMessage();
        }
    }
}
