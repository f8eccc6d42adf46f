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

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

/**
 * One measured run, in a JVM of its own (fresh heap and JIT): raw COPY, or one Flink job on a local
 * MiniCluster writing N rows through one sink into a fresh, empty table the orchestrator created.
 * Writes what it measured to the result file and exits; the orchestrator reads the table.
 *
 * <pre>RunOne --writer W --parallelism P --rows N --interval-ms I --url U --user U --table T --result FILE</pre>
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
        int batchSize = Integer.parseInt(a.getProperty("batch-size", "1000"));
        String url = a.getProperty("url");
        String user = a.getProperty("user");
        String password = System.getenv().getOrDefault("EOSINK_BENCH_PASSWORD", "");
        String table = a.getProperty("table");
        Path resultFile = Path.of(a.getProperty("result"));

        Probe.watchHeap();
        RunResult result = new RunResult();
        long start = Probe.wallMicros();
        try {
            if (writer == Writer.RAW_COPY) {
                Properties props = new Properties();
                props.setProperty("user", user);
                if (!password.isEmpty()) {
                    props.setProperty("password", password);
                }
                RawCopy.run(url, props, table, rows, parallelism);
            } else {
                runFlink(writer, new Sinks.Target(url, user, password, table, batchSize), rows, parallelism, intervalMs);
            }
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
        long end = Probe.wallMicros();
        result.set("start_us", start);
        result.set("job_end_us", end);
        if (Probe.firstRowMicros.get() != Long.MAX_VALUE) {
            result.set("first_row_us", Probe.firstRowMicros.get());
        }
        result.set("end_of_input_us", Probe.endOfInputMicros.get());
        result.set("last_commit_us", Probe.lastCommitMicros.get());
        result.setList("barrier_to_prepared_us", Probe.copy(Probe.barrierToPrepared));
        result.setList("prepare_us", Probe.copy(Probe.prepareOnly));
        result.setList("notify_to_committed_us", Probe.copy(Probe.notifyToCommitted));
        result.set("peak_heap_after_gc_bytes", Probe.peakHeapAfterGc.get());
        result.set("gc_count", Probe.gcCount.get());
        result.set("max_heap_bytes", Runtime.getRuntime().maxMemory());
        result.write(resultFile);
        System.out.flush();
        // The MiniCluster may leave non-daemon threads behind.
        System.exit(0);
    }

    private static void runFlink(Writer writer, Sinks.Target target, long rows, int parallelism, long intervalMs)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(intervalMs));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure is a result, not retried
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
        // Records are made fresh by the generator: no defensive copies between chained operators.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);

        Case workload = writer.workload;
        TypeInformation<BenchRow> type = TypeInformation.of(BenchRow.class);
        DataGeneratorSource<BenchRow> source =
                new DataGeneratorSource<>(new Generator(workload, rows), rows, RateLimiterStrategy.noOp(), type);
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
            return Workload.row(workload, index, rows);
        }
    }

    static final class ById implements KeySelector<BenchRow, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(BenchRow row) {
            return row.id;
        }
    }

}
