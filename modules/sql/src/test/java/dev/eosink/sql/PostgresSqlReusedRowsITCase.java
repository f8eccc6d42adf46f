/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rows whose producer writes every record into the same object, as Flink's own operators do, through
 * {@code 'connector' = 'eosink-postgres'} (binary COPY), with Flink's object reuse on and off. On, the
 * sink gets the producer's very object, record after record, and must copy what it keeps past a write
 * (the latest records COPY sent, to show the one the server refuses); off, Flink copies each record
 * between the operators. Either way every row reaches the table once with its own values, and a row
 * the server refuses is shown as itself, not as a later record written into the same object.
 */
class PostgresSqlReusedRowsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private static final RowType ROW = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "payload"});

    private final PostgresFixture db = PostgresFixture.get();
    /** This test's table, and its sink id with dashes. */
    private String name;

    private final List<String> sinkIds = new ArrayList<>();

    /** How the producer makes its rows: always in the same object. */
    enum Producer {
        /** A GenericRowData whose fields are set again for each record. */
        GENERIC,
        /** A BinaryRowData whose memory is written again for each record. */
        BINARY
    }

    static Stream<Arguments> modes() {
        return Stream.of(
                Arguments.of(true, Producer.GENERIC),
                Arguments.of(true, Producer.BINARY),
                Arguments.of(false, Producer.GENERIC),
                Arguments.of(false, Producer.BINARY));
    }

    @BeforeEach
    void name() {
        name = "sql_reused_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100_000);
    }

    @AfterEach
    void rollBackLeftovers() {
        sinkIds.forEach(id -> db.rollbackPrepared(TransactionId.sinkPrefix(id)));
    }

    /** Ids 0..n-1 through the reused rows: exactly n rows, each id once with its own payload. */
    @ParameterizedTest(name = "object reuse {0}, {1} rows")
    @MethodSource("modes")
    void everyRowReachesTheTableOnceWithItsOwnValues(boolean objectReuse, Producer producer) throws Exception {
        long n = 3_000;
        db.execute("CREATE TABLE " + name + " (id bigint NOT NULL, payload text NOT NULL)");

        job(objectReuse, producer, n, new Configuration()).await();

        SqlTables.assertExactlyOnce(db, name, sinkId(), n);
    }

    /**
     * Restarts off, and the table refuses row 1234 (a CHECK constraint, which only the server knows):
     * COPY has sent later rows before the server's error comes back, in the same object as row 1234
     * when object reuse is on, yet the job's failure shows row 1234 as it was written. Nothing of that
     * epoch is visible or prepared; with the constraint dropped, a resume from the last retained
     * checkpoint ends with every row once.
     */
    @ParameterizedTest(name = "object reuse {0}, {1} rows")
    @MethodSource("modes")
    void aRefusedRowIsShownAsItWasWritten(boolean objectReuse, Producer producer, @TempDir Path checkpoints)
            throws Exception {
        db.execute("CREATE TABLE " + name + " (id bigint NOT NULL, payload text NOT NULL, " + "CONSTRAINT " + name
                + "_check CHECK (payload <> 'row-1234'))");

        Throwable failure =
                TestJobs.failureOf(() -> job(objectReuse, producer, 3_000, SqlJobs.noRestartsRetaining(checkpoints))
                        .await());

        String message = TestJobs.messageContaining(failure, "violates check constraint");
        assertThat(message).contains(name).contains(" [+I[1234, row-1234]]: ");
        SqlTables.assertNothingPreparedFrom(db, sinkId(), SqlTables.failedCheckpoint(message));
        assertThat(db.count("SELECT count(*) FROM " + name + " WHERE id >= 1234"))
                .as("rows of the failed epoch")
                .isZero();

        SqlTables.resolveThenChange(
                db, sinkId(), checkpoints, "ALTER TABLE " + name + " DROP CONSTRAINT " + name + "_check");
        job(objectReuse, producer, 3_000, SqlJobs.resumeFrom(checkpoints)).await();
        SqlTables.assertExactlyOnce(db, name, sinkId(), 3_000);
    }

    /**
     * {@code INSERT INTO} this test's table of ids 0..n-1 with payloads 'row-<id>', made by a producer
     * that reuses its row, at parallelism 1, checkpointing every 200 ms.
     */
    private TableResult job(boolean objectReuse, Producer producer, long n, Configuration extra) {
        Configuration conf = new Configuration(extra);
        conf.set(PipelineOptions.OBJECT_REUSE, objectReuse);
        StreamExecutionEnvironment env = TestJobs.env(1, SqlJobs.CHECKPOINT_MILLIS, conf);
        assertThat(env.getConfig().isObjectReuseEnabled()).as("object reuse").isEqualTo(objectReuse);
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(env);
        DataStream<RowData> rows = TestJobs.ids(env, n, 3_000)
                .map(producer == Producer.GENERIC ? new ReusedGenericRow() : new ReusedBinaryRow())
                .returns(InternalTypeInfo.of(ROW));
        tEnv.createTemporaryView("rows_in", rows);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE pg_sink (id BIGINT NOT NULL, payload STRING) " + SqlJobs.with(options()));
        return tEnv.executeSql("INSERT INTO pg_sink SELECT id, payload FROM rows_in");
    }

    private String sinkId() {
        return name.replace('_', '-');
    }

    /** The options of this test's table: the shared server, by COPY (the default), 1,000 rows a batch. */
    private Map<String, String> options() {
        sinkIds.add(sinkId());
        Map<String, String> options = SqlJobs.postgresOptions(db, name, sinkId());
        // The latest two batches are kept for messages: every epoch here (about 600 rows) fits.
        options.put("sink.batch-size", "1000");
        return options;
    }

    /** Each id into the same GenericRowData, a new string each time, as a generated Calc does. */
    private static final class ReusedGenericRow implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private transient GenericRowData row;

        @Override
        public RowData map(Long id) {
            if (row == null) {
                row = new GenericRowData(2);
            }
            row.setField(0, id);
            row.setField(1, StringData.fromString("row-" + id));
            return row;
        }
    }

    /** Each id into the same BinaryRowData and its memory, as Flink's binary operators write their output. */
    private static final class ReusedBinaryRow implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private transient BinaryRowData row;
        private transient BinaryRowWriter writer;

        @Override
        public RowData map(Long id) {
            if (row == null) {
                row = new BinaryRowData(2);
                writer = new BinaryRowWriter(row);
            }
            writer.reset();
            writer.writeLong(0, id);
            writer.writeString(1, StringData.fromString("row-" + id));
            writer.complete();
            return row;
        }
    }
}
