/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

/**
 * One measured run, in a JVM of its own (fresh heap and JIT): raw COPY, or one Flink job on a local
 * MiniCluster writing N rows through one sink (or one SQL table, {@link SqlJob}) into a fresh, empty
 * table the orchestrator created.
 * Writes what it measured to the result file and exits; the orchestrator reads the table.
 *
 * <p>With {@code --warmup-rows W}, the same writer first runs W rows into a scratch table, in the same
 * JVM, which is then dropped; what the measured job records starts from zero after it ({@link
 * Probe#reset}). On these 2-core machines a cold JVM's JIT compilers take much of a core for the first
 * seconds of a Flink job, in competition with the server's backends: warmed up, every writer is
 * measured at the speed it keeps, which is what the steady state means.
 *
 * <pre>RunOne --writer W --parallelism P --rows N --interval-ms I [--columns 4|20] [--warmup-rows W] --url U --user U --table T --result FILE</pre>
 * The password, if any, comes from {@code EOSINK_BENCH_PASSWORD}.
 */
public final class RunOne {

    private RunOne() {}

    public static void main(String[] args) throws Exception {
        Properties a = new Properties();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.setProperty(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        Writer writer = Writer.byId(a.getProperty("writer"));
        int parallelism = Integer.parseInt(a.getProperty("parallelism"));
        long rows = Long.parseLong(a.getProperty("rows"));
        long intervalMs = Long.parseLong(a.getProperty("interval-ms"));
        int columns = Integer.parseInt(a.getProperty("columns", String.valueOf(Workload.NARROW)));
        int batchSize = Integer.parseInt(a.getProperty("batch-size", "1000"));
        String url = a.getProperty("url");
        String user = a.getProperty("user");
        String password = System.getenv().getOrDefault("EOSINK_BENCH_PASSWORD", "");
        String table = a.getProperty("table");
        Path resultFile = Path.of(a.getProperty("result"));

        long stallS = Long.parseLong(a.getProperty("stall-s", "60"));
        long warmupRows = Long.parseLong(a.getProperty("warmup-rows", "0"));

        Probe.watchHeap();
        long start = Probe.wallMicros();
        Thread watchdog =
                new Thread(() -> watch(stallS, start, resultFile, url, user, password), "bench-stall-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        RunResult result = new RunResult();
        Properties props = new Properties();
        props.setProperty("user", user);
        if (!password.isEmpty()) {
            props.setProperty("password", password);
        }
        try {
            if (warmupRows > 0) {
                String scratch = table + "_warmup";
                try {
                    try (Connection c = DriverManager.getConnection(url, props);
                            Statement s = c.createStatement()) {
                        s.execute("DROP TABLE IF EXISTS " + scratch);
                        s.execute(
                                columns == Workload.WIDE
                                        ? WideRow.createTable(scratch)
                                        : Workload.createTable(scratch, url));
                    }
                    run(
                            writer,
                            url,
                            props,
                            password,
                            scratch,
                            warmupRows,
                            rows,
                            parallelism,
                            intervalMs,
                            columns,
                            batchSize);
                    try (Connection c = DriverManager.getConnection(url, props);
                            Statement s = c.createStatement()) {
                        s.execute("DROP TABLE " + scratch);
                        checkpoint(s); // the warm-up's dirty pages are not the measured job's work
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("warm-up (" + warmupRows + " rows into " + scratch + "): " + e, e);
                }
                System.gc(); // the warm-up's MiniCluster is garbage: not the measured job's heap
                Probe.reset();
            }
            run(writer, url, props, password, table, rows, rows, parallelism, intervalMs, columns, batchSize);
            result.set("status", "ok");
        } catch (Throwable t) {
            result.set("status", "failed");
            result.set("reason", RunResult.reason(t));
            String state = RunResult.sqlState(t);
            if (state != null) {
                result.set("sql_state", state);
            }
            t.printStackTrace();
        }
        finish(result, start, resultFile);
    }

    /**
     * Writes records 0..count-1 of the workload of {@code rows} records: all of them for the measured
     * job, a prefix for the warm-up, which so has the same shape (the upsert workload's repeat distance
     * depends on the workload's size, and the peer's upsert fails on a batch that holds a key twice).
     */
    private static void run(
            Writer writer,
            String url,
            Properties props,
            String password,
            String table,
            long count,
            long rows,
            int parallelism,
            long intervalMs,
            int columns,
            int batchSize)
            throws Exception {
        Sinks.Target target = new Sinks.Target(url, props.getProperty("user"), password, table, batchSize);
        if (writer == Writer.RAW_BULK) {
            RawBulk.run(url, props, table, count, parallelism, batchSize); // append only: ids 0..count-1
        } else if (writer == Writer.RAW_COPY) {
            RawCopy.run(url, props, table, count, parallelism, columns); // append only: ids 0..count-1
        } else if (writer.isSql()) {
            SqlJob.run(writer, target, count, rows, parallelism, intervalMs);
        } else if (columns == Workload.WIDE) {
            runFlinkWide(writer, target, count, parallelism, intervalMs);
        } else {
            runFlink(writer, target, count, rows, parallelism, intervalMs);
        }
    }

    /** A server CHECKPOINT, when the role may run one (the orchestrator runs one before each run, too). */
    private static void checkpoint(Statement s) {
        try {
            if (Database.isMariaDb(s.getConnection().getMetaData().getURL())) {
                return; // no such statement on MariaDB
            }
            s.execute("CHECKPOINT");
        } catch (java.sql.SQLException e) {
            // not allowed for this role: fine
        }
    }

    private static boolean finished;

    /** Writes the result once (the main thread or the watchdog, whichever comes first) and ends the JVM. */
    private static void finish(RunResult result, long start, Path resultFile) {
        synchronized (RunOne.class) {
            if (finished) {
                return;
            }
            finished = true;
            result.set("start_us", start);
            result.set("job_end_us", Probe.wallMicros());
            if (Probe.firstRowMicros.get() != Long.MAX_VALUE) {
                result.set("first_row_us", Probe.firstRowMicros.get());
            }
            result.set("records_at_sink", Probe.recordsSeen.get());
            result.set("end_of_input_us", Probe.endOfInputMicros.get());
            result.set("last_commit_us", Probe.lastCommitMicros.get());
            result.setList("barrier_to_prepared_us", Probe.copy(Probe.barrierToPrepared));
            result.setList("prepare_us", Probe.copy(Probe.prepareOnly));
            result.setList("notify_to_committed_us", Probe.copy(Probe.notifyToCommitted));
            result.set("peak_heap_after_gc_bytes", Probe.peakHeapAfterGc.get());
            result.set("gc_count", Probe.gcCount.get());
            result.set("max_heap_bytes", Runtime.getRuntime().maxMemory());
            try {
                result.write(resultFile);
            } catch (IOException e) {
                e.printStackTrace();
            }
            dumpFlightRecordings();
            System.out.flush();
            // The MiniCluster may leave non-daemon threads behind, or be stuck: do not wait for it.
            Runtime.getRuntime().halt(0);
        }
    }

    /**
     * Ends a run that stopped moving: once the first record has reached the sink, if neither the
     * records at the sink nor the commits change for {@code stallS} seconds, the run fails at once with
     * what PostgreSQL sessions are waiting for, instead of running into the orchestrator's timeout.
     */
    private static void watch(long stallS, long start, Path resultFile, String url, String user, String password) {
        long last = -1;
        long since = System.nanoTime();
        while (true) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            if (Probe.firstRowMicros.get() == Long.MAX_VALUE) {
                since = System.nanoTime();
                continue;
            }
            long progress = Probe.recordsSeen.get() + Probe.commits.get();
            if (progress != last) {
                last = progress;
                since = System.nanoTime();
                continue;
            }
            if (System.nanoTime() - since >= stallS * 1_000_000_000L) {
                RunResult r = new RunResult();
                r.set("status", "failed");
                r.set(
                        "reason",
                        RunResult.oneLine("stalled: nothing reached the sink and nothing was committed for "
                                + stallS + " s (" + Probe.recordsSeen.get() + " records at the sink so far)"
                                + waiting(url, user, password)));
                r.set("stalled", "true");
                System.out.println("stalled; ending the run");
                finish(r, start, resultFile);
            }
        }
    }

    /** The sessions of this database that wait on a lock, and for what: the usual cause of a stall. */
    private static String waiting(String url, String user, String password) {
        Properties props = new Properties();
        props.setProperty("user", user);
        if (!password.isEmpty()) {
            props.setProperty("password", password);
        }
        StringBuilder b = new StringBuilder();
        try (Connection c = DriverManager.getConnection(url, props);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        // pg_blocking_pids names a prepared transaction that holds the lock as pid 0
                        "SELECT a.wait_event_type || '/' || a.wait_event, left(a.query, 80), "
                                + "0 = ANY (pg_blocking_pids(a.pid)), array_to_string(pg_blocking_pids(a.pid), ',') "
                                + "FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() "
                                + "AND a.wait_event_type = 'Lock'")) {
            while (rs.next()) {
                b.append("; a session waits on ")
                        .append(rs.getString(1))
                        .append(" in '")
                        .append(rs.getString(2))
                        .append("', blocked by ")
                        .append(rs.getBoolean(3) ? "a prepared transaction" : "backend(s) " + rs.getString(4));
            }
        } catch (Exception e) {
            b.append("; (could not ask PostgreSQL what waits: ")
                    .append(e.getMessage())
                    .append(")");
        }
        return b.toString();
    }

    /** The local MiniCluster of every Flink job of the benchmark, DataStream and SQL alike. */
    static StreamExecutionEnvironment environment(int parallelism, long intervalMs) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(intervalMs));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure is a result, not retried
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
        // Records are made fresh by the generator: no defensive copies between chained operators.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        return StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    }

    private static void runFlink(
            Writer writer, Sinks.Target target, long count, long rows, int parallelism, long intervalMs)
            throws Exception {
        StreamExecutionEnvironment env = environment(parallelism, intervalMs);

        Case workload = writer.workload;
        TypeInformation<BenchRow> type = TypeInformation.of(BenchRow.class);
        DataGeneratorSource<BenchRow> source =
                new DataGeneratorSource<>(new Generator(workload, rows), count, RateLimiterStrategy.noOp(), type);
        DataStreamSource<BenchRow> rowsIn = env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows");
        DataStream<BenchRow> stream = rowsIn;
        if (workload == Case.UPSERT) {
            // One source, so that the records of a key reach the sink in index order whatever the
            // parallelism (with parallel sources, a repeat could overtake the insert it updates), and
            // keyed by id, so that one subtask writes all records of a key: otherwise two subtasks'
            // open transactions could wait on each other's row locks. The same job for every upsert writer.
            rowsIn.setParallelism(1);
            stream = rowsIn.keyBy(new ById());
        }
        stream.transform("probe", type, new ProbeOperator<>())
                .sinkTo(Sinks.build(writer, target))
                .name(writer.id);
        env.execute("bench " + writer.id + " p" + parallelism);
    }

    /** The same job as {@link #runFlink} for the append workload, on the 20-column table. */
    private static void runFlinkWide(Writer writer, Sinks.Target target, long rows, int parallelism, long intervalMs)
            throws Exception {
        StreamExecutionEnvironment env = environment(parallelism, intervalMs);

        TypeInformation<WideRow> type = TypeInformation.of(WideRow.class);
        DataGeneratorSource<WideRow> source =
                new DataGeneratorSource<>(new WideGenerator(), rows, RateLimiterStrategy.noOp(), type);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows")
                .transform("probe", type, new ProbeOperator<>())
                .sinkTo(Sinks.buildWide(writer, target))
                .name(writer.id);
        env.execute("bench " + writer.id + " p" + parallelism + " " + Workload.WIDE + " columns");
    }

    static final class WideGenerator implements GeneratorFunction<Long, WideRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public WideRow map(Long index) {
            return WideRow.of(index);
        }
    }

    static final class Generator implements GeneratorFunction<Long, BenchRow> {
        private static final long serialVersionUID = 1L;
        private final Case workload;
        private final long rows;

        Generator(Case workload, long rows) {
            this.workload = workload;
            this.rows = rows;
        }

        @Override
        public BenchRow map(Long index) {
            return Workload.made(workload, index, rows);
        }
    }

    static final class ById implements KeySelector<BenchRow, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(BenchRow row) {
            return row.id;
        }
    }

    /**
     * halt() skips JFR's dump at exit: a recording started with {@code --jvm-opts
     * "-XX:StartFlightRecording=filename=..."} (to profile one writer) is written here instead.
     */
    private static void dumpFlightRecordings() {
        if (!jdk.jfr.FlightRecorder.isInitialized()) {
            return;
        }
        for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
            if (r.getDestination() != null) {
                try {
                    r.dump(r.getDestination());
                } catch (IOException e) {
                    e.printStackTrace();
                }
            }
        }
    }
}
