/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The job of the SQL writers: the benchmark's generator registered as a table, written into a table of
 * the connector under test by one TableEnvironment {@code INSERT INTO ... SELECT}, on the same local
 * MiniCluster, checkpoint interval, parallelism and records as the DataStream writers' jobs.
 *
 * <p>The generator makes Flink's internal rows ({@link RowData}), as a SQL source such as Kafka's hands
 * them to the planner, so the job measures the connector, not a conversion of Java objects into rows.
 * The planner owns what runs between the table and the sink, so {@link ProbeOperator} sits between the
 * generator and the table: chained into the sink's task for append, before the keyed exchange for upsert.
 *
 * <p>Upsert: one source, as in the DataStream job (so that the records of a key reach the sink in index
 * order), and the sink at the run's parallelism ({@code sink.parallelism}). Each connector is keyed as
 * its users get it: {@code eosink-postgres} keys its input by the primary key itself; the {@code jdbc}
 * connector does not, so its job sets {@code table.exec.sink.keyed-shuffle = FORCE}, the planner's keyed
 * shuffle by primary key (under {@code AUTO} the planner adds it only when the sink's parallelism
 * differs from its input's, and at parallelism 1 neither needs it).
 */
final class SqlJob {

    /** The generator's table: the columns of {@link Workload#createTable}, as the planner sees them. */
    static final RowType ROW = RowType.of(
            new org.apache.flink.table.types.logical.LogicalType[] {
                new BigIntType(false), VarCharType.STRING_TYPE, new BigIntType(), new LocalZonedTimestampType(3)
            },
            new String[] {"id", "k", "v", "ts"});

    private static final String COLUMNS_DDL = "id BIGINT NOT NULL, k STRING, v BIGINT, ts TIMESTAMP_LTZ(3)";

    private SqlJob() {}

    /** Writes records 0..count-1 of the workload of {@code rows} records through the writer's table. */
    static void run(Writer writer, Sinks.Target target, long count, long rows, int parallelism, long intervalMs)
            throws Exception {
        StreamExecutionEnvironment env = RunOne.environment(parallelism, intervalMs);
        Case workload = writer.workload;
        TypeInformation<RowData> type = InternalTypeInfo.of(ROW);
        DataGeneratorSource<RowData> source =
                new DataGeneratorSource<>(new Generator(workload, rows), count, RateLimiterStrategy.noOp(), type);
        DataStreamSource<RowData> rowsIn = env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows");
        if (workload == Case.UPSERT) {
            rowsIn.setParallelism(1);
        }
        DataStream<RowData> probed =
                rowsIn.transform("probe", type, new ProbeOperator<>()).setParallelism(rowsIn.getParallelism());

        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (writer == Writer.PEER_SQL_ALO_UPSERT) {
            tEnv.getConfig()
                    .set(
                            ExecutionConfigOptions.TABLE_EXEC_SINK_KEYED_SHUFFLE,
                            ExecutionConfigOptions.SinkKeyedShuffle.FORCE);
        }
        tEnv.createTemporaryView("rows_in", probed);
        tEnv.executeSql(createTable("sink_table", writer, target, parallelism));
        String insert = "INSERT INTO sink_table SELECT id, k, v, "
                + (writer == Writer.PEER_SQL_ALO_UPSERT ? "CAST(ts AS TIMESTAMP(3))" : "ts") + " FROM rows_in";
        // Planned once, onto the environment, and run as the DataStream writers' jobs are; the run's log
        // gets the job's operators, their parallelism and the exchanges between them.
        tEnv.createStatementSet().addInsertSql(insert).attachAsDataStream();
        System.out.println(env.getExecutionPlan());
        env.execute("bench " + writer.id + " p" + parallelism);
    }

    /** The sink table's DDL: the connector, its options, and the primary key for upsert. */
    static String createTable(String name, Writer writer, Sinks.Target t, int parallelism) {
        Map<String, String> with = new LinkedHashMap<>();
        switch (writer) {
            case EO_SQL:
            case EO_SQL_UPSERT:
                with.put("connector", "eosink-postgres");
                with.put("url", t.url);
                with.put("table-name", t.table);
                with.put("sink.id", t.table);
                with.put("sink.batch-size", String.valueOf(t.batchSize));
                with.put("sink.copy.max-backlog", Sinks.maxCopyBacklog() + " b");
                break;
            case PEER_SQL_ALO_UPSERT:
                with.put("connector", "jdbc");
                with.put("url", t.url);
                with.put("table-name", t.table);
                // as the DataStream peer: a batch of batchSize rows or 100 ms, the default retries
                with.put("sink.buffer-flush.max-rows", String.valueOf(t.batchSize));
                with.put("sink.buffer-flush.interval", Sinks.PEER_FLUSH_INTERVAL_MS + "ms");
                break;
            default:
                throw new IllegalArgumentException(writer.id + " is not a SQL writer");
        }
        if (!t.password.isEmpty()) {
            with.put("username", t.user);
            with.put("password", t.password);
        } else if (writer == Writer.PEER_SQL_ALO_UPSERT) {
            // The jdbc connector takes a username only with a password: the user goes in the URL.
            with.put("url", t.url + (t.url.contains("?") ? "&" : "?") + "user=" + t.user);
        } else {
            with.put("username", t.user);
        }
        boolean upsert = writer.workload == Case.UPSERT;
        if (upsert) {
            with.put("sink.parallelism", String.valueOf(parallelism)); // the source has 1
        }
        // The jdbc connector takes no TIMESTAMP_LTZ: a TIMESTAMP, in the session's time zone (the JVM's,
        // as pgjdbc sends it to the timestamptz column), as its users declare it.
        String columns = writer == Writer.PEER_SQL_ALO_UPSERT
                ? COLUMNS_DDL.replace("TIMESTAMP_LTZ(3)", "TIMESTAMP(3)")
                : COLUMNS_DDL;
        return "CREATE TEMPORARY TABLE " + name + " (" + columns + (upsert ? ", PRIMARY KEY (id) NOT ENFORCED" : "")
                + ") WITH ("
                + with.entrySet().stream()
                        .map(e -> quote(e.getKey()) + " = " + quote(e.getValue()))
                        .collect(Collectors.joining(", "))
                + ")";
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** Record i of the workload as a row of {@link #ROW}: the same values the DataStream writers get. */
    static final class Generator implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final Case workload;
        private final long rows;

        Generator(Case workload, long rows) {
            this.workload = workload;
            this.rows = rows;
        }

        @Override
        public RowData map(Long index) {
            BenchRow r = Workload.made(workload, index, rows);
            return GenericRowData.of(r.id, StringData.fromString(r.k), r.v, TimestampData.fromEpochMillis(r.tsMillis));
        }
    }
}
