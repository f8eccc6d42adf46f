/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The three ways rows reach the table (binary COPY, JDBC batches, array-bound upserts) write the
 * same values, and keep exactly-once under failure.
 */
class WriteMethodsITCase extends ExactlyOnceTestBase {

    private static final String COLUMNS =
            "i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, b bool, n numeric, n2 numeric(12,4), t text, "
                    + "vc varchar(10), c3 char(3), j json, jb jsonb, by bytea, u uuid, d date, ts timestamp, tz timestamptz";

    private static final String[] NAMES = {
        "i2", "i4", "i8", "f4", "f8", "b", "n", "n2", "t", "vc", "c3", "j", "jb", "by", "u", "d", "ts", "tz"
    };

    /** A row of every supported type from an index, with edge values and NULLs. */
    static Object[] typedRow(long i) {
        boolean nulls = i % 7 == 3;
        BigDecimal[] numerics = {
            BigDecimal.ZERO,
            new BigDecimal("-12345.6789"),
            new BigDecimal("0.0001"),
            new BigDecimal("1E+20"),
            new BigDecimal("99999999.9999"),
            new BigDecimal("-0.5"),
            new BigDecimal("123456789012345678901234567890.123")
        };
        return new Object[] {
            nulls ? null : (short) (i % 30000 - 15000),
            (int) (i * 7919 % 2_000_000_000) - 1_000_000_000,
            i * 1_000_003L - 5_000_000_000L,
            nulls ? null : (float) (i / 3.0),
            i / 7.0 - 100,
            i % 2 == 0,
            numerics[(int) (i % numerics.length)],
            new BigDecimal(i % 1000).movePointLeft(4).add(BigDecimal.valueOf(i % 99999)),
            nulls ? null : "row " + i + " ünïcödé \t\"quoted\" \\back",
            "v" + (i % 100000),
            "c" + (i % 10),
            "{\"i\": " + i + "}",
            "{\"k\": [" + i + ", \"x\"]}",
            new byte[] {(byte) i, 0, (byte) 0xff, (byte) (i >> 8)},
            new UUID(i, ~i),
            LocalDate.of(2026, 1, 1).plusDays(i % 5000 - 2500),
            LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(i * 1_234_567_000L),
            OffsetDateTime.ofInstant(
                    Instant.ofEpochSecond(1_767_225_600L + i, i * 1000 % 1_000_000_000), ZoneOffset.ofHours(2))
        };
    }

    /** Binary COPY and JDBC batches store identical values for every supported type. */
    @Test
    void copyAndBatchWriteTheSameValues() throws Exception {
        String copyTable = table + "_copy";
        String batchTable = table + "_batch";
        db.execute("CREATE TABLE " + copyTable + " (id bigint NOT NULL, " + COLUMNS + ")");
        db.execute("CREATE TABLE " + batchTable + " (id bigint NOT NULL, " + COLUMNS + ")");
        String[] cols = new String[NAMES.length + 1];
        cols[0] = "id";
        System.arraycopy(NAMES, 0, cols, 1, NAMES.length);
        try {
            StreamExecutionEnvironment env = env(2, 200);
            var ids = ids(env, 3_000, 6_000);
            ids.sinkTo(PostgresSink.<Long>builder()
                    .jdbcUrl(db.jdbcUrl())
                    .username(db.user())
                    .password(db.password())
                    .sinkId(sinkId + "-c")
                    .table(copyTable)
                    .columns(cols)
                    .rows(WriteMethodsITCase::withId)
                    .writeMethod(WriteMethod.COPY)
                    .build());
            ids.sinkTo(PostgresSink.<Long>builder()
                    .jdbcUrl(db.jdbcUrl())
                    .username(db.user())
                    .password(db.password())
                    .sinkId(sinkId + "-b")
                    .table(batchTable)
                    .columns(cols)
                    .rows(WriteMethodsITCase::withId)
                    .writeMethod(WriteMethod.BATCH)
                    .build());
            env.execute("copy vs batch");

            assertThat(db.count("SELECT count(*) FROM " + copyTable)).isEqualTo(3_000);
            assertThat(db.count("SELECT count(*) FROM " + batchTable)).isEqualTo(3_000);
            // Compare column by column as text: json has no equality operator, and text shows every digit.
            java.util.List<String> differing = new java.util.ArrayList<>();
            for (String column : NAMES) {
                long diff = db.count("SELECT count(*) FROM " + copyTable + " c JOIN " + batchTable + " b USING (id) "
                        + "WHERE c." + column + "::text IS DISTINCT FROM b." + column + "::text");
                if (diff > 0) {
                    differing.add(column + " (" + diff + " rows, e.g. "
                            + db.count("SELECT min(id) FROM " + copyTable + " c JOIN " + batchTable
                                    + " b USING (id) WHERE c." + column + "::text IS DISTINCT FROM b." + column
                                    + "::text")
                            + ")");
                }
            }
            assertThat(differing)
                    .as("columns where COPY and batch stored different values")
                    .isEmpty();
            assertThat(db.count("SELECT count(*) FROM " + copyTable + " WHERE n2 IS NULL OR tz IS NULL"))
                    .isZero();
            assertThat(db.preparedGids("eos1/" + sinkId)).isEmpty();
        } finally {
            db.rollbackPrepared("eos1/" + sinkId);
        }
    }

    private static Object[] withId(Long id) {
        Object[] row = typedRow(id);
        Object[] out = new Object[row.length + 1];
        out[0] = id;
        System.arraycopy(row, 0, out, 1, row.length);
        return out;
    }

    /**
     * Upserts keep the last write of each key, inside a batch and across batches, and deletes from a
     * changelog remove the key, as UPDATE_BEFOREs do unless a later record of the key wins; under a
     * failure after prepare the end state is still exact.
     */
    @Test
    void upsertsAndDeletesEndInTheLastStateOfEachKey() throws Exception {
        String kv = table + "_kv";
        db.execute("CREATE TABLE " + kv + " (k bigint PRIMARY KEY, v bigint NOT NULL, note text)");
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);
        int n = 6_000;
        StreamExecutionEnvironment env = env(1, 150);
        CheckpointPacedIds.ids(env, n, 750) // at least four epochs with records: the third PREPARE comes
                .sinkTo(FaultInjectingDatabase.wrap(PostgresSink.<Long>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .table(kv)
                        .columns("k", "v", "note")
                        .rows(i -> new Object[] {key(i), i, i % 5 == 0 ? null : "n" + i})
                        .upsert("k")
                        .changelog(i ->
                                i % 11 == 10 ? RowKind.DELETE : i % 13 == 12 ? RowKind.UPDATE_BEFORE : RowKind.INSERT)
                        .batchSize(500)
                        .build()));
        env.execute("upserts");

        // The expected end state, replayed in order from the same functions.
        Map<Long, Long> expected = new HashMap<>();
        for (long i = 0; i < n; i++) {
            if (i % 11 == 10 || i % 13 == 12) { // DELETE or UPDATE_BEFORE
                expected.remove(key(i));
            } else {
                expected.put(key(i), i);
            }
        }
        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertThat(preparedLeft()).isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + kv)).isEqualTo(expected.size());
        long wrong = 0;
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            wrong += db.count("SELECT count(*) FROM " + kv + " WHERE k = ? AND v <> ?", e.getKey(), e.getValue());
        }
        assertThat(wrong).as("keys whose value is not the last write").isZero();
        assertThat(db.count("SELECT count(*) FROM " + kv + " WHERE note IS NOT NULL AND v % 5 = 0"))
                .isZero();
    }

    /**
     * Inserts into an automatically updatable view: COPY FROM refuses views ("cannot copy to view"),
     * so the sink sees the view at start and writes JDBC batches instead of COPY; exactly-once, with
     * a failure after prepare.
     */
    @Test
    void insertsIntoAViewGoAsBatches() throws Exception {
        db.execute("CREATE VIEW " + table + "_v AS SELECT id, payload FROM " + table);
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 2);
        StreamExecutionEnvironment env = env(1, 150);
        // At least three epochs with records: the second PREPARE comes.
        CheckpointPacedIds.ids(env, 3_000, 500)
                .sinkTo(FaultInjectingDatabase.wrap(
                        sinkBuilder(sinkId, table + "_v").build()));
        env.execute("inserts into a view");
        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertExactlyOnce(3_000);
    }

    /** A NULL in a NOT NULL column through COPY: the row is named, nothing is visible. */
    @Test
    void copyRefusesANullForANotNullColumn() throws Exception {
        StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
        ids(env, 3_000, 100_000)
                .sinkTo(sinkBuilder(sinkId, table)
                        .rows(id -> new Object[] {id, id == 2_500 ? null : "row-" + id})
                        .build());
        Throwable thrown = catchThrowable(() -> env.execute("null in copy"));
        assertThat(sinkError(thrown))
                .hasMessageContaining("epoch of checkpoint 1")
                .hasMessageContaining("record #2500 of the epoch")
                .hasMessageContaining("Failing row contains (2500, null)")
                .hasMessageContaining("violates not-null constraint")
                .hasMessageContaining("SQLSTATE 23502");
        assertThat(rows()).isZero();
        assertThat(preparedLeft()).isEmpty();
    }

    /** A value of the wrong Java type never reaches the server: the column and types are named. */
    @Test
    void copyRefusesAValueOfTheWrongType() throws Exception {
        StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
        ids(env, 100, 100_000)
                .sinkTo(sinkBuilder(sinkId, table)
                        .rows(id -> new Object[] {id == 42 ? (Object) "forty-two" : id, "row-" + id})
                        .build());
        Throwable thrown = catchThrowable(() -> env.execute("wrong type in copy"));
        assertThat(sinkError(thrown))
                .hasMessageContaining("record #42 of the epoch (counting from 0) [42]")
                .hasMessageContaining("column \"id\": expected bigint")
                .hasMessageContaining("got java.lang.String");
        assertThat(rows()).isZero();
        assertThat(preparedLeft()).isEmpty();
    }

    /** The outermost SinkException in a job failure's cause chain: the message the user reads. */
    static Throwable sinkError(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof dev.eosink.core.SinkException) {
                return c;
            }
        }
        throw new AssertionError("no SinkException in the cause chain", t);
    }

    /** 10% of the records repeat an earlier key, often within the same batch. */
    static long key(long i) {
        return i % 10 == 9 ? (i * 7) % (i + 1) : i;
    }

    /** A refused row in a COPY is named by its position in the epoch; nothing of the epoch is visible. */
    @Test
    void copyNamesTheRefusedRow() throws Exception {
        db.execute("ALTER TABLE " + table + " ADD CONSTRAINT small_ids CHECK (id <> 1234)");
        StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
        ids(env, 3_000, 100_000).sinkTo(sinkBuilder(sinkId, table).build());
        Throwable thrown = catchThrowable(() -> env.execute("refused row"));
        assertThat(sinkError(thrown))
                .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                .hasMessageContaining("epoch of checkpoint 1")
                .hasMessageContaining("record #1234 of the epoch")
                .hasMessageContaining("Failing row contains (1234, row-1234)")
                .hasMessageContaining("small_ids")
                .hasMessageContaining("table \"" + table + "\"");
        assertThat(rows()).isZero();
        assertThat(preparedLeft()).isEmpty();
    }
}
