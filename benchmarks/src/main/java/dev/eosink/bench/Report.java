/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.DoublePredicate;
import java.util.stream.Collectors;

/** latest.csv, latest.md, latest.png and the results block of docs/benchmarks.md, from the runs of one benchmark. */
final class Report {

    /** ratio_to_copy: to raw-copy (PostgreSQL) or raw-bulk (MariaDB, {@link MariaDbReport}) at the same parallelism. */
    static final String CSV_HEADER = "case,writer,parallelism,rows_per_s,ratio_to_copy,database";

    static final String SWEEP_CSV = "sweep.csv";
    static final String SWEEP_CSV_HEADER = "sweep,writer,parallelism,columns,interval_ms,rows,rows_per_s,mb_per_s,"
            + "ratio_to_copy,barrier_to_prepared_p50_ms,barrier_to_prepared_p99_ms";
    /** The results page, relative to the repository root; its block between the two markers is rewritten. */
    static final Path RESULTS_PAGE = Path.of("docs", "benchmarks.md");

    static final String RESULTS_BEGIN = "<!-- bench:begin (written by ./bench; edits here are overwritten) -->";
    static final String RESULTS_END = "<!-- bench:end -->";

    private final BenchOptions o;
    private final List<Spec> specs;
    private final List<Measured> runs;
    private final Map<String, String> server;
    private final Map<String, String> machine;
    private final double minutes;
    private final boolean commitTimestamps;
    private final Path runsDir;
    /** PostgreSQL's own cost per plain and prepared transaction, measured before the runs. */
    private final java.util.Optional<PreparedCost> txCost;

    private final String date = ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z"));
    /** Per spec: its rows' size in binary COPY (for the sweep's MB/s); absent or 0 when unknown. */
    private final Map<Spec, Long> copyBytes = new java.util.IdentityHashMap<>();

    Report(
            BenchOptions o,
            List<Spec> specs,
            List<Measured> runs,
            Map<String, String> server,
            Map<String, String> machine,
            double minutes,
            boolean commitTimestamps,
            Path runsDir,
            java.util.Optional<PreparedCost> txCost) {
        this.txCost = txCost;
        this.o = o;
        this.specs = specs;
        this.runs = runs;
        this.server = server;
        this.machine = machine;
        this.minutes = minutes;
        this.commitTimestamps = commitTimestamps;
        this.runsDir = runsDir;
    }

    // ------------------------------------------------------------------ figures

    /** One line of latest.csv: the median over the rounds that succeeded. */
    static final class Line {
        final Spec spec;
        final List<Measured> rounds;
        final OptionalDouble rowsPerS;
        OptionalDouble ratio = OptionalDouble.empty();

        Line(Spec spec, List<Measured> rounds) {
            this.spec = spec;
            this.rounds = rounds;
            this.rowsPerS = median(
                    rounds.stream().filter(Measured::ok).map(m -> m.rowsPerS).collect(Collectors.toList()));
        }

        String failures() {
            List<String> notes = new ArrayList<>();
            for (Measured m : rounds) {
                for (String f : m.failedAttempts) {
                    notes.add("round " + m.round + ", failed attempt (repeated): " + f);
                }
                if (!m.ok()) {
                    notes.add("round " + m.round + ": " + m.failure);
                }
            }
            return String.join("; ", notes);
        }
    }

    List<Line> lines() {
        List<Line> lines = new ArrayList<>();
        for (Spec s : specs) {
            if (s.purpose == Spec.Purpose.THROUGHPUT) {
                lines.add(new Line(s, of(s)));
            }
        }
        lines.sort(Comparator.<Line>comparingInt(l -> l.spec.writer.workload.ordinal())
                .thenComparingInt(l -> l.spec.writer.ordinal())
                .thenComparingInt(l -> l.spec.parallelism));
        for (Line l : lines) {
            OptionalDouble copy = lines.stream()
                    .filter(c -> c.spec.writer == Writer.RAW_COPY && c.spec.parallelism == l.spec.parallelism)
                    .map(c -> c.rowsPerS)
                    .findFirst()
                    .orElse(OptionalDouble.empty());
            if (copy.isPresent() && l.rowsPerS.isPresent()) {
                l.ratio = OptionalDouble.of(l.rowsPerS.getAsDouble() / copy.getAsDouble());
            }
        }
        return lines;
    }

    private List<Measured> of(Spec s) {
        return runs.stream().filter(m -> m.spec == s).collect(Collectors.toList());
    }

    private OptionalDouble rate(Writer w, int p) {
        return lines().stream()
                .filter(l -> l.spec.writer == w && l.spec.parallelism == p)
                .map(l -> l.rowsPerS)
                .findFirst()
                .orElse(OptionalDouble.empty());
    }

    private Spec find(Writer w, int p, long intervalMs) {
        return specs.stream()
                .filter(s -> s.writer == w
                        && s.parallelism == p
                        && s.intervalMs == intervalMs
                        && s.columns == Workload.NARROW
                        && s.rows == o.rows)
                .findFirst()
                .orElse(null);
    }

    /** Pooled over the successful rounds. */
    private List<Long> pooled(Spec s, String key) {
        List<Long> all = new ArrayList<>();
        for (Measured m : of(s)) {
            if (m.ok()) {
                all.addAll(m.result.getList(key));
            }
        }
        return all;
    }

    private OptionalDouble medianHeap(Spec s) {
        if (s == null) {
            return OptionalDouble.empty();
        }
        return median(of(s).stream()
                .filter(Measured::ok)
                .map(m -> (double) m.result.getLong("peak_heap_after_gc_bytes", 0))
                .collect(Collectors.toList()));
    }

    FreshnessReport freshness() {
        return new FreshnessReport(specs, runs, o.rows);
    }

    static OptionalDouble median(List<Double> values) {
        if (values.isEmpty()) {
            return OptionalDouble.empty();
        }
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        int n = v.size();
        return OptionalDouble.of(n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2);
    }

    /** Nearest-rank percentile. */
    static long percentile(List<Long> values, double p) {
        List<Long> v = new ArrayList<>(values);
        Collections.sort(v);
        int rank = (int) Math.ceil(p / 100.0 * v.size());
        return v.get(Math.max(0, Math.min(v.size() - 1, rank - 1)));
    }

    // ------------------------------------------------------------------ outputs

    void write(Path dir) throws IOException {
        Files.writeString(dir.resolve("latest.csv"), csv(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("latest.md"), markdown(), StandardCharsets.UTF_8);
        Chart.draw(lines(), chartTitle(), dir.resolve("latest.png"));
        FreshnessReport freshness = freshness();
        if (freshness.isEmpty()) {
            Files.deleteIfExists(dir.resolve(FreshnessReport.CSV)); // an earlier run's: not this run's
        } else {
            freshness.write(
                    dir,
                    String.format(
                            Locale.ROOT,
                            "Throughput against p99 freshness (median of %d round%s, %,d rows)",
                            o.rounds,
                            o.rounds == 1 ? "" : "s",
                            o.rows));
        }
        if (hasSweep()) {
            Files.writeString(dir.resolve(SWEEP_CSV), sweepCsv(), StandardCharsets.UTF_8);
        } else {
            Files.deleteIfExists(dir.resolve(SWEEP_CSV)); // an earlier run's: not this run's
        }
    }

    String csv() {
        StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
        for (Line l : lines()) {
            b.append(l.spec.writer.workload.id())
                    .append(',')
                    .append(l.spec.writer.id)
                    .append(',')
                    .append(l.spec.parallelism)
                    .append(',')
                    .append(l.rowsPerS.isPresent() ? String.valueOf(Math.round(l.rowsPerS.getAsDouble())) : "")
                    .append(',')
                    .append(l.ratio.isPresent() ? String.format(Locale.ROOT, "%.3f", l.ratio.getAsDouble()) : "")
                    .append(',')
                    .append(Database.POSTGRESQL.id())
                    .append('\n');
        }
        return b.toString();
    }

    private String chartTitle() {
        return String.format(
                Locale.ROOT,
                "Steady-state throughput, rows/s (median of %d round%s, %,d rows, checkpoint %s)",
                o.rounds,
                o.rounds == 1 ? "" : "s",
                o.rows,
                Spec.interval(o.intervalMs));
    }

    /** The server settings latest.md names (with those given by --server-setting), as {@code SHOW} reads them. */
    static final List<String> SETTINGS_SHOWN = List.of(
            "fsync",
            "synchronous_commit",
            "shared_buffers",
            "max_wal_size",
            "wal_writer_delay",
            "max_prepared_transactions",
            "track_commit_timestamp");

    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("# eosink benchmark: ")
                .append(o.smoke ? "smoke run (checks that it works, not speed)" : "latest results")
                .append("\n\n");
        b.append("Made by `")
                .append(o.commandLine)
                .append("` on ")
                .append(date)
                .append(String.format(Locale.ROOT, ", in %.1f min.", minutes))
                .append("\n\n");
        b.append("| machine | |\n|---|---|\n");
        machine.forEach(
                (k, v) -> b.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        b.append("| PostgreSQL | ")
                .append(server.get("server_version"))
                .append(", ")
                .append(server.get("source"))
                .append("; ");
        java.util.Set<String> shown = new java.util.LinkedHashSet<>(SETTINGS_SHOWN);
        shown.addAll(o.serverSettings.keySet());
        b.append(shown.stream()
                        .map(name -> name + "=" + server.get(name))
                        .collect(java.util.stream.Collectors.joining(", ")))
                .append(
                        o.serverSettings.isEmpty()
                                ? ""
                                : " (set by `--server-setting`: " + String.join(", ", o.serverSettings.keySet()) + ")")
                .append(" |\n");
        b.append(String.format(
                Locale.ROOT,
                "| run | %,d rows per run, %d round(s), checkpoint interval %s, JDBC batch size %d, "
                        + "reWriteBatchedInserts=%s for every Flink sink, eosink's maxCopyBacklog %s, "
                        + "each run in its own JVM (`%s`), %s |\n\n",
                o.rows,
                o.rounds,
                Spec.interval(o.intervalMs),
                o.batchSize,
                o.rewriteBatchedInserts,
                o.maxCopyBacklog == 0 ? "0 (COPY flow control off)" : o.maxCopyBacklog + " bytes",
                o.jvmOpts,
                o.warmupPercent == 0
                        ? "cold (no warm-up)"
                        : "warmed up first by the same writer on " + o.warmupPercent
                                + "% of the rows into a scratch table (`--warmup`)"));

        // ---- throughput
        b.append("## Throughput\n\n");
        b.append("Steady state: N / (end − first row at the sink), median over the rounds; ")
                .append(
                        "× raw COPY is against raw COPY of the append workload at the same parallelism, measured in the same run.\n\n");
        b.append("| case | writer | p | rows/s | × raw COPY | each round | |\n|---|---|--:|--:|--:|---|---|\n");
        for (Line l : lines()) {
            b.append("| ")
                    .append(l.spec.writer.workload.id())
                    .append(" | ")
                    .append(l.spec.writer.id)
                    .append(" | ")
                    .append(l.spec.parallelism)
                    .append(" | ")
                    .append(
                            l.rowsPerS.isPresent()
                                    ? String.format(Locale.ROOT, "%,.0f", l.rowsPerS.getAsDouble())
                                    : "failed")
                    .append(" | ")
                    .append(l.ratio.isPresent() ? String.format(Locale.ROOT, "%.2f", l.ratio.getAsDouble()) : "–")
                    .append(" | ")
                    .append(l.rounds.stream()
                            .map(m -> m.ok() ? String.format(Locale.ROOT, "%,.0f", m.rowsPerS) : "failed")
                            .collect(Collectors.joining(", ")))
                    .append(" | ")
                    .append(escape(l.failures()))
                    .append(" |\n");
        }
        b.append("\n![throughput](latest.png)\n\n");
        b.append("Writers:\n\n");
        for (Writer w : o.writers) {
            b.append("- `").append(w.id).append("`: ").append(w.description).append('\n');
        }
        b.append('\n');

        // ---- checkpoint cost
        b.append("## Checkpoint cost\n\n");
        b.append("Pooled over all checkpoints of all rounds (the final one at end of input excluded). ")
                .append("*barrier → prepared*: from the barrier reaching the operator chained right before the sink ")
                .append("(before the writer's flush) to the sink's `AFTER_PREPARE` hook; *prepare call*: ")
                .append("`BEFORE_PREPARE` → `AFTER_PREPARE`; *notify → committed*: `BEFORE_COMMIT` → `AFTER_COMMIT`. ")
                .append(
                        "Milliseconds; nearest-rank percentiles, so with fewer than 100 checkpoints p99 is the largest. ")
                .append(
                        "The SQL writers are not timed: the connector builds its sink from the table's options, which take no hook.\n\n");
        b.append(
                "| writer | p | interval | checkpoints | barrier → prepared p50 / p99 | prepare call p50 / p99 | commits | notify → committed p50 / p99 |\n");
        b.append("|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (Spec s : timedSpecs()) {
            List<Long> btp = pooled(s, "barrier_to_prepared_us");
            List<Long> prep = pooled(s, "prepare_us");
            List<Long> ntc = pooled(s, "notify_to_committed_us");
            b.append(specCells(s))
                    .append(btp.size())
                    .append(" | ")
                    .append(p5099(btp))
                    .append(" | ")
                    .append(p5099(prep))
                    .append(" | ")
                    .append(ntc.size())
                    .append(" | ")
                    .append(p5099(ntc))
                    .append(" |\n");
        }
        b.append('\n');

        b.append(
                        "Where the prepares' time went, from each writer's own DEBUG line per prepare (`PostgresWriterSession`): ")
                .append("*end of COPY*, the server storing the rows still in flight; the *marker* row; ")
                .append("*PREPARE TRANSACTION*, with its WAL flush; and how long COPY flow control paused the writer ")
                .append("in each epoch (the server was behind). Milliseconds, p50 / p99, pooled as above.\n\n");
        b.append(
                        "| writer | p | interval | prepares | end of COPY | marker | PREPARE | flow-control pause per epoch |\n")
                .append("|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (Spec s : timedSpecs()) {
            List<Long> endOfCopy = pooled(s, PrepareBreakdown.END_OF_COPY);
            b.append(specCells(s))
                    .append(endOfCopy.size())
                    .append(" | ")
                    .append(p5099(endOfCopy))
                    .append(" | ")
                    .append(p5099(pooled(s, PrepareBreakdown.MARKER)))
                    .append(" | ")
                    .append(p5099(pooled(s, PrepareBreakdown.PREPARE)))
                    .append(" | ")
                    .append(p5099(pooled(s, PrepareBreakdown.FLOW_CONTROL)))
                    .append(" |\n");
        }
        b.append('\n');

        txCost.ifPresent(c -> c.markdown(b, server.get("fsync")));

        // ---- freshness
        FreshnessReport freshness = freshness();
        if (!freshness.isEmpty()) {
            freshness.markdown(b);
        }

        // ---- heap
        Spec shortHeap = find(Writer.EO_COPY, 1, o.intervalMs);
        Spec longHeap = find(Writer.EO_COPY, 1, o.heapIntervalMs);
        if (o.heap && longHeap != null) {
            b.append("## Peak task-manager heap versus checkpoint interval\n\n");
            b.append(String.format(
                    Locale.ROOT,
                    "eo-copy, parallelism 1, %,d rows: the largest heap in use right after a garbage collection "
                            + "(all heap pools, from the JVM's GC notifications), in the run's JVM, which holds the "
                            + "MiniCluster's task manager. Median over the rounds.\n\n",
                    o.rows));
            b.append("| checkpoint interval | peak heap after GC | each round | GCs per run |\n|--:|--:|---|---|\n");
            for (Spec s : List.of(shortHeap, longHeap)) {
                OptionalDouble h = medianHeap(s);
                b.append("| ")
                        .append(Spec.interval(s.intervalMs))
                        .append(" | ")
                        .append(h.isPresent() ? mb(h.getAsDouble()) : "failed")
                        .append(" | ")
                        .append(of(s).stream()
                                .map(m -> m.ok() ? mb(m.result.getLong("peak_heap_after_gc_bytes", 0)) : "failed")
                                .collect(Collectors.joining(", ")))
                        .append(" | ")
                        .append(of(s).stream()
                                .map(m -> String.valueOf(m.result.getLong("gc_count", 0)))
                                .collect(Collectors.joining(", ")))
                        .append(" |\n");
            }
            OptionalDouble a = medianHeap(shortHeap);
            OptionalDouble z = medianHeap(longHeap);
            if (a.isPresent() && z.isPresent()) {
                b.append(String.format(
                        Locale.ROOT,
                        "\n%s minus %s: %+.0f MB.\n",
                        Spec.interval(o.heapIntervalMs),
                        Spec.interval(o.intervalMs),
                        (z.getAsDouble() - a.getAsDouble()) / 1048576.0));
            }
            b.append('\n');
        }

        // ---- sensitivity
        if (hasSweep()) {
            sweepMarkdown(b);
        }

        // ---- targets
        b.append("## Against the targets\n\n");
        b.append(o.smoke ? "A smoke run: tiny tables, nothing here is a measurement.\n\n" : "");
        b.append("| target | measured | |\n|---|---|---|\n");
        for (int p : o.parallelisms) {
            target(b, "eo-copy ≥ 0.85 × raw COPY, p" + p, ratio(Writer.EO_COPY, Writer.RAW_COPY, p), 0.85);
            target(b, "eo-copy ≥ 2 × peer-eo-xa, p" + p, ratio(Writer.EO_COPY, Writer.PEER_EO_XA, p), 2.0);
            target(b, "eo-upsert ≥ 0.6 × raw COPY, p" + p, ratio(Writer.EO_UPSERT, Writer.RAW_COPY, p), 0.6);
            target(b, "eo-upsert > peer-alo-upsert, p" + p, ratio(Writer.EO_UPSERT, Writer.PEER_ALO_UPSERT, p), 1.0);
            target(b, "eo-sql ≥ 0.85 × raw COPY, p" + p, ratio(Writer.EO_SQL, Writer.RAW_COPY, p), 0.85);
            target(
                    b,
                    "eo-sql-upsert ≥ 2 × peer-sql-alo-upsert, p" + p,
                    ratio(Writer.EO_SQL_UPSERT, Writer.PEER_SQL_ALO_UPSERT, p),
                    2.0);
        }
        freshness.targets(b, o.parallelisms);
        for (int p : o.parallelisms) {
            Spec s = find(Writer.EO_COPY, p, o.intervalMs);
            List<Long> btp = s == null ? List.of() : pooled(s, "barrier_to_prepared_us");
            String measured = btp.isEmpty() ? "–" : String.format(Locale.ROOT, "%.1f ms", percentile(btp, 99) / 1000.0);
            String verdict = btp.isEmpty() ? "not measured" : percentile(btp, 99) < 50_000 ? "met" : "not met";
            b.append("| eo-copy barrier → prepared p99 < 50 ms at ")
                    .append(Spec.interval(o.intervalMs))
                    .append(", p")
                    .append(p)
                    .append(" | ")
                    .append(measured)
                    .append(" | ")
                    .append(verdict)
                    .append(" |\n");
        }
        if (o.heap && longHeap != null) {
            OptionalDouble a = medianHeap(shortHeap);
            OptionalDouble z = medianHeap(longHeap);
            boolean both = a.isPresent() && z.isPresent();
            double d = both ? (z.getAsDouble() - a.getAsDouble()) / 1048576.0 : 0;
            b.append("| eo-copy peak heap at ")
                    .append(Spec.interval(o.heapIntervalMs))
                    .append(" ≤ at ")
                    .append(Spec.interval(o.intervalMs))
                    .append(" + 64 MB | ")
                    .append(both ? String.format(Locale.ROOT, "%+.0f MB", d) : "–")
                    .append(" | ")
                    .append(both ? (d <= 64 ? "met" : "not met") : "not measured")
                    .append(" |\n");
        }
        b.append('\n');

        // ---- method
        b.append("## How it is measured\n\n");
        b.append(
                        "- Workload: rows `(id bigint primary key, k text, v bigint, ts timestamptz)`; record i (0..N-1) from a ")
                .append(
                        "`DataGeneratorSource` is a pure function of i (k: 17 hex characters, v = i) but for ts, the time the ")
                .append("source made it (raw COPY: 2026-01-01 + i ms). ")
                .append("Upsert: 10% of the records (i % 10 = 9) update the row written ")
                .append(String.format(Locale.ROOT, "%,d", Workload.repeatDistance(o.rows)))
                .append(
                        " records earlier (each id at most twice); the job is keyed by id before the sink, for both upsert writers. ")
                .append(
                        "The distance keeps every key out of the batch that inserted it: flink-connector-jdbc's upsert ")
                .append(
                        "with reWriteBatchedInserts fails on a batch that holds a key twice (\"ON CONFLICT DO UPDATE command cannot ")
                .append(
                        "affect row a second time\"); eosink's upsert is documented to take the last record of a key in a batch. ")
                .append("Upsert rows/s count records, repeats included.\n");
        b.append("- Every run: a fresh empty table, a `CHECKPOINT` of the server first, then one JVM of its own ")
                .append("(fresh heap and JIT) running either raw COPY or one Flink job on a local MiniCluster ")
                .append("(source → operator noting the first record → sink, chained; object reuse on; no restarts). ")
                .append("Afterwards the table is checked against the generator (row count and sum of v); a run whose ")
                .append(
                        "table is wrong, or that leaves a prepared transaction, counts as failed. Cases run in the same ")
                .append("order in every round; medians over the rounds.\n");
        b.append("- Start: the first record reaching the sink (raw COPY: the first row made). End: ")
                .append(
                        commitTimestamps
                                ? "the commit time of the last transaction that wrote a row of the table, from PostgreSQL "
                                        + "(`track_commit_timestamp`, `max(pg_xact_commit_timestamp(xmin))`): the same rule for every "
                                        + "writer, raw COPY included. Exactly-once sinks commit the last rows at the checkpoint after the "
                                        + "end of input, which the end includes; at-least-once sinks are done at their last batch.\n"
                                : "the end of the job (the server does not track commit timestamps), for every Flink writer; raw COPY: its commit.\n");
        b.append("- Peers: flink-connector-jdbc 4.0.0-2.0 `JdbcSink`; exactly-once with `PGXADataSource` and ")
                .append("`withTransactionPerConnection(true)` (PostgreSQL allows one XA transaction per connection), ")
                .append(
                        "maxRetries 0 (required); at-least-once with the default 3 retries. Batch size as ours; batch interval "
                                + "0 for exactly-once, " + Sinks.PEER_FLUSH_INTERVAL_MS + " ms for at-least-once. ")
                .append("The same URL for every Flink sink (ours included), with reWriteBatchedInserts=")
                .append(o.rewriteBatchedInserts)
                .append(".\n");
        b.append(
                        "- Known peer failure: flink-connector-jdbc's XA writer fails the job when a subtask snapshots a second ")
                .append(
                        "time after its end of input (`JdbcWriter.snapshotState` → `XaTransaction.createTx`: \"currentXid not null\"): ")
                .append(
                        "when the next checkpoint reaches it before the first one after the end of input is confirmed, or when that ")
                .append(
                        "one failed (at parallelism 2, a subtask that already finished makes it fail with \"unknown task\"). ")
                .append(
                        "The shorter the run and the interval, the likelier (smoke runs hit it often). A failed run is repeated up to ")
                .append(o.retries)
                .append(" times (unless the database refused the data, which a repeat only reproduces); ")
                .append("every failed attempt is listed in the throughput table.\n");
        b.append("- A run in which no record reaches the sink and nothing commits for ")
                .append(o.stallS)
                .append(
                        " s fails at once (\"stalled\"), naming what the database's sessions wait for; one that takes longer than ")
                .append(o.timeoutS)
                .append(" s is killed. Neither is repeated.\n");
        b.append("- Per-run results and logs: `").append(runsDir).append("` (not kept in git).\n");
        return b.toString();
    }

    private OptionalDouble ratio(Writer a, Writer z, int p) {
        OptionalDouble x = rate(a, p);
        OptionalDouble y = rate(z, p);
        return x.isPresent() && y.isPresent()
                ? OptionalDouble.of(x.getAsDouble() / y.getAsDouble())
                : OptionalDouble.empty();
    }

    private static void target(StringBuilder b, String name, OptionalDouble value, double atLeast) {
        target(b, name, value, "%.2f ×", v -> v >= atLeast);
    }

    /** One line of the targets table: the measured value in {@code format}, met or not, or not measured. */
    static void target(StringBuilder b, String name, OptionalDouble value, String format, DoublePredicate met) {
        boolean measured = value != null && value.isPresent();
        b.append("| ")
                .append(name)
                .append(" | ")
                .append(measured ? String.format(Locale.ROOT, format, value.getAsDouble()) : "–")
                .append(" | ")
                .append(measured ? (met.test(value.getAsDouble()) ? "met" : "not met") : "not measured")
                .append(" |\n");
    }

    /** The runs the checkpoint tables show: this project's sinks, the sweep's own runs left to its section. */
    private List<Spec> timedSpecs() {
        return specs.stream()
                .filter(s -> s.writer.isEosink() && s.purpose != Spec.Purpose.SWEEP)
                .collect(Collectors.toList());
    }

    /** A checkpoint table's first cells: "| writer | p | interval | ". */
    private static String specCells(Spec s) {
        return "| " + s.writer.id + " | " + s.parallelism + " | " + Spec.interval(s.intervalMs) + " | ";
    }

    private static String p5099(List<Long> micros) {
        if (micros.isEmpty()) {
            return "–";
        }
        return String.format(
                Locale.ROOT, "%.1f / %.1f", percentile(micros, 50) / 1000.0, percentile(micros, 99) / 1000.0);
    }

    private static String mb(double bytes) {
        return String.format(Locale.ROOT, "%.0f MB", bytes / 1048576.0);
    }

    private static String escape(String s) {
        return s.replace("|", "\\|");
    }

    // ------------------------------------------------------------------ sensitivity sweep

    void copyBytes(Spec s, long bytes) {
        copyBytes.put(s, bytes);
    }

    /** Whether this run measured the sweep (latest.md's section, sweep.csv). */
    boolean hasSweep() {
        return o.sweep && specs.stream().anyMatch(s -> s.wide());
    }

    /** One line of the sweep: the median over the rounds of one spec, and its ratio to raw COPY. */
    final class SweepLine {
        final Spec spec;
        final List<Measured> rounds;
        final OptionalDouble rowsPerS;
        final OptionalDouble ratio;
        final OptionalDouble mbPerS;
        final List<Long> barrierToPrepared;

        SweepLine(Spec spec, Spec copy) {
            this.spec = spec;
            this.rounds = of(spec);
            this.rowsPerS = median(
                    rounds.stream().filter(Measured::ok).map(m -> m.rowsPerS).collect(Collectors.toList()));
            OptionalDouble c = copy == null
                    ? OptionalDouble.empty()
                    : median(of(copy).stream()
                            .filter(Measured::ok)
                            .map(m -> m.rowsPerS)
                            .collect(Collectors.toList()));
            this.ratio = rowsPerS.isPresent() && c.isPresent()
                    ? OptionalDouble.of(rowsPerS.getAsDouble() / c.getAsDouble())
                    : OptionalDouble.empty();
            long bytes = copyBytes.getOrDefault(spec, 0L);
            this.mbPerS = rowsPerS.isPresent() && bytes > 0
                    ? OptionalDouble.of(rowsPerS.getAsDouble() * bytes / spec.rows / 1e6)
                    : OptionalDouble.empty();
            this.barrierToPrepared = spec.writer.isEosink() ? pooled(spec, "barrier_to_prepared_us") : List.of();
        }

        String failures() {
            return new Line(spec, rounds).failures();
        }
    }

    /** The sweep line of that case, against raw COPY of the same columns, rows and parallelism. */
    SweepLine sweepLine(Writer w, int p, long intervalMs, int columns, long rows) {
        Spec s = specs.stream()
                .filter(x -> x.is(w, p, intervalMs, columns, rows))
                .findFirst()
                .orElse(null);
        Spec copy = specs.stream()
                .filter(x -> x.is(Writer.RAW_COPY, p, 0, columns, rows))
                .findFirst()
                .orElse(null);
        return s == null ? null : new SweepLine(s, copy);
    }

    /** Row width: every sweep writer at every sweep parallelism, 4 columns then 20. */
    private List<SweepLine> widthLines() {
        List<SweepLine> lines = new ArrayList<>();
        for (int columns : List.of(Workload.NARROW, Workload.WIDE)) {
            for (int p : o.sweepParallelisms) {
                for (Writer w : o.sweepWriters) {
                    SweepLine l =
                            sweepLine(w, p, o.intervalMs, columns, columns == Workload.WIDE ? o.sweepRows : o.rows);
                    if (l != null) {
                        lines.add(l);
                    }
                }
            }
        }
        return lines;
    }

    /** Checkpoint interval: eo-copy at every sweep interval and parallelism, 4 columns. */
    private List<SweepLine> intervalLines() {
        List<SweepLine> lines = new ArrayList<>();
        for (int p : o.sweepParallelisms) {
            for (long ms : o.sweepIntervals) {
                SweepLine l = sweepLine(Writer.EO_COPY, p, ms, Workload.NARROW, o.rows);
                if (l != null) {
                    lines.add(l);
                }
            }
        }
        return lines;
    }

    String sweepCsv() {
        StringBuilder b = new StringBuilder(SWEEP_CSV_HEADER).append('\n');
        for (SweepLine l : widthLines()) {
            sweepCsvLine(b, "width", l);
        }
        for (SweepLine l : intervalLines()) {
            sweepCsvLine(b, "interval", l);
        }
        return b.toString();
    }

    private static void sweepCsvLine(StringBuilder b, String sweep, SweepLine l) {
        Spec s = l.spec;
        b.append(sweep)
                .append(',')
                .append(s.writer.id)
                .append(',')
                .append(s.parallelism)
                .append(',')
                .append(s.columns)
                .append(',')
                .append(s.writer.flink ? String.valueOf(s.intervalMs) : "")
                .append(',')
                .append(s.rows)
                .append(',')
                .append(l.rowsPerS.isPresent() ? String.valueOf(Math.round(l.rowsPerS.getAsDouble())) : "")
                .append(',')
                .append(l.mbPerS.isPresent() ? String.format(Locale.ROOT, "%.1f", l.mbPerS.getAsDouble()) : "")
                .append(',')
                .append(l.ratio.isPresent() ? String.format(Locale.ROOT, "%.3f", l.ratio.getAsDouble()) : "")
                .append(',')
                .append(
                        l.barrierToPrepared.isEmpty()
                                ? ""
                                : String.format(Locale.ROOT, "%.1f", percentile(l.barrierToPrepared, 50) / 1000.0))
                .append(',')
                .append(
                        l.barrierToPrepared.isEmpty()
                                ? ""
                                : String.format(Locale.ROOT, "%.1f", percentile(l.barrierToPrepared, 99) / 1000.0))
                .append('\n');
    }

    private void sweepMarkdown(StringBuilder b) {
        b.append("## Sensitivity: row width and checkpoint interval\n\n");
        b.append(
                        "How measured: these runs are part of the same rounds as the tables above (same order in every round, ")
                .append(
                        "one JVM and a fresh table per run, the table checked afterwards, the same steady-state window), ")
                .append("medians over the rounds; × raw COPY is against raw COPY measured in this run at the same ")
                .append(
                        "parallelism on the same table (columns and rows per run). Lines that the tables above already ")
                .append("measure are those runs, not repeats. Also in `")
                .append(SWEEP_CSV)
                .append("`.\n\n");

        b.append("### Row width\n\n");
        b.append(String.format(
                Locale.ROOT,
                "%d columns: the %d of the append workload plus b1-b3 bigint, i1-i3 integer, d1-d2 double precision, "
                        + "t1-t3 text, ts2-ts3 timestamptz, f1-f2 boolean and n1 numeric(14,2), each a pure function of the "
                        + "record index i (checked afterwards: row count, sum(v), sum(i2), sum(n1)); every sink binds "
                        + "the same Java objects (Long, Integer, Double, String, OffsetDateTime, Boolean, BigDecimal), "
                        + "raw COPY encodes the same values by hand. The %d-column runs have %,d rows each%s; the "
                        + "%d-column lines are the runs of the throughput table (%,d rows). MB/s: the rows' size in binary "
                        + "COPY (per row a field count, per field a length and the value: what raw COPY sends), "
                        + "10^6 bytes, over the steady-state window.\n\n",
                Workload.WIDE,
                Workload.NARROW,
                Workload.WIDE,
                o.sweepRows,
                o.sweepRows == o.rows / 2
                        ? " (half of the runs above, to keep the whole run short: `--sweep-rows`)"
                        : "",
                Workload.NARROW,
                o.rows));
        b.append("| columns | writer | p | rows per run | rows/s | MB/s | × raw COPY | each round | |\n")
                .append("|--:|---|--:|--:|--:|--:|--:|---|---|\n");
        for (SweepLine l : widthLines()) {
            b.append("| ")
                    .append(l.spec.columns)
                    .append(" | ")
                    .append(l.spec.writer.id)
                    .append(" | ")
                    .append(l.spec.parallelism)
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", l.spec.rows))
                    .append(" | ")
                    .append(
                            l.rowsPerS.isPresent()
                                    ? String.format(Locale.ROOT, "%,.0f", l.rowsPerS.getAsDouble())
                                    : "failed")
                    .append(" | ")
                    .append(l.mbPerS.isPresent() ? String.format(Locale.ROOT, "%.1f", l.mbPerS.getAsDouble()) : "–")
                    .append(" | ")
                    .append(fmt(l.ratio))
                    .append(" | ")
                    .append(eachRound(l.rounds))
                    .append(" | ")
                    .append(escape(l.failures()))
                    .append(" |\n");
        }
        List<String> summary = new ArrayList<>();
        for (int p : o.sweepParallelisms) {
            SweepLine narrow = sweepLine(Writer.EO_COPY, p, o.intervalMs, Workload.NARROW, o.rows);
            SweepLine wide = sweepLine(Writer.EO_COPY, p, o.intervalMs, Workload.WIDE, o.sweepRows);
            if (narrow != null && wide != null) {
                summary.add(String.format(
                        Locale.ROOT,
                        "p%d: %s at %d columns, %s at %d",
                        p,
                        fmt(narrow.ratio),
                        Workload.NARROW,
                        fmt(wide.ratio),
                        Workload.WIDE));
            }
        }
        if (!summary.isEmpty()) {
            b.append("\neo-copy × raw COPY, ")
                    .append(String.join("; ", summary))
                    .append(".\n");
        }
        b.append('\n');

        b.append("### Checkpoint interval\n\n");
        List<SweepLine> intervals = intervalLines();
        if (intervals.isEmpty()) {
            b.append("Not measured in this run (`--sweep-intervals`).\n\n");
            return;
        }
        b.append(String.format(
                Locale.ROOT,
                "eo-copy, %d columns, %,d rows per run, at each checkpoint interval; × raw COPY against raw COPY of the "
                        + "throughput table (same parallelism, this run). The end of a run is the commit of its last rows, "
                        + "as above; a long interval can leave a run without any checkpoint before the one at the end of "
                        + "input (then no barrier → prepared figure: it shows the run without checkpoint costs). Barrier → prepared "
                        + "as in *Checkpoint cost* (pooled over the rounds, milliseconds, nearest rank). Lines at %s%s "
                        + "are the runs of the tables above.\n\n",
                Workload.NARROW,
                o.rows,
                Spec.interval(o.intervalMs),
                o.heap ? " (and " + Spec.interval(o.heapIntervalMs) + " at p1, the heap comparison's)" : ""));
        b.append("| interval | p | rows/s | × raw COPY | checkpoints | barrier → prepared p50 / p99 | each round | |\n")
                .append("|--:|--:|--:|--:|--:|--:|---|---|\n");
        for (SweepLine l : intervals) {
            b.append("| ")
                    .append(Spec.interval(l.spec.intervalMs))
                    .append(" | ")
                    .append(l.spec.parallelism)
                    .append(" | ")
                    .append(
                            l.rowsPerS.isPresent()
                                    ? String.format(Locale.ROOT, "%,.0f", l.rowsPerS.getAsDouble())
                                    : "failed")
                    .append(" | ")
                    .append(fmt(l.ratio))
                    .append(" | ")
                    .append(l.barrierToPrepared.size())
                    .append(" | ")
                    .append(p5099(l.barrierToPrepared))
                    .append(" | ")
                    .append(eachRound(l.rounds))
                    .append(" | ")
                    .append(escape(l.failures()))
                    .append(" |\n");
        }
        b.append('\n');
    }

    private static String eachRound(List<Measured> rounds) {
        return rounds.stream()
                .map(m -> m.ok() ? String.format(Locale.ROOT, "%,.0f", m.rowsPerS) : "failed")
                .collect(Collectors.joining(", "));
    }

    private static String fmt(SweepLine line) {
        return line == null ? "–" : fmt(line.ratio);
    }

    private static String fmt(OptionalDouble ratio) {
        return ratio.isPresent() ? String.format(Locale.ROOT, "%.2f", ratio.getAsDouble()) : "–";
    }

    /**
     * Replaces the block between the page's markers (if both are there) with the summary. Its links to
     * latest.md and latest.png are relative to the page, as a markdown link must be.
     */
    void updateResultsPage(Path page) throws IOException {
        if (!Files.exists(page)) {
            return;
        }
        String text = Files.readString(page, StandardCharsets.UTF_8);
        int from = text.indexOf(RESULTS_BEGIN);
        int to = text.indexOf(RESULTS_END);
        if (from < 0 || to < from) {
            return;
        }
        Path results = page.toAbsolutePath()
                .normalize()
                .getParent()
                .relativize(o.out.toAbsolutePath().normalize());
        String latestMd = slashes(results.resolve("latest.md"));
        StringBuilder b = new StringBuilder(RESULTS_BEGIN).append('\n');
        b.append("Made by `")
                .append(o.commandLine)
                .append("` on ")
                .append(date)
                .append(": ")
                .append(machine.get("cores"))
                .append(" cores, ")
                .append(machine.get("java"))
                .append(", PostgreSQL ")
                .append(server.get("server_version"))
                .append(String.format(Locale.ROOT, ", %,d rows per run, %d round(s) ", o.rows, o.rounds))
                .append("(details: [")
                .append(slashes(o.out.resolve("latest.md")))
                .append("](")
                .append(latestMd)
                .append(")).\n\n");
        b.append(
                "| case | writer | rows/s p1 | × raw COPY p1 | rows/s p2 | × raw COPY p2 |\n|---|---|--:|--:|--:|--:|\n");
        List<Line> lines = lines();
        List<Writer> writers = lines.stream().map(l -> l.spec.writer).distinct().collect(Collectors.toList());
        for (Writer w : writers) {
            List<Line> mine = lines.stream().filter(l -> l.spec.writer == w).collect(Collectors.toList());
            b.append("| ").append(w.workload.id()).append(" | ").append(w.id);
            for (int p : List.of(1, 2)) {
                Line l = mine.stream()
                        .filter(x -> x.spec.parallelism == p)
                        .findFirst()
                        .orElse(null);
                b.append(" | ")
                        .append(
                                l == null
                                        ? ""
                                        : l.rowsPerS.isPresent()
                                                ? String.format(Locale.ROOT, "%,.0f", l.rowsPerS.getAsDouble())
                                                : "failed")
                        .append(" | ")
                        .append(
                                l == null || l.ratio.isEmpty()
                                        ? ""
                                        : String.format(Locale.ROOT, "%.2f", l.ratio.getAsDouble()));
            }
            b.append(" |\n");
        }
        if (hasSweep()) {
            // One small table: the sensitivity section's ratios (details in latest.md and sweep.csv).
            b.append("\n| eo-copy × raw COPY | ")
                    .append(o.sweepParallelisms.stream().map(p -> "p" + p).collect(Collectors.joining(" | ")))
                    .append(" |\n|---|")
                    .append(o.sweepParallelisms.stream().map(p -> "--:|").collect(Collectors.joining()))
                    .append('\n');
            b.append("| ")
                    .append(Workload.NARROW)
                    .append(" → ")
                    .append(Workload.WIDE)
                    .append(" columns");
            for (int p : o.sweepParallelisms) {
                b.append(" | ")
                        .append(fmt(sweepLine(Writer.EO_COPY, p, o.intervalMs, Workload.NARROW, o.rows)))
                        .append(" → ")
                        .append(fmt(sweepLine(Writer.EO_COPY, p, o.intervalMs, Workload.WIDE, o.sweepRows)));
            }
            b.append(" |\n");
            if (!o.sweepIntervals.isEmpty()) {
                b.append("| checkpoint ")
                        .append(o.sweepIntervals.stream().map(Spec::interval).collect(Collectors.joining(" / ")));
                for (int p : o.sweepParallelisms) {
                    b.append(" | ")
                            .append(o.sweepIntervals.stream()
                                    .map(ms -> fmt(sweepLine(Writer.EO_COPY, p, ms, Workload.NARROW, o.rows)))
                                    .collect(Collectors.joining(" / ")));
                }
                b.append(" |\n");
            }
        }
        b.append("\n![throughput](")
                .append(slashes(results.resolve("latest.png")))
                .append(")\n");
        FreshnessReport freshness = freshness();
        if (!freshness.isEmpty()) {
            freshness.summary(b, o.parallelisms, slashes(results.resolve(FreshnessReport.PNG)));
        }
        b.append(RESULTS_END);
        String updated = text.substring(0, from) + b + text.substring(to + RESULTS_END.length());
        Files.writeString(page, updated, StandardCharsets.UTF_8);
    }

    /** A path as a markdown link writes it, on any platform. */
    private static String slashes(Path path) {
        return path.toString().replace('\\', '/');
    }
}
