/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.row.TargetColumn;
import dev.eosink.postgres.table.FieldCodecs.StringCodec;

import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

import java.util.List;
import java.util.Optional;

/**
 * Which PostgreSQL column types each Flink type may be written into, and the {@link FieldCodec} of
 * each pair: the table of docs/types.md. A value is never changed on its way: a column takes a Flink
 * type when it holds every value of it as it is (wider integers, more digits, more fractional
 * seconds), and is refused at start otherwise, with the types and a remedy. Text is the exception
 * that the server's own rules settle value by value: a varchar(n) takes a STRING, and refuses a
 * value longer than n, as a uuid column refuses a STRING that is not a uuid.
 *
 * <p>Refused wherever they go: TIMESTAMP(p) and TIMESTAMP_LTZ(p) with p above 6 (PostgreSQL keeps
 * microseconds), arrays of arrays, and the types without a PostgreSQL counterpart here (MAP, ROW,
 * MULTISET, INTERVAL, TIMESTAMP WITH TIME ZONE, RAW, ...).
 */
final class TypeMapping {

    private TypeMapping() {}

    /** A Flink type that cannot go into a column, with the sentence that says so. */
    static final class Mismatch extends Exception {
        private static final long serialVersionUID = 1L;

        Mismatch(String problem) {
            super(problem, null, false, false);
        }
    }

    /** The types of text a STRING is written into, by name; an enum column (category 'E') too. */
    private static final List<String> TEXT_TYPES =
            List.of("text", "varchar", "bpchar", "citext", "json", "jsonb", "uuid");

    /** Why {@code type} cannot be written into any column, or empty: checked when the sink is built. */
    static Optional<String> unsupported(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case DECIMAL:
            case CHAR:
            case VARCHAR:
            case BINARY:
            case VARBINARY:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return Optional.empty();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                int precision = timestampPrecision(type);
                return precision <= 6
                        ? Optional.empty()
                        : Optional.of(name(type) + " has fractions of a second below "
                                + "microseconds, which PostgreSQL does not keep. Remedy: declare it with precision 6 or less in "
                                + "the Flink table (CAST it in the query)");
            case ARRAY:
                LogicalType element = ((ArrayType) type).getElementType();
                if (element.getTypeRoot() == type.getTypeRoot()) {
                    return Optional.of(
                            name(type) + " is an array of arrays, which is not supported (PostgreSQL's arrays of "
                                    + "several dimensions must be rectangular). Remedy: write it as a JSON STRING into a jsonb column, "
                                    + "or flatten it");
                }
                return unsupported(element).map(why -> name(type) + ": its elements' type " + why);
            default:
                return Optional.of(
                        name(type) + " has no PostgreSQL column type it can be written into. Remedy: leave "
                                + "the column out, or turn it into a supported type in the query (a JSON STRING for jsonb, say)");
        }
    }

    /**
     * The codec of {@code type}'s values going into {@code column} (an existing one).
     *
     * @throws Mismatch naming the column, both types, and the remedy
     */
    static FieldCodec codec(LogicalType type, TargetColumn column) throws Mismatch {
        if (type.getTypeRoot() == LogicalTypeRoot.ARRAY) {
            if (!column.isArray()) {
                throw mismatch(type, column, "an ARRAY goes into an array column");
            }
            LogicalType elementType = ((ArrayType) type).getElementType();
            FieldCodec element = scalar(
                    elementType,
                    column.elementTypeName(),
                    column.elementCategory(),
                    column.typmod(),
                    -1,
                    column.declared(),
                    type,
                    column);
            return new ArrayCodec(element, column.elementOid(), elementType);
        }
        if (column.isArray()) {
            throw mismatch(type, column, "only an ARRAY goes into an array column");
        }
        return scalar(
                type,
                column.typeName(),
                column.category(),
                column.typmod(),
                column.declaredLength(),
                column.declared(),
                type,
                column);
    }

    /**
     * The codec of a scalar: a column's, or an array column's element's ({@code pgType}, {@code category}
     * and {@code typmod} are then the element's; a mismatch names the whole types, {@code flink} and
     * {@code column}).
     */
    private static FieldCodec scalar(
            LogicalType type,
            String pgType,
            char category,
            int typmod,
            int maxLength,
            String declared,
            LogicalType flink,
            TargetColumn column)
            throws Mismatch {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                expect(pgType.equals("bool"), flink, column, "a BOOLEAN goes into boolean");
                return new FieldCodecs.BooleanCodec();
            case TINYINT:
                return integer(
                        1,
                        3,
                        pgType,
                        typmod,
                        flink,
                        column,
                        "a TINYINT goes into smallint, integer, bigint or numeric");
            case SMALLINT:
                return integer(
                        2,
                        5,
                        pgType,
                        typmod,
                        flink,
                        column,
                        "a SMALLINT goes into smallint, integer, bigint or numeric");
            case INTEGER:
                return integer(4, 10, pgType, typmod, flink, column, "an INT goes into integer, bigint or numeric");
            case BIGINT:
                return integer(8, 19, pgType, typmod, flink, column, "a BIGINT goes into bigint or numeric");
            case FLOAT:
                expect(
                        pgType.equals("float4") || pgType.equals("float8"),
                        flink,
                        column,
                        "a FLOAT goes into real or double precision");
                return new FieldCodecs.FloatCodec(true, pgType.equals("float8"));
            case DOUBLE:
                expect(pgType.equals("float8"), flink, column, "a DOUBLE goes into double precision");
                return new FieldCodecs.FloatCodec(false, true);
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                expect(pgType.equals("numeric"), flink, column, "a DECIMAL goes into numeric");
                checkDigits(d.getPrecision() - d.getScale(), d.getScale(), typmod, flink, column);
                return new FieldCodecs.DecimalCodec(d.getPrecision(), d.getScale());
            }
            case CHAR:
            case VARCHAR:
                expect(
                        TEXT_TYPES.contains(pgType) || category == 'E',
                        flink,
                        column,
                        "a STRING goes into text, varchar, " + "char, citext, an enum, json, jsonb or uuid");
                StringCodec.Form form = pgType.equals("jsonb")
                        ? StringCodec.Form.JSONB
                        : pgType.equals("uuid") ? StringCodec.Form.UUID : StringCodec.Form.TEXT;
                return new StringCodec(form, maxLength, declared);
            case BINARY:
            case VARBINARY:
                expect(pgType.equals("bytea"), flink, column, "BYTES go into bytea");
                return new FieldCodecs.BytesCodec();
            case DATE:
                expect(pgType.equals("date"), flink, column, "a DATE goes into date");
                return new FieldCodecs.DateCodec();
            case TIME_WITHOUT_TIME_ZONE: {
                expect(pgType.equals("time"), flink, column, "a TIME goes into time");
                // Flink holds milliseconds whatever the precision: the column needs as many digits as there are.
                int digits = Math.min(((TimeType) type).getPrecision(), 3);
                expect(
                        fractionalDigits(typmod) >= digits,
                        flink,
                        column,
                        "the column keeps " + fractionalDigits(typmod) + " fractional digits of the " + digits
                                + " of the values, and would round them");
                return new FieldCodecs.TimeCodec();
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                boolean instant = type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
                expect(
                        pgType.equals(instant ? "timestamptz" : "timestamp"),
                        flink,
                        column,
                        instant
                                ? "a TIMESTAMP_LTZ, an instant, goes into timestamp with time zone"
                                : "a TIMESTAMP, a wall-clock time, goes into timestamp without time zone");
                int precision = timestampPrecision(type);
                expect(
                        fractionalDigits(typmod) >= precision,
                        flink,
                        column,
                        "the column keeps " + fractionalDigits(typmod) + " fractional digits of the " + precision
                                + " of the values, and would round them");
                return new FieldCodecs.TimestampCodec(precision, instant);
            }
            default:
                throw new Mismatch("column " + quote(column.name()) + ": "
                        + unsupported(flink).orElse(name(flink) + " is not supported"));
        }
    }

    private static FieldCodec integer(
            int width, int digits, String pgType, int typmod, LogicalType flink, TargetColumn column, String accepted)
            throws Mismatch {
        int pgWidth = pgType.equals("int2") ? 2 : pgType.equals("int4") ? 4 : pgType.equals("int8") ? 8 : 0;
        expect(pgWidth >= width || pgType.equals("numeric"), flink, column, accepted);
        if (pgWidth == 0) {
            checkDigits(digits, 0, typmod, flink, column);
        }
        return new FieldCodecs.IntegerCodec(width, pgWidth);
    }

    /** A numeric(p, s) column must keep every integer digit and every decimal of the values. */
    private static void checkDigits(int integerDigits, int scale, int typmod, LogicalType flink, TargetColumn column)
            throws Mismatch {
        if (typmod < 4) {
            return; // numeric without precision: any value
        }
        int p = ((typmod - 4) >> 16) & 0xffff;
        int s = (((typmod - 4) & 0x7ff) ^ 1024) - 1024; // 11 bits, signed since PostgreSQL 15
        expect(
                s >= scale && p - s >= integerDigits,
                flink,
                column,
                "the column keeps " + Math.max(0, p - s)
                        + " integer digits and " + s + " decimals, the values have up to " + integerDigits + " and "
                        + scale
                        + ", which would overflow or round");
    }

    /** The fractional digits of seconds a time or timestamp column keeps: its precision, 6 without one. */
    private static int fractionalDigits(int typmod) {
        return typmod < 0 ? 6 : typmod;
    }

    private static int timestampPrecision(LogicalType type) {
        return type instanceof TimestampType
                ? ((TimestampType) type).getPrecision()
                : ((LocalZonedTimestampType) type).getPrecision();
    }

    private static void expect(boolean fits, LogicalType flink, TargetColumn column, String why) throws Mismatch {
        if (!fits) {
            throw mismatch(flink, column, why);
        }
    }

    private static Mismatch mismatch(LogicalType flink, TargetColumn column, String why) {
        String declare = FlinkNames.flinkTypeFor(column);
        String alter = FlinkNames.postgresTypeFor(flink);
        String remedy = declare == null
                ? "ALTER the column to " + alter
                        + ", or leave it out of the Flink table (no Flink type is written into " + column.declared()
                        + ")"
                : "declare the column as " + declare + " in the Flink table, or ALTER the column to " + alter;
        return new Mismatch("column " + quote(column.name()) + ": Flink type " + name(flink)
                + " cannot be written into " + column.declared() + " (" + why + "). Remedy: " + remedy);
    }

    /** The problem of a column the table lacks. */
    static String missing(String column, LogicalType flink) {
        return "column " + quote(column) + " (Flink type " + name(flink)
                + ") is missing from the table. Remedy: add it "
                + "(ALTER TABLE ... ADD COLUMN " + quote(column) + " " + FlinkNames.postgresTypeFor(flink)
                + "), or leave it out of the Flink table";
    }

    /** A Flink type as SQL spells it, without NOT NULL (nullability is the database's to check). */
    static String name(LogicalType type) {
        return type.copy(true).asSummaryString();
    }

    static String quote(String column) {
        return "\"" + column.replace("\"", "\"\"") + "\"";
    }
}
