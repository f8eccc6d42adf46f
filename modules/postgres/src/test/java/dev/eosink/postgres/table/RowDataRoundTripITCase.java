/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.WriteMethod;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Flink type the RowData sink writes, into each PostgreSQL type of docs/types.md's table that
 * matters, with nulls and edge values, through binary COPY, JDBC batches and upserts (new keys by
 * COPY, then the same keys again as array-bound statements, and deletes): what PostgreSQL stored, read
 * back with pgjdbc as numbers, bits and text it computes itself, is the input. The writer and
 * committer sessions are driven directly, one epoch at a time.
 */
class RowDataRoundTripITCase extends ExactlyOnceTestBase {

    private static final int ROWS = 36;

    /** A column: the Flink type, the PostgreSQL type, how to read it back, and its value per row. */
    private record Column(
            String name,
            LogicalType flink,
            String pg,
            String readBack,
            IntFunction<Object> value,
            IntFunction<String> expected) {}

    private static final List<Column> COLUMNS = new ArrayList<>();

    private static void column(
            String name, LogicalType flink, String pg, String readBack, Object[] internal, String[] expected) {
        COLUMNS.add(new Column(
                name,
                flink,
                pg,
                readBack.replace("$", name),
                i -> internal[i % internal.length],
                i -> expected[i % expected.length]));
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static int day(LocalDate d) {
        return (int) d.toEpochDay();
    }

    private static TimestampData ts(LocalDateTime t) {
        return TimestampData.fromLocalDateTime(t);
    }

    /** Microseconds since 1970 of a wall-clock time, as extract(epoch ...) gives them. */
    private static String micros(LocalDateTime t) {
        TimestampData d = ts(t);
        return BigDecimal.valueOf(d.getMillisecond())
                .multiply(BigDecimal.valueOf(1000))
                .add(BigDecimal.valueOf(d.getNanoOfMillisecond() / 1000))
                .toPlainString();
    }

    private static StringData str(String s) {
        return StringData.fromString(s);
    }

    private static DecimalData dec(String v, int p, int s) {
        return DecimalData.fromBigDecimal(new BigDecimal(v), p, s);
    }

    static {
        String bits = "encode(float4send($), 'hex')";
        String bits8 = "encode(float8send($), 'hex')";
        String epochMicros = "(extract(epoch FROM $) * 1000000)::numeric(40,0)::text";
        column(
                "ti",
                new TinyIntType(),
                "smallint",
                "$::text",
                new Object[] {Byte.MIN_VALUE, (byte) -1, (byte) 0, Byte.MAX_VALUE},
                new String[] {"-128", "-1", "0", "127"});
        column(
                "si",
                new SmallIntType(),
                "int2",
                "$::text",
                new Object[] {Short.MIN_VALUE, (short) 42, Short.MAX_VALUE},
                new String[] {"-32768", "42", "32767"});
        column(
                "i",
                new IntType(),
                "integer",
                "$::text",
                new Object[] {Integer.MIN_VALUE, -7, 0, Integer.MAX_VALUE},
                new String[] {"-2147483648", "-7", "0", "2147483647"});
        column("i8", new IntType(), "bigint", "$::text", new Object[] {Integer.MAX_VALUE, -1}, new String[] {
            "2147483647", "-1"
        });
        column(
                "b",
                new BigIntType(),
                "bigint",
                "$::text",
                new Object[] {Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE},
                new String[] {"-9223372036854775808", "-1", "0", "9223372036854775807"});
        column(
                "bn",
                new BigIntType(),
                "numeric",
                "$::text",
                new Object[] {Long.MIN_VALUE, 10L, Long.MAX_VALUE},
                new String[] {"-9223372036854775808", "10", "9223372036854775807"});
        column(
                "d",
                new DecimalType(38, 10),
                "numeric(38,10)",
                "$::text",
                new Object[] {
                    dec("0", 38, 10),
                    dec("-0.0000000001", 38, 10),
                    dec("1234567890123456789012345678.0123456789", 38, 10),
                    dec("-9999999999999999999999999999.9999999999", 38, 10),
                    dec("42.5", 38, 10)
                },
                new String[] {
                    "0.0000000000",
                    "-0.0000000001",
                    "1234567890123456789012345678.0123456789",
                    "-9999999999999999999999999999.9999999999",
                    "42.5000000000"
                });
        column(
                "d2",
                new DecimalType(5, 2),
                "numeric",
                "$::text",
                new Object[] {dec("0", 5, 2), dec("-999.99", 5, 2), dec("1.5", 5, 2), dec("0.01", 5, 2)},
                new String[] {"0.00", "-999.99", "1.50", "0.01"});
        float[] floats = {
            Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE, 0.1f
        };
        Object[] boxedFloats = new Object[floats.length];
        String[] floatBits = new String[floats.length];
        String[] floatAsDoubleBits = new String[floats.length];
        for (int k = 0; k < floats.length; k++) {
            boxedFloats[k] = floats[k];
            floatBits[k] = String.format("%08x", Float.floatToIntBits(floats[k]));
            floatAsDoubleBits[k] = String.format("%016x", Double.doubleToLongBits(floats[k]));
        }
        column("f", new FloatType(), "real", bits, boxedFloats, floatBits);
        column("f8", new FloatType(), "double precision", bits8, boxedFloats, floatAsDoubleBits);
        double[] doubles = {
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            -0.0,
            Double.MIN_VALUE,
            Double.MAX_VALUE,
            0.1,
            1e300
        };
        Object[] boxedDoubles = new Object[doubles.length];
        String[] doubleBits = new String[doubles.length];
        for (int k = 0; k < doubles.length; k++) {
            boxedDoubles[k] = doubles[k];
            doubleBits[k] = String.format("%016x", Double.doubleToLongBits(doubles[k]));
        }
        column("db", new DoubleType(), "float8", bits8, boxedDoubles, doubleBits);
        column("bo", new BooleanType(), "boolean", "$::text", new Object[] {true, false}, new String[] {"true", "false"
        });
        String[] texts = {
            "", "plain", "ünïcödé", "emoji 😀 and 𝄞", "quote \" back \\ comma , brace {}", "tab\tline\n", "NULL"
        };
        Object[] textData = new Object[texts.length];
        for (int k = 0; k < texts.length; k++) {
            textData[k] = str(texts[k]);
        }
        column("s", VarCharType.STRING_TYPE, "text", "$", textData, texts);
        column(
                "vc",
                new VarCharType(10),
                "varchar(10)",
                "$",
                new Object[] {str(""), str("abcdefghij"), str("äöüäöüäöüä"), str("x")},
                new String[] {"", "abcdefghij", "äöüäöüäöüä", "x"});
        column("c", new CharType(3), "char(3)", "$", new Object[] {str("abc"), str("a"), str("")}, new String[] {
            "abc", "a  ", "   "
        });
        column(
                "j",
                VarCharType.STRING_TYPE,
                "json",
                "$::text",
                new Object[] {str("{\"a\":1}"), str("[1, 2,  3]"), str("null")},
                new String[] {"{\"a\":1}", "[1, 2,  3]", "null"});
        column(
                "jb",
                VarCharType.STRING_TYPE,
                "jsonb",
                "$::text",
                new Object[] {str("{\"a\": 1}"), str("[1, 2, 3]"), str("{\"a\": {\"b\": [true, null]}}")},
                new String[] {"{\"a\": 1}", "[1, 2, 3]", "{\"a\": {\"b\": [true, null]}}"});
        column(
                "u",
                VarCharType.STRING_TYPE,
                "uuid",
                "$::text",
                new Object[] {
                    str("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
                    str("A0EEBC999C0B4EF8BB6D6BB9BD380A12"),
                    str("{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a13}")
                },
                new String[] {
                    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12",
                    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a13"
                });
        byte[] many = new byte[300];
        for (int k = 0; k < many.length; k++) {
            many[k] = (byte) (k * 7);
        }
        column(
                "by",
                new VarBinaryType(VarBinaryType.MAX_LENGTH),
                "bytea",
                "encode($, 'hex')",
                new Object[] {new byte[0], new byte[] {0}, new byte[] {-1, 0, 1}, many},
                new String[] {"", "00", "ff0001", hex(many)});
        LocalDate[] dates = {
            LocalDate.of(1, 1, 1),
            LocalDate.of(-99, 3, 1),
            LocalDate.of(1969, 12, 31),
            LocalDate.of(1970, 1, 1),
            LocalDate.of(1999, 12, 31),
            LocalDate.of(2000, 2, 29),
            LocalDate.of(9999, 12, 31),
            LocalDate.of(200_000, 1, 1)
        };
        Object[] dateDays = new Object[dates.length];
        String[] dateTexts = new String[dates.length];
        for (int k = 0; k < dates.length; k++) {
            dateDays[k] = day(dates[k]);
            dateTexts[k] = Integer.toString(day(dates[k]));
        }
        column("dt", new DateType(), "date", "($ - DATE '1970-01-01')::text", dateDays, dateTexts);
        column(
                "tm",
                new TimeType(3),
                "time(3)",
                "(extract(epoch FROM $) * 1000)::bigint::text",
                new Object[] {0, 1, 45_296_789, 86_399_999},
                new String[] {"0", "1", "45296789", "86399999"});
        LocalDateTime[] times = {
            LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1000),
            LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000),
            LocalDateTime.of(1900, 1, 1, 12, 0),
            LocalDateTime.of(2000, 1, 1, 0, 0),
            LocalDateTime.of(1, 1, 1, 0, 0),
            LocalDateTime.of(-1000, 6, 1, 6, 30, 0, 123_456_000),
            LocalDateTime.of(100_000, 1, 1, 0, 0, 0, 500_000_000)
        };
        Object[] timeData = new Object[times.length];
        String[] timeMicros = new String[times.length];
        for (int k = 0; k < times.length; k++) {
            timeData[k] = ts(times[k]);
            timeMicros[k] = micros(times[k]);
        }
        column("ts", new TimestampType(6), "timestamp", epochMicros, timeData, timeMicros);
        column(
                "ts3",
                new TimestampType(3),
                "timestamp(3)",
                epochMicros,
                new Object[] {
                    ts(LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1_000_000)),
                    ts(LocalDateTime.of(2024, 2, 29, 23, 59, 59, 999_000_000))
                },
                new String[] {"1000", micros(LocalDateTime.of(2024, 2, 29, 23, 59, 59, 999_000_000))});
        Instant[] instants = {
            Instant.EPOCH,
            Instant.EPOCH.minusNanos(1000),
            Instant.parse("2038-01-19T03:14:08Z"),
            Instant.parse("0001-01-01T00:00:00Z"),
            Instant.parse("+200000-01-01T00:00:00.000001Z")
        };
        Object[] instantData = new Object[instants.length];
        String[] instantMicros = new String[instants.length];
        for (int k = 0; k < instants.length; k++) {
            instantData[k] = TimestampData.fromInstant(instants[k]);
            instantMicros[k] = BigDecimal.valueOf(instants[k].getEpochSecond())
                    .multiply(BigDecimal.valueOf(1_000_000))
                    .add(BigDecimal.valueOf(instants[k].getNano() / 1000))
                    .toPlainString();
        }
        column("tz", new LocalZonedTimestampType(6), "timestamptz", epochMicros, instantData, instantMicros);
        column(
                "ai",
                new ArrayType(new IntType()),
                "integer[]",
                "$::text",
                new Object[] {
                    new GenericArrayData(new int[0]),
                    new GenericArrayData(new int[] {1}),
                    new GenericArrayData(new Object[] {1, null, -3})
                },
                new String[] {"{}", "{1}", "{1,NULL,-3}"});
        column(
                "al",
                new ArrayType(new BigIntType()),
                "int8[]",
                "$::text",
                new Object[] {
                    new GenericArrayData(new long[] {Long.MIN_VALUE, Long.MAX_VALUE}), new GenericArrayData(new long[0])
                },
                new String[] {"{-9223372036854775808,9223372036854775807}", "{}"});
        column(
                "ast",
                new ArrayType(VarCharType.STRING_TYPE),
                "text[]",
                "$::text",
                new Object[] {
                    new GenericArrayData(
                            new Object[] {str("a"), str("b c"), str(""), str("NULL"), null, str("q\"b\\c,{}")}),
                    new GenericArrayData(new Object[0]),
                    new GenericArrayData(new Object[] {str("ü😀")})
                },
                new String[] {"{a,\"b c\",\"\",\"NULL\",NULL,\"q\\\"b\\\\c,{}\"}", "{}", "{ü😀}"});
        column(
                "ad",
                new ArrayType(new DoubleType()),
                "float8[]",
                "$::text",
                new Object[] {
                    new GenericArrayData(
                            new double[] {1.5, -2.25, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0
                            })
                },
                new String[] {"{1.5,-2.25,NaN,Infinity,-Infinity,0}"});
        column(
                "an",
                new ArrayType(new DecimalType(10, 2)),
                "numeric[]",
                "$::text",
                new Object[] {new GenericArrayData(new Object[] {dec("1.5", 10, 2), dec("-0.01", 10, 2), null})},
                new String[] {"{1.50,-0.01,NULL}"});
        column(
                "ab",
                new ArrayType(new BooleanType()),
                "boolean[]",
                "$::text",
                new Object[] {
                    new GenericArrayData(new Object[] {true, false, null}), new GenericArrayData(new boolean[] {false})
                },
                new String[] {"{t,f,NULL}", "{f}"});
        column(
                "adt",
                new ArrayType(new DateType()),
                "date[]",
                "CASE WHEN $ IS NULL THEN NULL ELSE ARRAY(SELECT x - DATE "
                        + "'1970-01-01' FROM unnest($) WITH ORDINALITY u(x, n) ORDER BY n)::text END",
                new Object[] {
                    new GenericArrayData(
                            new Object[] {0, day(LocalDate.of(2000, 1, 1)), null, day(LocalDate.of(-99, 3, 1))})
                },
                new String[] {"{0," + day(LocalDate.of(2000, 1, 1)) + ",NULL," + day(LocalDate.of(-99, 3, 1)) + "}"});
        column(
                "en",
                VarCharType.STRING_TYPE,
                "MOOD",
                "$::text",
                new Object[] {str("sad"), str("ok"), str("happy")},
                new String[] {"sad", "ok", "happy"});
        column("ci", VarCharType.STRING_TYPE, "citext", "$::text", new Object[] {str("MiXeD"), str("ß")}, new String[] {
            "MiXeD", "ß"
        });
    }

    /** Row {@code id}'s fields, shifted by {@code shift} through each column's values; NULLs in every 7th row. */
    private static GenericRowData row(int id, int shift, RowKind kind) {
        GenericRowData row = new GenericRowData(kind, COLUMNS.size() + 1);
        row.setField(0, (long) id);
        for (int c = 0; c < COLUMNS.size(); c++) {
            row.setField(c + 1, id % 7 == 3 ? null : COLUMNS.get(c).value().apply(id + shift));
        }
        return row;
    }

    private static RowType rowType() {
        List<LogicalType> types = new ArrayList<>();
        List<String> names = new ArrayList<>();
        types.add(new BigIntType(false));
        names.add("id");
        for (Column c : COLUMNS) {
            types.add(c.flink());
            names.add(c.name());
        }
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"COPY", "BATCH", "UPSERT"})
    void everyTypeIsStoredAsItWasGiven(String mode) throws Exception {
        String mood = table + "_mood";
        db.execute("CREATE EXTENSION IF NOT EXISTS citext");
        db.execute("DROP TABLE " + table + "; CREATE TYPE " + mood + " AS ENUM ('sad', 'ok', 'happy')");
        StringBuilder ddl = new StringBuilder("CREATE TABLE " + table + " (id bigint PRIMARY KEY");
        for (Column c : COLUMNS) {
            ddl.append(", ").append(c.name()).append(' ').append(c.pg().replace("MOOD", mood));
        }
        db.execute(ddl.append(")").toString());
        var builder = PostgresRowDataSink.builder(rowType())
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .table(table)
                .writeMethod(mode.equals("BATCH") ? WriteMethod.BATCH : WriteMethod.COPY)
                .batchSize(10);
        if (mode.equals("UPSERT")) {
            builder.upsert("id");
        }
        ExactlyOnceSink<RowData> sink = builder.build();
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 0, new JobRun("roundtrip", OptionalLong.empty()));
        try (WriterSession<RowData> writer = sink.database().openWriter(context);
                CommitSession committer = sink.database().openCommitter(context)) {
            writer.recovery().claim(0, 10_000);
            epoch(writer, committer, 1, 0, RowKind.INSERT);
            if (mode.equals("UPSERT")) {
                // The same keys again, every value changed, as statements; every 5th a delete, and
                // UPDATE_BEFOREs, each followed by its key's UPDATE_AFTER or DELETE.
                epoch(writer, committer, 2, 1, null);
            }
        }
        List<String> differing = new ArrayList<>();
        StringBuilder select = new StringBuilder("SELECT id");
        for (Column c : COLUMNS) {
            select.append(", ").append(c.readBack());
        }
        int rows = 0;
        try (Connection conn = db.connect();
                Statement s = conn.createStatement();
                ResultSet rs = s.executeQuery(select.append(" FROM ")
                        .append(table)
                        .append(" ORDER BY id")
                        .toString())) {
            while (rs.next()) {
                rows++;
                int id = (int) rs.getLong(1);
                int shift = mode.equals("UPSERT") ? 1 : 0;
                assertThat(mode.equals("UPSERT") && id % 5 == 4)
                        .as("deleted id %s", id)
                        .isFalse();
                for (int c = 0; c < COLUMNS.size(); c++) {
                    String expected =
                            id % 7 == 3 ? null : COLUMNS.get(c).expected().apply(id + shift);
                    String actual = rs.getString(c + 2);
                    if (!Objects.equals(expected, actual)) {
                        differing.add(COLUMNS.get(c).name() + " of id " + id + ": expected <" + expected + "> but was <"
                                + actual + ">");
                    }
                }
            }
        }
        assertThat(differing)
                .as("values PostgreSQL stored other than given (%s)", mode)
                .isEmpty();
        assertThat(rows).isEqualTo(mode.equals("UPSERT") ? ROWS - ROWS / 5 : ROWS);
        assertThat(preparedLeft()).isEmpty();
    }

    /** One epoch of every id, prepared and committed; {@code kind} null: the upsert round's mix. */
    private void epoch(WriterSession<RowData> writer, CommitSession committer, long checkpoint, int shift, RowKind kind)
            throws Exception {
        TransactionId id = new TransactionId(sinkId, 0, checkpoint, "rtrip00" + checkpoint);
        writer.epoch().begin(id);
        long position = 0;
        for (int i = 0; i < ROWS; i++) {
            if (kind == null && i % 6 == 1) {
                writer.epoch().write(row(i, 99, RowKind.UPDATE_BEFORE), position++);
            }
            RowKind k = kind != null ? kind : i % 5 == 4 ? RowKind.DELETE : RowKind.UPDATE_AFTER;
            GenericRowData row = row(i, shift, k);
            writer.epoch().write(row, position++);
            // A reused record: the writer must not keep this object (batches and upserts hold rows).
            for (int f = 1; f < row.getArity(); f++) {
                row.setField(f, null);
            }
        }
        writer.epoch().prepare(id, position);
        assertThat(committer.commit(id)).isEqualTo(CommitSession.Attempt.COMMITTED);
    }
}
