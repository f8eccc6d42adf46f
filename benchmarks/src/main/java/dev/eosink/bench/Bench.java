/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The orchestrator behind {@code ./bench}: starts (or connects to) PostgreSQL, then for each round runs
 * every case once, in the same order (A B C ... A B C ...), each in a JVM of its own ({@link RunOne})
 * against a fresh table; checks each table against the generator; writes the report.
 */
public final class Bench {

    private final BenchOptions o;
    private final Path runsDir;
    /** Per workload, column count and row count. */
    private final Map<String, Workload.Expected> expected = new LinkedHashMap<>();

    private volatile Process current;

    private String url;
    private String user;
    private String password;
    private boolean commitTimestamps;
    private final Map<String, String> server = new LinkedHashMap<>();
    private String loadAtStart;

    Bench(BenchOptions o) {
        this.o = o;
        this.runsDir =
                o.smoke ? o.out.resolve("runs") : o.out.resolve("tmp").resolve("run-" + BenchOptions.timestamp());
    }

    public static void main(String[] args) throws Exception {
        BenchOptions o;
        try {
            o = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("error: " + e.getMessage());
            }
            System.err.println(BenchOptions.USAGE);
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        System.exit(new Bench(o).run());
    }

    /** Runs everything and writes the report; 0 when every run succeeded, 1 otherwise. */
    int run() throws Exception {
        long t0 = System.nanoTime();
        loadAtStart = loadAverage();
        Files.createDirectories(runsDir);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            Process p = current;
                            if (p != null) {
                                p.destroyForcibly();
                            }
                        },
                        "bench-stop-run"));

        StandalonePostgres embedded = null;
        MariaDbFixture mariaDb = null;
        try {
            if (o.database == Database.MARIADB) {
                System.out.println("starting an embedded MariaDB...");
                mariaDb = MariaDbFixture.startNew();
                url = mariaDb.jdbcUrl();
                user = mariaDb.adminUser();
                password = mariaDb.adminPassword();
                server.put("source", "embedded (the tests' MariaDbFixture, started by ./bench)");
                server.put("server_version", mariaDb.serverVersion());
            } else if (o.postgresUrl != null) {
                url = o.postgresUrl;
                user = o.user;
                password = o.password;
                server.put("source", "external server");
            } else {
                System.out.println("starting an embedded PostgreSQL...");
                Map<String, String> settings = new LinkedHashMap<>();
                // Commit times of the rows' transactions: the end of each run, the same way for every writer.
                settings.put("track_commit_timestamp", "on");
                settings.putAll(o.serverSettings);
                embedded = PostgresFixture.startNew(settings);
                url = embedded.jdbcUrl();
                user = embedded.user();
                password = embedded.password();
                server.put("source", "embedded (zonky binaries, started by ./bench)");
            }
            try {
                if (mariaDb == null) {
                    readServerSettings();
                }
            } catch (SQLException e) {
                System.err.println("error: cannot use PostgreSQL at "
                        + url.replaceAll("(?i)([?&]password=)[^&]*", "$1***") + " as " + user + ": " + e.getMessage());
                return 2;
            }
            commitTimestamps = mariaDb == null && "on".equals(server.get("track_commit_timestamp"));
            printHeader();
            java.util.Optional<PreparedCost> txCost = java.util.Optional.empty();
            if (mariaDb == null) {
                try (Connection c = connect()) {
                    txCost = java.util.Optional.of(PreparedCost.measure(
                            c, o.smoke ? PreparedCost.SMOKE_TRANSACTIONS : PreparedCost.TRANSACTIONS));
                }
                System.out.println(txCost.get().summary());
            }

            List<Spec> specs = plan();
            List<Measured> all = new ArrayList<>();
            int total = specs.size() * o.rounds;
            int n = 0;
            for (int round = 1; round <= o.rounds; round++) {
                for (Spec spec : specs) {
                    n++;
                    List<String> failed = new ArrayList<>();
                    Measured m;
                    for (int attempt = 0; ; attempt++) {
                        m = runOne(spec, round, n, attempt);
                        System.out.printf(
                                Locale.ROOT,
                                "[%3d/%d] round %d  %s  %s%s%n",
                                n,
                                total,
                                round,
                                spec.label(),
                                summary(m),
                                attempt > 0 ? " (attempt " + (attempt + 1) + ")" : "");
                        if (m.ok() || attempt >= o.retries || deterministic(m)) {
                            break;
                        }
                        failed.add(m.failure);
                    }
                    m.failedAttempts.addAll(failed);
                    all.add(m);
                }
            }
            double minutes = (System.nanoTime() - t0) / 60e9;
            if (mariaDb != null) {
                MariaDbReport mariaDbReport = new MariaDbReport(o, specs, all, server, minutes);
                Files.createDirectories(o.out);
                mariaDbReport.write(o.out);
                System.out.println();
                System.out.println(mariaDbReport.tables());
                System.out.printf(
                        Locale.ROOT,
                        "done in %.1f min: %s, %s (per-run logs: %s)%n",
                        minutes,
                        o.out.resolve(MariaDbReport.PAGE),
                        o.out.resolve("latest.csv"),
                        runsDir);
                return all.stream().allMatch(Measured::ok) ? 0 : 1;
            }
            Report report = new Report(o, specs, all, server, machine(), minutes, commitTimestamps, runsDir, txCost);
            for (Spec s : specs) {
                report.copyBytes(s, expected(s).copyBytes);
            }
            Files.createDirectories(o.out);
            report.write(o.out);
            if (o.isDefaultOut()) {
                report.updateResultsPage(Report.RESULTS_PAGE);
            }
            System.out.println();
            System.out.println(report.csv().trim());
            System.out.println();
            System.out.printf(
                    Locale.ROOT,
                    "done in %.1f min: %s, %s, %s%s (per-run logs: %s)%n",
                    minutes,
                    o.out.resolve("latest.md"),
                    o.out.resolve("latest.csv"),
                    o.out.resolve("latest.png"),
                    report.hasSweep() ? ", " + o.out.resolve(Report.SWEEP_CSV) : "",
                    runsDir);
            return all.stream().allMatch(Measured::ok) ? 0 : 1;
        } finally {
            if (mariaDb != null) {
                mariaDb.close();
            }
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    /**
     * Throughput cases: for each parallelism, every writer; then the long-interval heap case; then the
     * sweep's cases that those do not already measure (at each sweep parallelism: the sweep writers on
     * the 20-column table, and eo-copy at each sweep interval), with the 4-column references it needs.
     */
    List<Spec> plan() {
        List<Spec> specs = new ArrayList<>();
        for (int p : o.parallelisms) {
            for (Writer w : o.writers) {
                specs.add(new Spec(w, p, o.intervalMs, Spec.Purpose.THROUGHPUT, o.rows));
            }
        }
        if (o.heap) {
            boolean shortOne = specs.stream().anyMatch(s -> s.writer == Writer.EO_COPY && s.parallelism == 1);
            if (!shortOne) {
                specs.add(new Spec(Writer.EO_COPY, 1, o.intervalMs, Spec.Purpose.HEAP, o.rows));
            }
            specs.add(new Spec(Writer.EO_COPY, 1, o.heapIntervalMs, Spec.Purpose.HEAP, o.rows));
        }
        for (int p : o.parallelisms) {
            for (Writer w : o.freshnessWriters) {
                if (o.writers.contains(w)) {
                    for (long ms : o.freshnessIntervals) {
                        need(specs, w, p, ms, Workload.NARROW, o.rows, Spec.Purpose.FRESHNESS);
                    }
                }
            }
        }
        if (o.sweep) {
            for (int p : o.sweepParallelisms) {
                for (Writer w : o.sweepWriters) {
                    need(specs, w, p, o.intervalMs, Workload.NARROW, o.rows);
                }
                need(specs, Writer.RAW_COPY, p, o.intervalMs, Workload.NARROW, o.rows);
                for (Writer w : o.sweepWriters) {
                    need(specs, w, p, o.intervalMs, Workload.WIDE, o.sweepRows);
                }
                for (long ms : o.sweepIntervals) {
                    need(specs, Writer.EO_COPY, p, ms, Workload.NARROW, o.rows);
                }
            }
        }
        return specs;
    }

    /** The spec that measures this, added (for the sweep) when the plan does not have it yet. */
    private static Spec need(List<Spec> specs, Writer w, int p, long intervalMs, int columns, long rows) {
        return need(specs, w, p, intervalMs, columns, rows, Spec.Purpose.SWEEP);
    }

    /** The spec that measures this, added for {@code purpose} when the plan does not have it yet. */
    private static Spec need(
            List<Spec> specs, Writer w, int p, long intervalMs, int columns, long rows, Spec.Purpose purpose) {
        for (Spec s : specs) {
            if (s.is(w, p, intervalMs, columns, rows)) {
                return s;
            }
        }
        Spec s = new Spec(w, p, intervalMs, purpose, columns, rows);
        specs.add(s);
        return s;
    }

    private Measured runOne(Spec spec, int round, int n, int attempt) throws Exception {
        String table = String.format(
                        Locale.ROOT, "bench_%03d_%s_p%d", n, spec.writer.id.replace('-', '_'), spec.parallelism)
                + (spec.purpose == Spec.Purpose.SWEEP || spec.purpose == Spec.Purpose.FRESHNESS
                        ? (spec.wide() ? "_c" + spec.columns : "") + (spec.writer.flink ? "_i" + spec.intervalMs : "")
                        : "")
                + (attempt > 0 ? "_a" + (attempt + 1) : "");
        Path result = runsDir.resolve(table + ".properties");
        Path log = runsDir.resolve(table + ".log");
        Workload.Expected want = expected(spec);

        Set<String> preparedBefore;
        long clockOffsetMicros;
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute(spec.wide() ? WideRow.createTable(table) : Workload.createTable(table, url));
            if (o.database == Database.POSTGRESQL) {
                try {
                    s.execute("CHECKPOINT"); // the previous run's dirty pages are not this run's work
                } catch (SQLException e) {
                    // not allowed for this role: fine
                }
            }
            preparedBefore = prepared(s);
            clockOffsetMicros = commitTimestamps ? clockOffset(s) : 0;
        }

        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(Arrays.asList(o.jvmOpts.trim().split("\\s+")));
        cmd.add("-D" + Workload.REPEAT_DISTANCE_PROPERTY + "=" + o.repeatDistance);
        cmd.add("-D" + Sinks.MAX_COPY_BACKLOG_PROPERTY + "=" + o.maxCopyBacklog);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RunOne.class.getName());
        cmd.addAll(List.of(
                "--writer", spec.writer.id,
                "--parallelism", String.valueOf(spec.parallelism),
                "--rows", String.valueOf(spec.rows),
                "--interval-ms", String.valueOf(spec.intervalMs),
                "--columns", String.valueOf(spec.columns),
                "--batch-size", String.valueOf(o.batchSize),
                "--url", spec.writer.flink ? flinkUrl() : url,
                "--user", user,
                "--table", table,
                "--stall-s", String.valueOf(o.stallS),
                "--warmup-rows", String.valueOf(spec.rows * o.warmupPercent / 100),
                "--result", result.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("EOSINK_BENCH_PASSWORD", password);
        long w0 = System.nanoTime();
        Process p = pb.start();
        current = p;
        String failure = null;
        boolean exited = p.waitFor(o.timeoutS, TimeUnit.SECONDS);
        if (!exited) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            failure = "timeout after " + o.timeoutS + " s";
        }
        current = null;
        double wall = (System.nanoTime() - w0) / 1e9;

        RunResult r = Files.exists(result) ? RunResult.read(result) : new RunResult();
        if (failure == null && r.get("status") == null) {
            failure = "the run's JVM exited with code " + p.exitValue() + " without a result (see " + log + ")";
        }
        if (failure == null && !r.ok()) {
            failure = r.get("reason", "failed");
            if (!failure.contains("SQLException")) {
                // Flink may report the job's end (a task manager shutting down) rather than the task
                // failure that caused it: name the first database error the run logged, if any.
                String db = firstDatabaseError(log);
                if (db != null) {
                    failure = db + " (job: " + failure + ")";
                }
            }
        }

        double rowsPerS = 0;
        double steady = 0;
        String endMethod = commitTimestamps ? "commit timestamp" : "job end";
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            if (failure == null) {
                try (ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(v), 0), "
                        + (commitTimestamps
                                ? "(extract(epoch FROM max(pg_xact_commit_timestamp(xmin))) * 1000000)::bigint"
                                : "NULL")
                        + (spec.wide() ? ", coalesce(sum(i2), 0), coalesce(sum(n1), 0)" : "")
                        + " FROM " + table)) {
                    rs.next();
                    long count = rs.getLong(1);
                    long sum = rs.getLong(2);
                    long commitEnd = rs.getLong(3);
                    boolean wideOk = true;
                    String wideFound = "";
                    if (spec.wide()) {
                        long sumI2 = rs.getLong(4);
                        java.math.BigDecimal sumN1 = rs.getBigDecimal(5);
                        wideOk = sumI2 == want.sumI2
                                && sumN1.compareTo(java.math.BigDecimal.valueOf(want.sumN1Cents, 2)) == 0;
                        wideFound = ", sum(i2) " + sumI2 + ", sum(n1) " + sumN1.toPlainString();
                    }
                    if (count != want.rows || sum != want.sumV || !wideOk) {
                        failure = "table check: expected " + want + ", found " + count + " rows, sum(v) " + sum
                                + wideFound;
                    } else {
                        long first = r.getLong("first_row_us", 0);
                        long end;
                        if (commitTimestamps) {
                            end = commitEnd - clockOffsetMicros;
                        } else {
                            end = spec.writer.flink ? r.getLong("job_end_us", 0) : r.getLong("last_commit_us", 0);
                        }
                        steady = (end - first) / 1e6;
                        if (first <= 0 || steady <= 0) {
                            failure = "no steady-state window (first row " + first + " us, end " + end + " us)";
                        } else {
                            rowsPerS = spec.rows / steady;
                        }
                        if (failure == null && commitTimestamps && spec.writer.flink && !spec.wide()) {
                            Freshness.measure(s, table, clockOffsetMicros, r);
                        }
                        if (spec.writer.isEosink()) {
                            PrepareBreakdown.read(log, table, r);
                        }
                    }
                }
            }
            Set<String> left = prepared(s);
            left.removeAll(preparedBefore);
            for (String gid : left) {
                if (o.database == Database.MARIADB) {
                    break; // XA RECOVER's branches: reported below, left for the operator (docs/xa.md, Operators)
                }
                try {
                    s.execute("ROLLBACK PREPARED '" + gid.replace("'", "''") + "'");
                } catch (SQLException e) {
                    // committed or rolled back meanwhile
                }
            }
            if (!left.isEmpty() && failure == null) {
                failure = left.size() + " prepared transaction(s) left behind: " + left;
            }
            s.execute("DROP TABLE IF EXISTS " + table);
        }
        return new Measured(spec, round, r, failure, rowsPerS, steady, wall, endMethod);
    }

    /** What the table of this spec must hold (and, for the sweep's MB/s, its size in binary COPY). */
    Workload.Expected expected(Spec spec) {
        String key = spec.workloadId() + "/" + spec.rows;
        return expected.computeIfAbsent(key, k -> {
            if (spec.wide()) {
                return Workload.expectedWide(spec.rows);
            }
            Workload.Expected e = Workload.expected(spec.writer.workload, spec.rows);
            if (o.sweep && spec.writer.workload == Case.APPEND) {
                e.copyBytes = Workload.narrowCopyBytes(spec.rows);
            }
            return e;
        });
    }

    /**
     * A failure that a repeat would only reproduce (or that costs minutes each time): the database
     * refused the data (integrity constraint, SQLSTATE class 23) or the statement (class 42), the table
     * came out wrong, or the run stalled or timed out.
     */
    private static boolean deterministic(Measured m) {
        String state = m.result.get("sql_state", "");
        return state.startsWith("23")
                || state.startsWith("42")
                || m.failure.startsWith("table check")
                || m.failure.startsWith("stalled")
                || m.failure.startsWith("timeout");
    }

    private static String firstDatabaseError(Path log) {
        try (java.util.stream.Stream<String> lines = Files.lines(log)) {
            return lines.filter(l -> l.contains("org.postgresql.util.PSQLException: "))
                    .map(l -> "PSQLException: " + l.substring(l.indexOf("PSQLException: ") + 15))
                    .map(RunResult::oneLine)
                    .findFirst()
                    .orElse(null);
        } catch (IOException | java.io.UncheckedIOException e) {
            return null;
        }
    }

    private String summary(Measured m) {
        String heap = String.format(Locale.ROOT, "heap %d MB", m.result.getLong("peak_heap_after_gc_bytes", 0) >> 20);
        if (!m.ok()) {
            return String.format(Locale.ROOT, "FAILED (%.1f s): %s", m.wallSeconds, m.failure);
        }
        return String.format(
                Locale.ROOT,
                "%,10.0f rows/s  (%.2f s steady, %.1f s wall, %s)",
                m.rowsPerS,
                m.steadySeconds,
                m.wallSeconds,
                heap);
    }

    /** The URL every Flink sink gets: the same for ours and the peer's. */
    private String flinkUrl() {
        if (!o.rewriteBatchedInserts || o.database == Database.MARIADB) {
            return url;
        }
        return url + (url.contains("?") ? "&" : "?") + "reWriteBatchedInserts=true";
    }

    private Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        if (!password.isEmpty()) {
            props.setProperty("password", password);
        }
        return DriverManager.getConnection(url, props);
    }

    private Set<String> prepared(Statement s) throws SQLException {
        Set<String> gids = new HashSet<>();
        if (o.database == Database.MARIADB) {
            try (ResultSet rs = s.executeQuery("XA RECOVER")) {
                while (rs.next()) {
                    gids.add(rs.getLong("formatID") + ":" + rs.getString("data"));
                }
            }
            return gids;
        }
        try (ResultSet rs = s.executeQuery("SELECT gid FROM pg_prepared_xacts WHERE database = current_database()")) {
            while (rs.next()) {
                gids.add(rs.getString(1));
            }
        }
        return gids;
    }

    /** Server clock minus local clock, in microseconds (0 on the same machine, up to the round trip). */
    private static long clockOffset(Statement s) throws SQLException {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < 5; i++) {
            long before = Probe.wallMicros();
            try (ResultSet rs = s.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")) {
                rs.next();
                long serverNow = rs.getLong(1);
                long after = Probe.wallMicros();
                if (after - before < best) {
                    best = after - before;
                    offset = serverNow - (before + after) / 2;
                }
            }
        }
        return offset;
    }

    private void readServerSettings() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            Set<String> names = new LinkedHashSet<>(List.of("server_version"));
            names.addAll(Report.SETTINGS_SHOWN);
            names.addAll(o.serverSettings.keySet());
            for (String name : names) {
                try (ResultSet rs = s.executeQuery("SHOW " + name)) {
                    rs.next();
                    server.put(name, rs.getString(1));
                }
            }
        }
        int maxPrepared = Integer.parseInt(server.get("max_prepared_transactions"));
        if (maxPrepared < 64) {
            throw new IllegalStateException("the server has max_prepared_transactions = " + maxPrepared
                    + "; the benchmark needs at least 64 (PREPARE TRANSACTION per subtask and checkpoint, and the "
                    + "XA peer's pool). Set it and restart the server.");
        }
    }

    private Map<String, String> machine() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        m.put("cpu", firstMatch(Path.of("/proc/cpuinfo"), "model name"));
        String mem = firstMatch(Path.of("/proc/meminfo"), "MemTotal");
        if (!mem.isEmpty()) {
            m.put("memory", Math.round(Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1048576.0) + " GiB");
        }
        m.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("load average (1, 5, 15 min)", "at the start " + loadAtStart + "; at the end " + loadAverage());
        return m;
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String firstMatch(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return "";
    }

    private void printHeader() {
        if (o.database == Database.MARIADB) {
            System.out.printf(
                    Locale.ROOT,
                    "MariaDB %s (%s), run end = job end%n",
                    server.get("server_version"),
                    server.get("source"));
        } else {
            printPostgresHeader();
        }
        System.out.printf(
                Locale.ROOT,
                "%,d rows per run, %d round(s), writers %s, parallelism %s, checkpoint interval %s%s%n",
                o.rows,
                o.rounds,
                Writer.ids(o.writers),
                o.parallelisms,
                Spec.interval(o.intervalMs),
                o.heap ? ", heap at " + Spec.interval(o.heapIntervalMs) : "");
        printSweepHeader();
    }

    private void printPostgresHeader() {
        System.out.printf(
                Locale.ROOT,
                "PostgreSQL %s (%s), fsync=%s, commit timestamps %s%n",
                server.get("server_version"),
                server.get("source"),
                server.get("fsync"),
                commitTimestamps ? "on" : "off (run end = job end)");
    }

    private void printSweepHeader() {
        if (o.sweep) {
            System.out.printf(
                    Locale.ROOT,
                    "sweep: %s on %d columns (%,d rows per run), eo-copy at %s; parallelism %s%n",
                    Writer.ids(o.sweepWriters),
                    Workload.WIDE,
                    o.sweepRows,
                    o.sweepIntervals.isEmpty()
                            ? "no other interval"
                            : o.sweepIntervals.stream()
                                    .map(Spec::interval)
                                    .collect(java.util.stream.Collectors.joining(", ")),
                    o.sweepParallelisms);
        }
        System.out.println("load average now: " + loadAverage() + "; per-run output in " + runsDir + File.separator);
    }
}
