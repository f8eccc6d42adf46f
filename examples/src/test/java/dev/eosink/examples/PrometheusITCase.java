/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.monitoring.PrometheusServer;
import dev.eosink.testing.PostgresFixture;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The monitoring of examples/monitoring against a real Prometheus (Debian's package; never skipped:
 * without it the test fails and says how to install it): promtool accepts the alert rules and the
 * configurations; the demo, a JVM of its own with {@code --prometheus-port}, is scraped every second;
 * the sink's metrics arrive; every query of the Grafana dashboard is valid PromQL; and when the
 * checkpoint storage fails (so checkpoints fail before any barrier and the sink commits nothing while
 * its writer keeps getting input), the rules file's EosinkCommitsStopped fires. Then the storage comes
 * back and the run ends exact.
 *
 * <p>The rules are the committed file with only its thresholds and {@code for} durations turned into
 * seconds ({@link #SECONDS_INSTEAD_OF_MINUTES}: each replaced text must occur exactly once in its
 * alert, so that a change of the file breaks this test rather than slipping past it).
 */
class PrometheusITCase {

    private static final Path MONITORING = Path.of("monitoring").toAbsolutePath();
    private static final Path RULES = MONITORING.resolve("eosink-alerts.yml");
    private static final Path DASHBOARD = MONITORING.resolve("eosink-dashboard.json");

    /** Per alert of the rules file: production text -> the test's. */
    static final Map<String, Map<String, String>> SECONDS_INSTEAD_OF_MINUTES = Map.of(
            "EosinkCommitsStopped", Map.of("> 600", "> 4", "for: 5m", "for: 2s"),
            "EosinkPreparedTransactionOld", Map.of("> 900", "> 4", "for: 5m", "for: 2s"));

    private static final String TABLE = "prom_events";
    private static final String SINK_ID = "prom-events";
    private static final long EVENTS = 70_000;
    private static final String M = "flink_taskmanager_job_task_operator_";
    private static final String E = M + "eosink_";
    private static final String WRITER = "operator_name=\"postgres:_" + TABLE + ":_Writer\"";
    private static final String COMMITTER = "operator_name=\"postgres:_" + TABLE + ":_Committer\"";

    /** The sink's metrics the test asserts, on the writer and committer of both subtasks (metric -> selector). */
    static final Map<String, String> SINK_METRICS = new LinkedHashMap<>();

    /**
     * The metrics of the sink's metrics contract that came after the ones above
     * ({@code numRecordsSend} and the committer's counters): asserted like those, and the alert
     * EosinkCommitsStopped needs {@code secondsSinceLastCommit}.
     */
    static final Map<String, String> SINK_METRICS_ADDED_LATER = new LinkedHashMap<>();

    static {
        SINK_METRICS.put(M + "numRecordsSend", WRITER);
        SINK_METRICS.put(E + "transactionsCommitted", COMMITTER);
        SINK_METRICS.put(E + "transactionsAlreadyCommitted", COMMITTER);
        SINK_METRICS.put(E + "commitRetries", COMMITTER);

        SINK_METRICS_ADDED_LATER.put(E + "preparedTransactions", WRITER);
        SINK_METRICS_ADDED_LATER.put(E + "oldestPreparedAgeSeconds", WRITER);
        SINK_METRICS_ADDED_LATER.put(E + "barrierToPreparedMillis_count", WRITER);
        SINK_METRICS_ADDED_LATER.put(E + "copyBacklogBytes", WRITER);
        SINK_METRICS_ADDED_LATER.put(E + "transactionsRolledBack", WRITER);
        SINK_METRICS_ADDED_LATER.put(E + "orphansRolledBack", WRITER);
        SINK_METRICS_ADDED_LATER.put(E + "recordsCommitted", COMMITTER);
        SINK_METRICS_ADDED_LATER.put(E + "transactionsLost", COMMITTER);
        SINK_METRICS_ADDED_LATER.put(E + "checkpointToCommittedMillis_count", COMMITTER);
        SINK_METRICS_ADDED_LATER.put(E + "secondsSinceLastCommit", COMMITTER);
    }

    @TempDir
    Path dir;

    private final PostgresFixture db = PostgresFixture.get();

    @BeforeAll
    static void binariesInstalled() {
        PrometheusServer.binary("prometheus");
        PrometheusServer.binary("promtool");
    }

    @Test
    void promtoolAcceptsTheRulesAndTheExampleConfiguration() throws Exception {
        promtool("check", "rules", RULES.toString());
        promtool("check", "config", MONITORING.resolve("prometheus.yml").toString());
    }

    @Test
    void theDemosMetricsArriveAndCommitsStoppedFiresWhenCheckpointsFail() throws Exception {
        Path rules = dir.resolve("eosink-alerts.yml");
        Files.writeString(rules, inSeconds(Files.readString(RULES)));
        promtool("check", "rules", rules.toString());
        int demoPort = PrometheusServer.freePort();
        String config =
                PrometheusServer.config(List.of("127.0.0.1:" + demoPort), Optional.of(rules), Duration.ofSeconds(1));
        Path configFile = dir.resolve("prometheus.yml");
        Files.writeString(configFile, config);
        promtool("check", "config", configFile.toString());

        Path checkpoints = dir.resolve("checkpoints");
        Optional<JsonNode> fired;
        List<String> absentLater;
        Optional<Double> recordsCommitted;
        Optional<Double> lost;
        String alerts;
        try (PrometheusServer prometheus = PrometheusServer.start(dir.resolve("prometheus"), config)) {
            Process demo = startDemo(demoPort, checkpoints);
            try {
                awaitValue(
                        prometheus,
                        "max(" + E + "transactionsCommitted{" + COMMITTER + "})",
                        demo,
                        Duration.ofSeconds(60));
                awaitValue(prometheus, "max(" + M + "numRecordsSend{" + WRITER + "})", demo, Duration.ofSeconds(10));
                assertBothSubtasks(prometheus, SINK_METRICS);
                for (String expr : dashboardQueries()) {
                    prometheus.query(expr); // refused (HTTP 400) unless valid PromQL
                }

                // The checkpoint storage fails: the job's checkpoint directory becomes a plain file, so every
                // checkpoint fails at the JobManager before a barrier is sent (tolerated, no failover). The
                // writer keeps getting input; nothing is committed.
                Path jobDir = onlySubdirectory(checkpoints);
                Path moved = jobDir.resolveSibling(jobDir.getFileName() + ".away");
                Files.move(jobDir, moved);
                Files.writeString(jobDir, "not a directory");
                try {
                    awaitValue(
                            prometheus,
                            "max(flink_jobmanager_job_numberOfFailedCheckpoints)",
                            demo,
                            Duration.ofSeconds(10));
                    fired = awaitAlert(prometheus, "EosinkCommitsStopped", demo, Duration.ofSeconds(25));
                } finally {
                    Files.delete(jobDir);
                    Files.move(moved, jobDir);
                }
                // Asserted last, after the run's own checks: these need the metrics added later.
                absentLater = absent(prometheus, SINK_METRICS_ADDED_LATER);
                recordsCommitted = prometheus.max("max(" + E + "recordsCommitted{" + COMMITTER + "})");
                lost = prometheus.max("max(" + E + "transactionsLost)");
                alerts = prometheus.alerts().toString();
            } finally {
                // The demo ends on its own once the input is written; the storage is back, so it ends exact.
                if (!demo.waitFor(120, TimeUnit.SECONDS)) {
                    demo.destroyForcibly();
                }
            }
            String log = Files.readString(dir.resolve("demo.log"));
            assertThat(demo.exitValue())
                    .as("the demo's exit code; its output:%n%s", log)
                    .isZero();
            assertThat(log).contains("=> EXACT");
        }
        try (Connection c = db.connect()) {
            Verdicts.assertExact(Verdict.check(c, "events", TABLE, SINK_ID, OrderGenerator.defaults(), EVENTS));
        }

        // What needs the metrics added later (SINK_METRICS_ADDED_LATER); EosinkCommitsStopped needs
        // secondsSinceLastCommit.
        assertThat(absentLater)
                .as("sink metrics not scraped from both subtasks")
                .isEmpty();
        assertThat(recordsCommitted)
                .as("recordsCommitted")
                .hasValueSatisfying(v -> assertThat(v).isPositive());
        assertThat(lost).as("transactionsLost").contains(0.0);
        assertThat(fired)
                .as("EosinkCommitsStopped firing while checkpoints failed; alerts then: %s", alerts)
                .isPresent();
        assertThat(fired.get().path("labels").path("sink").asText()).isEqualTo("postgres:_" + TABLE + ":_");
        assertThat(fired.get().path("annotations").path("description").asText()).contains("docs/operations.md");
    }

    /** The rules file with {@link #SECONDS_INSTEAD_OF_MINUTES} applied, each replaced text found exactly once. */
    static String inSeconds(String rules) {
        String[] blocks = rules.split("(?=\\n      - alert: )");
        StringBuilder out = new StringBuilder();
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (String block : blocks) {
            for (Map.Entry<String, Map<String, String>> alert : SECONDS_INSTEAD_OF_MINUTES.entrySet()) {
                if (block.startsWith("\n      - alert: " + alert.getKey() + "\n")) {
                    seen.put(alert.getKey(), true);
                    for (Map.Entry<String, String> r : alert.getValue().entrySet()) {
                        int at = block.indexOf(r.getKey());
                        assertThat(at)
                                .as("%s in alert %s", r.getKey(), alert.getKey())
                                .isNotNegative();
                        assertThat(block.indexOf(r.getKey(), at + 1))
                                .as("%s once in alert %s", r.getKey(), alert.getKey())
                                .isNegative();
                        block = block.replace(r.getKey(), r.getValue());
                    }
                }
            }
            out.append(block);
        }
        assertThat(seen.keySet())
                .as("alerts of the rules file")
                .containsExactlyInAnyOrderElementsOf(SECONDS_INSTEAD_OF_MINUTES.keySet());
        return out.toString();
    }

    /** Every panel's and annotation's query of the dashboard, with its variables filled in. */
    static List<String> dashboardQueries() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(target.path("expr").asText());
            }
        }
        for (JsonNode annotation : dashboard.path("annotations").path("list")) {
            if (annotation.has("expr")) {
                queries.add(annotation.path("expr").asText());
            }
        }
        assertThat(queries).as("the dashboard's queries").hasSizeGreaterThan(10);
        return queries.stream()
                .map(q -> q.replace("$job_name", ".+").replace("$__rate_interval", "5s"))
                .toList();
    }

    private static void assertBothSubtasks(PrometheusServer prometheus, Map<String, String> metrics) throws Exception {
        assertThat(absent(prometheus, metrics))
                .as("sink metrics not scraped from both subtasks")
                .isEmpty();
    }

    /** Those of {@code metrics} that Prometheus does not have from both subtasks. */
    private static List<String> absent(PrometheusServer prometheus, Map<String, String> metrics) throws Exception {
        List<String> absent = new ArrayList<>();
        for (Map.Entry<String, String> m : metrics.entrySet()) {
            JsonNode series = prometheus.query("count by (subtask_index) (" + m.getKey() + "{" + m.getValue() + "})");
            if (series.size() != 2) {
                absent.add(m.getKey() + "{" + m.getValue() + "}: " + series.size() + " subtasks");
            }
        }
        return absent;
    }

    private static void awaitValue(PrometheusServer prometheus, String promql, Process demo, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (prometheus.max(promql).filter(v -> v > 0).isEmpty()) {
            assertThat(demo.isAlive())
                    .as("the demo still running while waiting for %s", promql)
                    .isTrue();
            assertThat(System.nanoTime())
                    .as("%s > 0 within %s; prometheus:%n%s", promql, timeout, prometheus.tail())
                    .isLessThan(deadline);
            Thread.sleep(250);
        }
    }

    private static Optional<JsonNode> awaitAlert(
            PrometheusServer prometheus, String name, Process demo, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && demo.isAlive()) {
            for (JsonNode alert : prometheus.alerts()) {
                if (name.equals(alert.path("labels").path("alertname").asText())
                        && "firing".equals(alert.path("state").asText())) {
                    return Optional.of(alert);
                }
            }
            Thread.sleep(250);
        }
        return Optional.empty();
    }

    private static Path onlySubdirectory(Path checkpoints) throws IOException {
        try (Stream<Path> jobs = Files.list(checkpoints)) {
            List<Path> dirs = jobs.filter(Files::isDirectory).toList();
            assertThat(dirs).as("one job's checkpoints under %s", checkpoints).hasSize(1);
            return dirs.get(0);
        }
    }

    private Process startDemo(int prometheusPort, Path checkpoints) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Demo.class.getName(),
                "--job",
                "events",
                "--postgres-url",
                db.jdbcUrl(),
                "--user",
                db.user(),
                "--events",
                Long.toString(EVENTS),
                "--rate",
                "2000",
                "--chaos",
                "off",
                "--table",
                TABLE,
                "--sink-id",
                SINK_ID,
                "--checkpoint-dir",
                checkpoints.toString(),
                "--prometheus-port",
                Integer.toString(prometheusPort),
                "-Dexecution.checkpointing.interval=500ms",
                // Failed checkpoints are tolerated: the job keeps running, and keeps writing, without commits.
                "-Dexecution.checkpointing.tolerable-failed-checkpoints=1000000"));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("EOSINK_DEMO_PASSWORD", db.password() == null ? "" : db.password());
        pb.redirectErrorStream(true);
        pb.redirectOutput(dir.resolve("demo.log").toFile());
        return pb.start();
    }

    private static void promtool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(PrometheusServer.binary("promtool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s:%n%s", String.join(" ", cmd), out).isZero();
    }
}
