/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The options of {@code ./bench}. */
final class BenchOptions {

    /**
     * About 15-20 minutes for a default run (3 rounds) on a quiet 2-core machine. Long enough for
     * several checkpoints per run at p2, where a run of 1.5M rows lasted about 2.5 s.
     */
    static final long DEFAULT_ROWS = 3_000_000;

    static final long SMOKE_ROWS = 2_000;
    static final Path DEFAULT_OUT = Path.of("benchmarks", "results");

    static final String USAGE = String.join(
            "\n",
            "usage: ./bench [options]",
            "",
            "Runs, side by side, in alternating order, one JVM per measured run: raw COPY (no Flink), the",
            "eosink sink (COPY writer, batch writer, upsert; DataStream and SQL) and flink-connector-jdbc 4.0's",
            "exactly-once (XA) and at-least-once sinks (DataStream; SQL for upsert), at parallelism 1 and 2, on",
            "the same job and a fresh table each; then the",
            "heap of eo-copy at a long checkpoint interval; then a sensitivity sweep (row width, checkpoint",
            "interval). Writes benchmarks/results/latest.{md,csv,png}, sweep.csv and the results block of",
            "docs/benchmarks.md; per-run logs go to benchmarks/results/tmp/ (not in git).",
            "",
            "  --rows N                 rows per run (default " + DEFAULT_ROWS + ": about 15-20 min on 2 quiet cores)",
            "  --warmup PCT             before it is measured, each run's JVM runs the same writer on PCT% of the",
            "                           rows into a scratch table (default 30; 0: cold runs), so that JIT",
            "                           compilation, which takes much of a core for seconds here, is start-up",
            "  --rounds R               rounds; every case runs once per round, medians reported (default 3)",
            "  --smoke                  tiny run (" + SMOKE_ROWS
                    + " rows, 1 round, all writers, short intervals, C1 only,",
            "                           no warm-up)",
            "                           into benchmarks/results/tmp/smoke-<time>/: checks that it works, not speed;",
            "                           its sweep: the 20-column runs at p1 only, no interval points",
            "  --postgres-url URL       an external PostgreSQL instead of the embedded one; --user U (default",
            "                           postgres), password from EOSINK_BENCH_PASSWORD. Needs",
            "                           max_prepared_transactions >= 64; track_commit_timestamp=on for the",
            "                           commit-time end of a run (otherwise: job end, see latest.md)",
            "  --server-setting N=V     a setting of the embedded PostgreSQL (repeatable), for example",
            "                           wal_writer_delay=10ms (see docs/postgresql.md, What PostgreSQL needs)",
            "  --out DIR                where latest.* go (default benchmarks/results; docs/benchmarks.md's results",
            "                           block is only rewritten for the default)",
            "  --writers a,b,...        a subset of raw-copy,eo-copy,eo-batch,eo-sql,eo-upsert,eo-sql-upsert,peer-eo-xa,",
            "                           peer-alo,peer-alo-upsert,peer-sql-alo-upsert (eo-sql*, peer-sql-*: the SQL",
            "                           connectors, a TableEnvironment INSERT from the generator as a table)",
            "  --database mariadb       the embedded MariaDB of the tests instead of PostgreSQL: raw-bulk, eo-xa,",
            "                           peer-eo-xa, peer-alo, eo-xa-upsert, peer-alo-upsert (no heap case, no sweep);",
            "                           its rows replace the mariadb rows of latest.csv, its table goes to mariadb.md",
            "  --parallelism 1,2        parallelisms (default 1,2)",
            "  --interval-ms MS         checkpoint interval of the throughput runs (default 1000)",
            "  --heap-interval-ms MS    the long interval of the heap comparison (default 10000); --no-heap skips it",
            "  --no-sweep               skip the sensitivity sweep (latest.md's section, sweep.csv): by default the",
            "                           same rounds also run raw-copy and eo-copy on a 20-column variant of the append",
            "                           workload, and eo-copy at the --sweep-intervals, at every --parallelism",
            "  --sweep-rows N           rows per run of the 20-column runs (default: half of --rows)",
            "  --sweep-intervals a,b    eo-copy's checkpoint intervals in ms (default 100,1000,10000; runs at --rows,",
            "                           those at --interval-ms and --heap-interval-ms are the runs above)",
            "  --sweep-writers a,b      writers on the 20-column table (default raw-copy,eo-copy; also eo-batch,",
            "                           peer-eo-xa, peer-alo; raw-copy is always added: ratios are to it)",
            "  --freshness-intervals a,b  checkpoint intervals in ms, besides --interval-ms, at which the",
            "                           --freshness-writers run too (default 100,250; empty: none). Every Flink run",
            "                           reports freshness: p50/p99/max of record made -> row committed (latest.md)",
            "  --freshness-writers a,b  (default eo-copy,eo-upsert,peer-eo-xa; those not in --writers are skipped)",
            "  --batch-size N           JDBC batch size of every batching sink (default 1000)",
            "  --max-copy-backlog B     the eosink sinks' maxCopyBacklog, COPY flow control (default 524288;",
            "                           0: off, which shows what it does to throughput and checkpoint time)",
            "  --repeat-distance D      upsert workload: a repeat updates the row written D records earlier",
            "                           (default 10001; rounded to 1 mod 10)",
            "  --rewrite-batched-inserts on|off   pgjdbc reWriteBatchedInserts for every Flink sink (default on)",
            "  --jvm-opts \"...\"         JVM options of each run (default \"-Xmx1g -XX:+UseG1GC\")",
            "  --retries K              a failed run is repeated up to K times, each failed attempt reported (default 2)",
            "  --stall-s S              a run in which nothing reaches the sink and nothing commits for S seconds",
            "                           fails at once, naming what PostgreSQL waits for (default 60)",
            "  --timeout-s S            per run (default 120 + rows/5000)");

    long rows = DEFAULT_ROWS;
    int rounds = 3;
    /** Warm-up rows per run, as a percentage of the run's rows. */
    int warmupPercent = 30;

    boolean smoke;
    String postgresUrl;
    /** Settings of the embedded server (--server-setting), in the order given. */
    final java.util.Map<String, String> serverSettings = new java.util.LinkedHashMap<>();

    String user = "postgres";
    String password = "";
    Path out;
    /** --database: the server every writer runs against. */
    Database database = Database.POSTGRESQL;

    private boolean writersGiven;
    List<Writer> writers = new ArrayList<>(Arrays.asList(Writer.values()));
    List<Integer> parallelisms = List.of(1, 2);
    long intervalMs = 1000;
    long heapIntervalMs = 10_000;
    boolean heap = true;
    boolean sweep = true;
    long sweepRows = -1;
    List<Long> sweepIntervals = List.of(100L, 1000L, 10_000L);
    List<Writer> sweepWriters = List.of(Writer.RAW_COPY, Writer.EO_COPY);
    /** The other checkpoint intervals at which the freshness writers run (the throughput runs are at --interval-ms). */
    List<Long> freshnessIntervals = List.of(100L, 250L);

    List<Writer> freshnessWriters = List.of(Writer.EO_COPY, Writer.EO_UPSERT, Writer.PEER_EO_XA);
    private boolean freshnessIntervalsGiven;
    /** The parallelisms of the sweep: --parallelism; p1 only in a smoke run. */
    List<Integer> sweepParallelisms;

    int batchSize = 1000;
    long maxCopyBacklog = dev.eosink.postgres.PostgresSinkBuilder.DEFAULT_MAX_COPY_BACKLOG;
    long repeatDistance = 10_001;
    boolean rewriteBatchedInserts = true;
    static final String JVM_OPTS = "-Xmx1g -XX:+UseG1GC";
    static final String SMOKE_JVM_OPTS = "-Xmx512m -XX:+UseG1GC -XX:TieredStopAtLevel=1";
    String jvmOpts = JVM_OPTS;
    private boolean jvmOptsGiven;
    long timeoutS = -1;
    int retries = 2;
    long stallS = -1;
    private boolean retriesGiven;
    String commandLine;

    private boolean rowsGiven;
    private boolean roundsGiven;
    private boolean intervalGiven;
    private boolean heapIntervalGiven;
    private boolean sweepIntervalsGiven;
    private boolean parallelismGiven;
    private boolean warmupGiven;

    static BenchOptions parse(String[] args) {
        BenchOptions o = new BenchOptions();
        o.commandLine = "./bench" + (args.length == 0 ? "" : " " + String.join(" ", quoted(args)));
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help":
                case "-h":
                    throw new IllegalArgumentException("");
                case "--smoke":
                    o.smoke = true;
                    break;
                case "--no-heap":
                    o.heap = false;
                    break;
                case "--no-sweep":
                    o.sweep = false;
                    break;
                case "--sweep-rows":
                    o.sweepRows = positive(a, value(args, ++i, a));
                    break;
                case "--sweep-intervals":
                    o.sweepIntervals = millis(a, value(args, ++i, a));
                    o.sweepIntervalsGiven = true;
                    break;
                case "--freshness-intervals":
                    o.freshnessIntervals = millis(a, value(args, ++i, a));
                    o.freshnessIntervalsGiven = true;
                    break;
                case "--freshness-writers":
                    List<Writer> fw = new ArrayList<>();
                    for (String w : value(args, ++i, a).split(",")) {
                        if (!w.isBlank()) {
                            Writer writer = Writer.byId(w.trim());
                            if (!writer.flink) {
                                throw new IllegalArgumentException(a + ": " + writer.id
                                        + " has no checkpoint interval (a Flink writer: eo-*, peer-*)");
                            }
                            fw.add(writer);
                        }
                    }
                    o.freshnessWriters = fw;
                    break;
                case "--sweep-writers":
                    List<Writer> ws = new ArrayList<>(List.of(Writer.RAW_COPY));
                    for (String w : value(args, ++i, a).split(",")) {
                        Writer writer = Writer.byId(w.trim());
                        if (!Sinks.hasWide(writer)) {
                            throw new IllegalArgumentException(a + ": " + writer.id
                                    + " has no 20-column variant (raw-copy, eo-copy, eo-batch, peer-eo-xa, peer-alo)");
                        }
                        if (!ws.contains(writer)) {
                            ws.add(writer);
                        }
                    }
                    o.sweepWriters = ws;
                    break;
                case "--server-setting":
                    String setting = value(args, ++i, a);
                    int eq = setting.indexOf('=');
                    if (eq <= 0 || !setting.substring(0, eq).matches("[A-Za-z_][A-Za-z0-9_.]*")) {
                        throw new IllegalArgumentException(
                                a + ": name=value, for example wal_writer_delay=10ms; got " + setting);
                    }
                    o.serverSettings.put(setting.substring(0, eq), setting.substring(eq + 1));
                    break;
                case "--warmup":
                    o.warmupPercent = Integer.parseInt(value(args, ++i, a));
                    o.warmupGiven = true;
                    if (o.warmupPercent < 0 || o.warmupPercent > 100) {
                        throw new IllegalArgumentException("--warmup: a percentage, 0 to 100");
                    }
                    break;
                case "--rows":
                    o.rows = positive(a, value(args, ++i, a));
                    o.rowsGiven = true;
                    break;
                case "--rounds":
                    o.rounds = (int) positive(a, value(args, ++i, a));
                    o.roundsGiven = true;
                    break;
                case "--postgres-url":
                    o.postgresUrl = value(args, ++i, a);
                    if (!o.postgresUrl.startsWith("jdbc:postgresql:")) {
                        throw new IllegalArgumentException("--postgres-url: give jdbc:postgresql://host:port/db");
                    }
                    break;
                case "--user":
                    o.user = value(args, ++i, a);
                    break;
                case "--out":
                    o.out = Path.of(value(args, ++i, a));
                    break;
                case "--database":
                    o.database = Database.byId(value(args, ++i, a));
                    break;
                case "--writers":
                    o.writersGiven = true;
                    o.writers = new ArrayList<>();
                    for (String w : value(args, ++i, a).split(",")) {
                        o.writers.add(Writer.byId(w.trim()));
                    }
                    break;
                case "--parallelism":
                    List<Integer> ps = new ArrayList<>();
                    for (String p : value(args, ++i, a).split(",")) {
                        ps.add((int) positive(a, p.trim()));
                    }
                    o.parallelisms = ps;
                    o.parallelismGiven = true;
                    break;
                case "--interval-ms":
                    o.intervalMs = positive(a, value(args, ++i, a));
                    o.intervalGiven = true;
                    break;
                case "--heap-interval-ms":
                    o.heapIntervalMs = positive(a, value(args, ++i, a));
                    o.heapIntervalGiven = true;
                    break;
                case "--batch-size":
                    o.batchSize = (int) positive(a, value(args, ++i, a));
                    break;
                case "--max-copy-backlog":
                    try {
                        o.maxCopyBacklog = Long.parseLong(value(args, ++i, a));
                        dev.eosink.postgres.PostgresSink.builder().maxCopyBacklog(o.maxCopyBacklog); // its own check
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(a + ": " + e.getMessage());
                    }
                    break;
                case "--repeat-distance":
                    o.repeatDistance = positive(a, value(args, ++i, a));
                    System.setProperty(Workload.REPEAT_DISTANCE_PROPERTY, Long.toString(o.repeatDistance));
                    break;
                case "--rewrite-batched-inserts":
                    String v = value(args, ++i, a).toLowerCase(Locale.ROOT);
                    if (!v.equals("on") && !v.equals("off")) {
                        throw new IllegalArgumentException(a + ": on or off");
                    }
                    o.rewriteBatchedInserts = v.equals("on");
                    break;
                case "--jvm-opts":
                    o.jvmOpts = value(args, ++i, a);
                    o.jvmOptsGiven = true;
                    break;
                case "--stall-s":
                    o.stallS = positive(a, value(args, ++i, a));
                    break;
                case "--retries":
                    o.retries = Integer.parseInt(value(args, ++i, a));
                    o.retriesGiven = true;
                    if (o.retries < 0) {
                        throw new IllegalArgumentException("--retries must be >= 0");
                    }
                    break;
                case "--timeout-s":
                    o.timeoutS = positive(a, value(args, ++i, a));
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (!o.writersGiven) {
            o.writers.removeIf(w -> !w.runsOn(o.database));
        }
        for (Writer w : o.writers) {
            if (!w.runsOn(o.database)) {
                throw new IllegalArgumentException("--writers: " + w.id + " does not run on " + o.database.id()
                        + "; there: "
                        + Writer.ids(
                                o.database == Database.MARIADB
                                        ? Writer.mariaDb()
                                        : Arrays.stream(Writer.values())
                                                .filter(x -> x.runsOn(Database.POSTGRESQL))
                                                .toList()));
            }
        }
        if (o.database == Database.MARIADB) {
            // The heap case, the sweep and freshness (commit timestamps) are PostgreSQL's.
            o.heap = false;
            o.sweep = false;
            o.freshnessIntervals = List.of();
            if (o.postgresUrl != null || !o.serverSettings.isEmpty()) {
                throw new IllegalArgumentException("--database mariadb runs on the embedded MariaDB of the tests only");
            }
        }
        if (o.smoke) {
            if (!o.rowsGiven) {
                o.rows = SMOKE_ROWS;
            }
            if (!o.roundsGiven) {
                o.rounds = 1;
            }
            // Each Flink job waits for one more checkpoint after its last record: keep that short.
            if (!o.intervalGiven) {
                o.intervalMs = 300;
            }
            if (!o.heapIntervalGiven) {
                o.heapIntervalMs = 1000;
            }
            if (o.out == null) {
                o.out = DEFAULT_OUT.resolve("tmp").resolve("smoke-" + timestamp());
            }
            if (o.stallS < 0) {
                o.stallS = 20;
            }
            if (!o.retriesGiven) {
                o.retries = 4; // the XA peer's end-of-input failure at p2 (see latest.md) must not fail CI
            }
            if (!o.jvmOptsGiven) {
                o.jvmOpts = SMOKE_JVM_OPTS; // starts faster; a smoke run measures nothing
            }
            if (!o.warmupGiven) {
                o.warmupPercent = 0; // a second Flink job per run, for speed a smoke run does not measure
            }
            // Every smoke run measures freshness already (at its short interval): no more runs for it.
            if (!o.freshnessIntervalsGiven) {
                o.freshnessIntervals = List.of();
            }
            // The sweep's only code of its own is the 20-column table: check it, at p1, and no more.
            if (!o.sweepIntervalsGiven) {
                o.sweepIntervals = List.of();
            }
            if (!o.parallelismGiven) {
                o.sweepParallelisms = List.of(1);
            }
        }
        if (o.sweepParallelisms == null) {
            o.sweepParallelisms = o.parallelisms;
        }
        if (o.sweepRows < 0) {
            o.sweepRows = Math.max(1, o.rows / 2);
        }
        if (o.out == null) {
            o.out = DEFAULT_OUT;
        }
        long longest = Math.max(o.heapIntervalMs, o.intervalMs);
        if (o.sweep) {
            for (long ms : o.sweepIntervals) {
                longest = Math.max(longest, ms);
            }
        }
        if (o.stallS < 0) {
            o.stallS = Math.max(60, 3 * longest / 1000);
        }
        if (o.timeoutS < 0) {
            o.timeoutS = 120 + Math.max(o.rows, o.sweep ? o.sweepRows : 0) / 5000 + 3 * longest / 1000;
        }
        if (o.rows > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--rows: at most " + Integer.MAX_VALUE);
        }
        if (o.sweepRows > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--sweep-rows: at most " + Integer.MAX_VALUE);
        }
        if (o.postgresUrl != null && !o.serverSettings.isEmpty()) {
            throw new IllegalArgumentException("--server-setting applies to the embedded PostgreSQL; " + "set "
                    + o.serverSettings.keySet() + " on the server given by --postgres-url instead");
        }
        o.password = System.getenv().getOrDefault("EOSINK_BENCH_PASSWORD", "");
        return o;
    }

    /** Whether latest.* go to the committed results directory (and docs/benchmarks.md is updated). */
    boolean isDefaultOut() {
        return !smoke && out.normalize().equals(DEFAULT_OUT);
    }

    static String timestamp() {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static long positive(String option, String value) {
        long v;
        try {
            v = Long.parseLong(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": not a number: " + value);
        }
        if (v < 1) {
            throw new IllegalArgumentException(option + " must be >= 1");
        }
        return v;
    }

    /** A comma-separated list of positive milliseconds; empty for none. */
    private static List<Long> millis(String option, String value) {
        List<Long> list = new ArrayList<>();
        for (String ms : value.split(",")) {
            if (!ms.isBlank()) {
                list.add(positive(option, ms.trim()));
            }
        }
        return list;
    }

    private static List<String> quoted(String[] args) {
        List<String> list = new ArrayList<>();
        for (String a : args) {
            a = a.replaceAll("(?i)([?&]password=)[^&]*", "$1***");
            list.add(a.matches("[A-Za-z0-9_./:=,@%+*?&-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return list;
    }
}
