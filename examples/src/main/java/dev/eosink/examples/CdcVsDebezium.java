/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.core.TransactionId;
import dev.eosink.examples.kafka.DebeziumJdbcSink;
import dev.eosink.replication.ReplicaTables;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.ReplicaReader;
import dev.eosink.testing.cdc.SourceBank;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code ./demo --cdc-vs-debezium}: this project's replication beside Debezium's JDBC sink connector, in one run, on the
 * same topics. {@link SourceBank}'s transactions are captured once by Debezium into Kafka ({@link CapturedBank});
 * then, over {@code --rounds} rounds in alternating order (round 1: eosink first, round 2: the peer first, ...), each
 * sink replicates all of the topics into fresh schemas of the same PostgreSQL server:
 *
 * <ul>
 *   <li><b>eosink</b>: the Flink job of {@code ./demo --cdc} ({@link ReplicationJob}: whole source transactions
 *       through the routed PostgreSQL sink, parallelism 1, checkpoints every 250 ms), without throttle or failures,
 *       into {@code cmp_eosink_r<round>}, whose tables are {@link SourceBank#ddl}'s, foreign keys included;
 *   <li><b>the peer</b>: Debezium's JDBC sink connector in a Kafka Connect standalone worker ({@link
 *       DebeziumJdbcSink}), {@code insert.mode=upsert}, {@code delete.enabled=true}, {@code
 *       primary.key.mode=record_key}, {@code schema.evolution=none}, the four table topics (it has no use for the
 *       transaction topic), into {@code cmp_debezium_r<round>}, whose tables are the same but without their foreign
 *       keys: the connector writes table by table (a batch of lines may come before their order's), which foreign
 *       keys refuse.
 * </ul>
 *
 * <p>What is timed, for each: from the job's submission (the cluster is up) or the connector's creation (the worker is
 * up) until a poll of the replica finds it equal to the source, row by row ({@link SourceBank#read}); the
 * replica is polled every 20 ms. A {@link ReplicaReader} checks the source's invariants at every commit it observes
 * meanwhile, as {@code ./demo --cdc} does. The report: per round and as medians, seconds, source transactions and
 * change events (the records of the four table topics) a second, the reader's verdict, the final state against the
 * source (rows missing, extra or different), and for eosink the prepared transactions left; the ratio of the
 * medians; and a markdown results file.
 */
final class CdcVsDebezium {

    static final String EOSINK = "eosink";
    static final String PEER = "debezium-jdbc";

    /** Where {@code ./demo --cdc-vs-debezium} writes its results when run from the repository. */
    static final Path DEFAULT_RESULTS = Path.of("benchmarks", "results", "replication-vs-debezium-jdbc.md");

    private static final long POLL_MILLIS = 20;

    private CdcVsDebezium() {}

    /** One sink's replication in one round. */
    static final class Side {
        final String sink;
        final int round;
        /** 1 or 2: whether it ran first or second in its round. */
        final int order;

        final String schema;
        /** Seconds from the start until the replica equalled the source; NaN if it never did in time. */
        double seconds = Double.NaN;
        /** Seconds from the start until the replica's first row. */
        double firstRowSeconds = Double.NaN;

        boolean equal;
        int observed;
        int inconsistentCommits;
        List<String> inconsistent = List.of();
        /** Per table, rows missing, extra and different at the end ("" when equal). */
        String differences = "";
        /** Rows per table at the end. */
        Map<String, Integer> rows = Map.of();
        /** eosink's prepared transactions left; -1 for the peer. */
        int prepared = -1;

        String failure;

        Side(String sink, int round, int order, String schema) {
            this.sink = sink;
            this.round = round;
            this.order = order;
            this.schema = schema;
        }

        String verdict() {
            return String.format(
                    "consistent at every observed commit: %d of %d%s",
                    observed - inconsistentCommits,
                    observed,
                    inconsistent.isEmpty()
                            ? ""
                            : "; first inconsistent: "
                                    + inconsistent.stream().limit(3).collect(Collectors.joining(" | ")));
        }
    }

    /** What a run found. */
    static final class Report {
        int exit;
        final List<Side> sides = new ArrayList<>();
        long transactions;
        long tableRecords;
        long transactionRecords;
        double captureSeconds;
        String markdown = "";

        List<Side> of(String sink) {
            return sides.stream().filter(s -> s.sink.equals(sink)).collect(Collectors.toList());
        }

        /** The median of a sink's seconds over its rounds; NaN if any round never finished. */
        double medianSeconds(String sink) {
            List<Double> s = of(sink).stream().map(x -> x.seconds).sorted().collect(Collectors.toList());
            if (s.isEmpty() || s.stream().anyMatch(d -> d.isNaN())) {
                return Double.NaN;
            }
            int n = s.size();
            return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
        }
    }

    static int run(DemoOptions o) throws Exception {
        String load = loadAverage();
        try (KafkaDemo.Servers servers = KafkaDemo.Servers.startOrNamed(o)) {
            Report r = run(o, servers);
            Path file = o.results != null
                    ? o.results
                    : Files.isDirectory(DEFAULT_RESULTS.getParent()) ? DEFAULT_RESULTS : null;
            if (file != null) {
                Files.writeString(
                        file,
                        markdown(o, r, load + " at the start, " + loadAverage() + " at the end"),
                        StandardCharsets.UTF_8);
                System.out.println("results: " + file.toAbsolutePath());
            } else {
                System.out.println("no results file written (not run from the repository): --results FILE writes one");
            }
            return r.exit;
        }
    }

    /** One run into {@code servers}' PostgreSQL (an embedded one: the replica server) through their broker. */
    static Report run(DemoOptions o, KafkaDemo.Servers servers) throws Exception {
        return run(o, servers, CompletableFuture.supplyAsync(CapturedBank::startSource));
    }

    /** As {@link #run(DemoOptions, KafkaDemo.Servers)}, with a source server ({@link CapturedBank#startSource()}). */
    static Report run(DemoOptions o, KafkaDemo.Servers servers, CompletableFuture<StandalonePostgres> source)
            throws Exception {
        StandalonePostgres target = Objects.requireNonNull(servers.postgres, "the replicas are an embedded PostgreSQL");
        String bootstrap = servers.broker.bootstrapServers();
        Report report = new Report();
        Duration timeout = Duration.ofSeconds(120 + o.events / 50);
        // The worker (a JVM, its plugins) and the Flink cluster start while the source's transactions are captured.
        CompletableFuture<LocalCluster> starting = CompletableFuture.supplyAsync(() -> {
            try {
                return LocalCluster.start(KafkaDemo.clusterConfiguration(o), 1, 1);
            } catch (Exception e) {
                throw new IllegalStateException("the Flink cluster did not start", e);
            }
        });
        try (DebeziumJdbcSink worker = DebeziumJdbcSink.launch(bootstrap);
                CapturedBank bank = CapturedBank.capture(
                        bootstrap, source.join(), o.events, "eosink-cmp-" + System.currentTimeMillis())) {
            report.transactions = o.events;
            report.tableRecords = bank.tableRecords();
            report.transactionRecords = bank.transactionRecords();
            report.captureSeconds = bank.seconds;
            Map<String, Map<String, String>> want;
            try (Connection s = bank.source.connect()) {
                want = SourceBank.read(s, "public");
            }
            LocalCluster cluster = starting.join();
            worker.awaitReady();
            System.out.printf(
                    "peer: %s, tasks.max=%d, batch.size=%s; its log: %s%n",
                    DebeziumJdbcSink.versions(),
                    o.peerTasks,
                    o.peerBatchSize != null ? o.peerBatchSize : "the connector's default",
                    worker.log());
            System.out.printf(
                    "eosink --cdc-vs-debezium: %,d source transactions, %,d records in the table topics (+%,d in the "
                            + "transaction topic), %d round(s), each sink replicating everything into a fresh schema%n",
                    report.transactions, report.tableRecords, report.transactionRecords, o.rounds);
            rounds:
            for (int round = 1; round <= o.rounds; round++) {
                boolean eosinkFirst = round % 2 == 1;
                for (int order = 1; order <= 2; order++) {
                    Side side = (order == 1) == eosinkFirst
                            ? eosink(o, servers, target, bank, want, cluster, round, order, timeout)
                            : peer(o, servers, target, bank, want, worker, round, order, timeout);
                    report.sides.add(side);
                    if (side.failure != null) {
                        // A job still running, or a worker in trouble, would disturb the rounds after it.
                        System.out.println("stopping after this failure: the rounds after it would not be comparable");
                        break rounds;
                    }
                }
            }
        } finally {
            // Once it started: at once, or when it does (a capture that failed left it starting).
            starting.thenAccept(CdcVsDebezium::closeQuietly);
        }
        summarize(report);
        return report;
    }

    private static Side eosink(
            DemoOptions o,
            KafkaDemo.Servers servers,
            StandalonePostgres target,
            CapturedBank bank,
            Map<String, Map<String, String>> want,
            LocalCluster cluster,
            int round,
            int order,
            Duration timeout)
            throws Exception {
        Side side = new Side(EOSINK, round, order, "cmp_eosink_r" + round);
        String sinkId = o.sinkId + "-r" + round;
        recreate(servers, side.schema, SourceBank.ddl(side.schema));
        ReplicaTables tables;
        try (Connection c = servers.connect()) {
            tables = ReplicaTables.read(c, side.schema, CapturedBank.SOURCE_TABLES);
        }
        StreamExecutionEnvironment env = Demo.environment(o);
        env.setParallelism(1); // one source database: one consistency group, one writer
        if (!o.flinkConf.containsKey("execution.checkpointing.interval")) {
            env.enableCheckpointing(250); // as ./demo --cdc
        }
        ReplicationJob.replicate(
                env.fromSource(
                        bank.topics.source(bank.end, "eosink-" + sinkId + "-" + System.currentTimeMillis()),
                        WatermarkStrategy.noWatermarks(),
                        "debezium topics"),
                ReplicationJob.sink(servers.jdbcUrl, servers.user, servers.password, sinkId, tables));
        ReplicaReader reader = new ReplicaReader(target, side.schema).start();
        try {
            long start = System.nanoTime();
            JobID job = cluster.submit(
                    env, "eosink: replication beside Debezium's JDBC sink, round " + round, Optional.empty());
            CompletableFuture<JobResult> result = cluster.result(job);
            awaitEqual(
                    servers,
                    want,
                    side,
                    start,
                    timeout,
                    () -> {
                        if (result.isDone() && !result.get().isSuccess()) {
                            return "the job failed: "
                                    + result.get()
                                            .getSerializedThrowable()
                                            .map(Throwable::toString)
                                            .orElse("?");
                        }
                        return null;
                    },
                    reader);
            if (side.failure == null) {
                JobResult r = result.get(timeout.toSeconds(), TimeUnit.SECONDS);
                if (!r.isSuccess()) {
                    side.failure = "the job did not succeed";
                }
            }
        } finally {
            reader.stop();
        }
        side.prepared = target.preparedGids(TransactionId.sinkPrefix(sinkId)).size();
        verdict(side, reader, servers, want);
        return side;
    }

    private static Side peer(
            DemoOptions o,
            KafkaDemo.Servers servers,
            StandalonePostgres target,
            CapturedBank bank,
            Map<String, Map<String, String>> want,
            DebeziumJdbcSink worker,
            int round,
            int order,
            Duration timeout)
            throws Exception {
        Side side = new Side(PEER, round, order, "cmp_debezium_r" + round);
        String name = "cmp-debezium-r" + round + "-" + System.currentTimeMillis();
        // Without foreign keys unless asked: the connector writes table by table, which they refuse.
        recreate(
                servers,
                side.schema,
                o.peerForeignKeys ? SourceBank.ddl(side.schema) : withoutForeignKeys(SourceBank.ddl(side.schema)));
        Map<String, String> config = connectorConfig(o, servers, bank, side.schema);
        ReplicaReader reader = new ReplicaReader(target, side.schema).start();
        try {
            long start = System.nanoTime();
            worker.startConnector(name, config);
            awaitEqual(servers, want, side, start, timeout, () -> worker.failure(name), reader);
        } finally {
            reader.stop();
            worker.deleteConnector(name);
        }
        verdict(side, reader, servers, want);
        return side;
    }

    /** The JDBC sink connector's configuration: every key this comparison sets. */
    static Map<String, String> connectorConfig(
            DemoOptions o, KafkaDemo.Servers servers, CapturedBank bank, String schema) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector");
        c.put("tasks.max", String.valueOf(o.peerTasks));
        c.put(
                "topics",
                bank.topics.names().stream()
                        .filter(t -> !t.endsWith(".transaction"))
                        .collect(Collectors.joining(",")));
        c.put("connection.url", servers.jdbcUrl);
        if (servers.user != null) {
            c.put("connection.username", servers.user);
        }
        if (servers.password != null) {
            c.put("connection.password", servers.password);
        }
        c.put("insert.mode", "upsert");
        c.put("delete.enabled", "true");
        c.put("primary.key.mode", "record_key");
        c.put("schema.evolution", "none");
        c.put("collection.name.format", schema + ".${source.table}");
        if (o.peerBatchSize != null) {
            c.put("batch.size", String.valueOf(o.peerBatchSize));
        }
        return c;
    }

    /** {@link SourceBank#ddl}'s statements without their foreign keys ({@code REFERENCES schema.table}). */
    static List<String> withoutForeignKeys(List<String> ddl) {
        Pattern references = Pattern.compile(" REFERENCES [A-Za-z0-9_]+\\.[A-Za-z0-9_]+");
        return ddl.stream().map(s -> references.matcher(s).replaceAll("")).collect(Collectors.toList());
    }

    private static void recreate(KafkaDemo.Servers servers, String schema, List<String> ddl) throws SQLException {
        try (Connection c = servers.connect();
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            for (String statement : ddl) {
                s.execute(statement);
            }
        }
    }

    interface FailureCheck {
        /** Why the replication cannot finish, or null. */
        String failure() throws Exception;
    }

    /** Polls the replica until it equals the source, the sink failed, or the time is up; times it into {@code side}. */
    private static void awaitEqual(
            KafkaDemo.Servers servers,
            Map<String, Map<String, String>> want,
            Side side,
            long start,
            Duration timeout,
            FailureCheck failure,
            ReplicaReader reader)
            throws Exception {
        long deadline = start + timeout.toNanos();
        long nextLine = start + TimeUnit.SECONDS.toNanos(5);
        Map<String, Integer> wantRows = new LinkedHashMap<>();
        want.forEach((t, rows) -> wantRows.put(t, rows.size()));
        String counts = want.keySet().stream()
                .map(t -> "(SELECT count(*) FROM " + side.schema + "." + t + ")")
                .collect(Collectors.joining(", ", "SELECT ", ""));
        try (Connection c = servers.connect();
                Statement s = c.createStatement()) {
            while (true) {
                long now = System.nanoTime();
                Map<String, Integer> rows = new LinkedHashMap<>();
                try (java.sql.ResultSet rs = s.executeQuery(counts)) {
                    rs.next();
                    int i = 1;
                    for (String t : want.keySet()) {
                        rows.put(t, rs.getInt(i++));
                    }
                }
                if (Double.isNaN(side.firstRowSeconds) && rows.values().stream().anyMatch(n -> n > 0)) {
                    side.firstRowSeconds = (now - start) / 1e9;
                }
                if (rows.equals(wantRows) && SourceBank.read(c, side.schema).equals(want)) {
                    side.seconds = (now - start) / 1e9;
                    System.out.printf(
                            "[%5.1fs] %s, round %d: the replica equals the source%n",
                            side.seconds, side.sink, side.round);
                    return;
                }
                String failed = failure.failure();
                if (failed != null) {
                    side.failure = failed;
                    System.out.printf("%s, round %d: FAILED: %s%n", side.sink, side.round, failed);
                    return;
                }
                if (now > deadline) {
                    side.failure = "the replica did not equal the source within " + timeout.toSeconds() + " s";
                    System.out.printf("%s, round %d: %s%n", side.sink, side.round, side.failure);
                    return;
                }
                if (now > nextLine) {
                    System.out.printf(
                            "[%5.0fs] %s, round %d: rows %s of %s | commits observed %d%n",
                            (now - start) / 1e9,
                            side.sink,
                            side.round,
                            rows.values(),
                            wantRows.values(),
                            reader.observed());
                    nextLine = now + TimeUnit.SECONDS.toNanos(5);
                }
                Thread.sleep(POLL_MILLIS);
            }
        }
    }

    /** The reader's verdict and the final state, into {@code side}, and printed. */
    private static void verdict(
            Side side, ReplicaReader reader, KafkaDemo.Servers servers, Map<String, Map<String, String>> want)
            throws SQLException {
        side.observed = reader.observed();
        side.inconsistentCommits = reader.inconsistentCommits();
        side.inconsistent = List.copyOf(reader.inconsistent());
        Map<String, Map<String, String>> got;
        try (Connection c = servers.connect()) {
            got = SourceBank.read(c, side.schema);
        }
        side.equal = got.equals(want);
        side.rows = new LinkedHashMap<>();
        got.forEach((t, rows) -> side.rows.put(t, rows.size()));
        side.differences = differences(want, got);
        System.out.printf(
                "%s, round %d (%s): %s in %s s (first row after %s s)%n",
                side.sink,
                side.round,
                side.order == 1 ? "first" : "second",
                side.failure == null ? "equal to the source" : side.failure,
                seconds(side.seconds),
                seconds(side.firstRowSeconds));
        System.out.println("  replica: "
                + (side.equal ? "equal to the source, row by row" : "DIFFERS from the source: " + side.differences)
                + " (" + rowsText(side.rows) + " rows)");
        if (side.prepared >= 0) {
            System.out.println("  prepared transactions left: " + side.prepared);
        }
        System.out.println("  " + side.verdict());
        if (reader.failure() != null) {
            System.out.println("  the reader failed: " + reader.failure());
            side.failure = side.failure != null ? side.failure : "the reader failed: " + reader.failure();
        }
    }

    /** Per table, the rows missing from the replica, extra in it, or different; "" when none. */
    static String differences(Map<String, Map<String, String>> want, Map<String, Map<String, String>> got) {
        List<String> d = new ArrayList<>();
        for (String table : new TreeSet<>(want.keySet())) {
            Map<String, String> w = want.get(table);
            Map<String, String> g = got.getOrDefault(table, Map.of());
            long missing = w.keySet().stream().filter(k -> !g.containsKey(k)).count();
            long extra = g.keySet().stream().filter(k -> !w.containsKey(k)).count();
            long different = w.entrySet().stream()
                    .filter(e -> g.containsKey(e.getKey()) && !g.get(e.getKey()).equals(e.getValue()))
                    .count();
            if (missing + extra + different > 0) {
                d.add(table + ": " + missing + " missing, " + extra + " extra, " + different + " different");
            }
        }
        return String.join("; ", d);
    }

    private static void summarize(Report r) {
        boolean eosinkOk = r.of(EOSINK).stream()
                .allMatch(s -> s.failure == null
                        && s.equal
                        && s.prepared == 0
                        && s.inconsistentCommits == 0
                        && s.observed > 0);
        boolean peerOk = r.of(PEER).stream().allMatch(s -> s.failure == null && s.equal);
        eosinkOk &= !r.of(EOSINK).isEmpty();
        peerOk &= !r.of(PEER).isEmpty();
        r.exit = eosinkOk && peerOk ? 0 : 1;
        System.out.println();
        for (String sink : List.of(EOSINK, PEER)) {
            double m = r.medianSeconds(sink);
            System.out.printf(
                    "%-14s median %s s: %s source transactions/s, %s change events/s; %s%n",
                    sink,
                    seconds(m),
                    rate(r.transactions, m),
                    rate(r.tableRecords, m),
                    r.of(sink).stream()
                            .map(x -> (x.observed - x.inconsistentCommits) + " of " + x.observed)
                            .collect(
                                    Collectors.joining(", ", "consistent at every observed commit: ", " (per round)")));
        }
        System.out.printf("ratio (eosink's throughput / the peer's, medians): %s%n", ratio(r));
        System.out.println(
                r.exit == 0
                        ? "both replicas equal the source at the end; eosink's every observed commit was consistent"
                        : "NOT as expected: see the rounds above");
    }

    static String ratio(Report r) {
        double eosink = r.medianSeconds(EOSINK);
        double peer = r.medianSeconds(PEER);
        return Double.isNaN(eosink) || Double.isNaN(peer) ? "n/a" : String.format("%.2f", peer / eosink);
    }

    static String markdown(DemoOptions o, Report r, String load) {
        StringBuilder b = new StringBuilder();
        String command = "./demo --cdc-vs-debezium --events " + o.events + " --rounds " + o.rounds
                + (o.peerTasks != 1 ? " --peer-tasks " + o.peerTasks : "")
                + (o.peerBatchSize != null ? " --peer-batch-size " + o.peerBatchSize : "")
                + (o.peerForeignKeys ? " --peer-foreign-keys" : "");
        b.append("# Replication beside Debezium's JDBC sink connector\n\n");
        b.append("Written by `")
                .append(command)
                .append(
                        "` ([docs/benchmarks.md](../../docs/benchmarks.md#replication-beside-debeziums-jdbc-sink-connector)), ")
                .append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(".\n\n");
        b.append("- Machine: ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, Java ")
                .append(System.getProperty("java.version"))
                .append(", ")
                .append(System.getProperty("os.name"))
                .append(' ')
                .append(System.getProperty("os.arch"))
                .append("; load average ")
                .append(load)
                .append(".\n");
        b.append("- Workload: ")
                .append(String.format("%,d", r.transactions))
                .append(" source transactions of SourceBank, captured once by Debezium into Kafka (")
                .append(String.format("%.1f", r.captureSeconds))
                .append(" s): ")
                .append(String.format("%,d", r.tableRecords))
                .append(
                        " records in the four table topics (the change events, the snapshot's 20 reads and the tombstones "
                                + "after deletes: the \"change events\" below), and ")
                .append(String.format("%,d", r.transactionRecords))
                .append(" in the transaction topic, which only eosink reads.\n");
        b.append("- eosink: the Flink job of `./demo --cdc` without throttle or failures: parallelism 1, checkpoints "
                + "every 250 ms, whole source transactions through the routed PostgreSQL sink, tables with their "
                + "foreign keys.\n");
        b.append("- Peer: ")
                .append(DebeziumJdbcSink.versions())
                .append(", tasks.max=")
                .append(o.peerTasks)
                .append(", batch.size=")
                .append(o.peerBatchSize != null ? o.peerBatchSize : "its default (500)")
                .append(
                        ", insert.mode=upsert, delete.enabled=true, primary.key.mode=record_key, schema.evolution=none, "
                                + "its default connection pool (Agroal); tables "
                                + (o.peerForeignKeys
                                        ? "WITH their foreign keys (--peer-foreign-keys)"
                                        : "without foreign keys")
                                + ".\n");
        b.append("- Timed: from the job's submission (the Flink cluster already up) or the connector's creation (the "
                + "Connect worker already up) until a poll (every 20 ms) finds the replica equal to the source, row by "
                + "row. Rounds alternate which sink goes first; each writes into fresh schemas of one PostgreSQL.\n\n");
        b.append("| round | sink | order | seconds | first row after (s) | source transactions/s | change events/s "
                + "| consistent at every observed commit | final state | prepared left |\n");
        b.append("|---|---|---|---:|---:|---:|---:|---|---|---:|\n");
        for (Side s : r.sides) {
            b.append("| ")
                    .append(s.round)
                    .append(" | ")
                    .append(s.sink)
                    .append(" | ")
                    .append(s.order == 1 ? "first" : "second")
                    .append(" | ")
                    .append(seconds(s.seconds))
                    .append(" | ")
                    .append(seconds(s.firstRowSeconds))
                    .append(" | ")
                    .append(rate(r.transactions, s.seconds))
                    .append(" | ")
                    .append(rate(r.tableRecords, s.seconds))
                    .append(" | ")
                    .append(s.observed - s.inconsistentCommits)
                    .append(" of ")
                    .append(s.observed)
                    .append(" | ")
                    .append(s.equal ? "equal" : "DIFFERS: " + s.differences)
                    .append(s.failure != null ? " (" + s.failure + ")" : "")
                    .append(" | ")
                    .append(s.prepared >= 0 ? String.valueOf(s.prepared) : "n/a")
                    .append(" |\n");
        }
        b.append("\n| sink | median seconds | source transactions/s | change events/s |\n|---|---:|---:|---:|\n");
        for (String sink : List.of(EOSINK, PEER)) {
            double m = r.medianSeconds(sink);
            b.append("| ")
                    .append(sink)
                    .append(" | ")
                    .append(seconds(m))
                    .append(" | ")
                    .append(rate(r.transactions, m))
                    .append(" | ")
                    .append(rate(r.tableRecords, m))
                    .append(" |\n");
        }
        b.append("\nRatio of the medians, eosink's throughput over the peer's: **")
                .append(ratio(r))
                .append("**.\n");
        List<Side> inconsistent =
                r.sides.stream().filter(s -> !s.inconsistent.isEmpty()).collect(Collectors.toList());
        if (!inconsistent.isEmpty()) {
            b.append("\nFirst inconsistencies the reader saw:\n\n");
            for (Side s : inconsistent) {
                b.append("- ")
                        .append(s.sink)
                        .append(", round ")
                        .append(s.round)
                        .append(": ")
                        .append(s.inconsistent.stream().limit(3).collect(Collectors.joining("; ")))
                        .append('\n');
            }
        }
        return b.toString();
    }

    private static void closeQuietly(LocalCluster cluster) {
        try {
            cluster.close();
        } catch (Exception e) {
            // closing after a failure: the failure is what the run reports
        }
    }

    private static String rowsText(Map<String, Integer> rows) {
        return rows.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    private static String seconds(double s) {
        return Double.isNaN(s) ? "n/a" : String.format("%.1f", s);
    }

    private static String rate(long n, double seconds) {
        return Double.isNaN(seconds) || seconds <= 0 ? "n/a" : String.format("%,.0f", n / seconds);
    }

    private static String loadAverage() {
        double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? "n/a" : String.format("%.2f", l);
    }
}
