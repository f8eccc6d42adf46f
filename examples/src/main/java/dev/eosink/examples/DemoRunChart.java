/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.monitoring.PrometheusServer;
import dev.eosink.examples.monitoring.SvgTimeChart;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The demo's run as an operator sees it in Prometheus: runs the demo (its options as given) with
 * {@code --prometheus-port}, scraped every second by a Prometheus server of its own (the installed
 * binary, on a temporary directory), then draws what Prometheus holds (commits, seconds since the last
 * commit, prepared transactions and their age, and the job's restarts as marks) into an SVG.
 *
 * <p>Once the demo's injected failures are done, two stretches of trouble follow, shaded on the chart,
 * so that the picture shows what the alerts are about: a checkpoint that takes {@link #SLOW} (the
 * source's snapshot waits; the sink's transactions stay prepared and age until it completes), and the
 * checkpoint storage down for {@link #OUTAGE} (the job's checkpoint directory becomes a plain file:
 * checkpoints fail before their barrier, and nothing is committed while records keep coming in). The
 * demo runs with failed checkpoints tolerated.
 *
 * <pre>{@code examples/monitoring/render-demo-run [out.svg] [demo options]}</pre>
 */
public final class DemoRunChart {

    private static final String M = "flink_taskmanager_job_task_operator_";
    private static final String E = M + "eosink_";

    /** How long the slow checkpoint takes. */
    static final Duration SLOW = Duration.ofSeconds(8);
    /** How long the checkpoint storage is down. */
    static final Duration OUTAGE = Duration.ofSeconds(12);

    private DemoRunChart() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !args[0].endsWith(".svg")) {
            System.err.println("usage: DemoRunChart <out.svg> [demo options, see ./demo --help]");
            System.exit(2);
            return;
        }
        Path out = Path.of(args[0]);
        Path dir = Files.createTempDirectory("eosink-demo-run-");
        int port = PrometheusServer.freePort();
        List<String> given = Arrays.asList(args).subList(1, args.length);
        List<String> demoArgs = new ArrayList<>();
        // Long enough for the injected failures and both stretches of trouble after them.
        demoArgs.addAll(List.of(
                "--events",
                "600000",
                "--checkpoint-dir",
                dir.resolve("checkpoints").toString(),
                "-Dexecution.checkpointing.tolerable-failed-checkpoints=1000000"));
        demoArgs.addAll(given);
        demoArgs.addAll(List.of("--prometheus-port", Integer.toString(port)));
        DemoOptions o = DemoOptions.parse(demoArgs.toArray(String[]::new));

        int exit;
        try (PrometheusServer prometheus = PrometheusServer.start(
                dir, PrometheusServer.config(List.of("127.0.0.1:" + port), Optional.empty(), Duration.ofSeconds(1)))) {
            System.out.println(
                    "Prometheus " + prometheus.url() + " (data in " + dir + ") scrapes the demo every second");
            Instant from = Instant.now();
            Trouble trouble = new Trouble(o);
            trouble.start();
            exit = Demo.run(o);
            trouble.interrupt();
            trouble.join();
            Instant to = Instant.now();
            String subtitle = String.format(
                    Locale.ROOT,
                    "./demo %s: %s job, %,d orders at %,.0f/s, parallelism %d; exit %d (%s)\n%s",
                    String.join(" ", Arrays.asList(args).subList(1, args.length)),
                    o.job,
                    o.events,
                    o.rate,
                    o.parallelism,
                    exit,
                    exit == 0 ? "the table exact" : "the table NOT exact",
                    Chaos.fired() > 0
                            ? Chaos.fired()
                                    + " failures injected; dashed: the job's restarts (numRestarts); shaded: trouble made after them\n"
                                    + Chaos.firedByKind()
                            : "no failure injected");
            Files.writeString(out, chart(prometheus, from, to, subtitle, trouble.spans));
        }
        System.out.println("wrote " + out);
        System.exit(exit);
    }

    /** The chart of what {@code prometheus} scraped between {@code from} and {@code to}. */
    static String chart(PrometheusServer prometheus, Instant from, Instant to, String subtitle, List<Span> spans)
            throws Exception {
        Duration step = Duration.ofSeconds(1);
        // The time axis starts when the job's first metric was scraped.
        JsonNode restarts = prometheus.queryRange("max(flink_jobmanager_job_numRestarts)", from, to, step);
        double start = restarts.size() > 0
                ? restarts.get(0).path("values").get(0).get(0).asDouble()
                : from.getEpochSecond();
        double end = to.toEpochMilli() / 1e3;
        Query q = new Query(prometheus, from, to, step, start);

        SvgTimeChart chart = new SvgTimeChart("eosink demo as Prometheus scraped it (every 1 s)", subtitle, end - start)
                .panel(q.panel(
                        "Rows per second",
                        "/s",
                        "sum(rate(" + M + "numRecordsIn{operator_name=~\".*Writer\"}[5s]))",
                        "into the writers",
                        "sum(rate(" + M + "numRecordsSend[5s]))",
                        "sent by the writers",
                        "sum(rate(" + E + "recordsCommitted[5s]))",
                        "committed (visible)"))
                .panel(q.panel(
                        "Transactions committed per second",
                        "/s",
                        "sum(rate(" + E + "transactionsCommitted[5s]))",
                        "all committers"))
                .panel(q.panel(
                        "Seconds since the last commit",
                        "s",
                        "max(" + E + "secondsSinceLastCommit)",
                        "worst committer"))
                .panel(q.panel(
                        "Prepared transactions, not yet committed",
                        "",
                        "sum(" + E + "preparedTransactions)",
                        "all writers"))
                .panel(q.panel(
                        "Age of the oldest prepared transaction",
                        "s",
                        "max(" + E + "oldestPreparedAgeSeconds)",
                        "worst writer"));

        for (Span span : spans) {
            chart.span(new SvgTimeChart.Span(
                    span.from.toEpochMilli() / 1e3 - start,
                    (span.to == null ? to : span.to).toEpochMilli() / 1e3 - start,
                    span.label));
        }
        // A mark where numRestarts went up: a restart after a failure (the demo's injected ones).
        if (restarts.size() > 0) {
            double previous = 0;
            int n = 0;
            for (JsonNode point : restarts.get(0).path("values")) {
                double value = point.get(1).asDouble();
                if (value > previous) {
                    n++;
                    chart.mark(new SvgTimeChart.Mark(point.get(0).asDouble() - start, "#" + n));
                }
                previous = value;
            }
        }
        return chart.render();
    }

    /** A stretch of trouble: when, and what. */
    record Span(Instant from, Instant to, String label) {
        // Written out: the compiler's versions pin a class loader in a JDK-wide cache (ArchitectureTest).
        @Override
        public boolean equals(Object other) {
            return other instanceof Span o
                    && Objects.equals(from, o.from)
                    && Objects.equals(to, o.to)
                    && Objects.equals(label, o.label);
        }

        @Override
        public int hashCode() {
            return Objects.hash(from, to, label);
        }

        @Override
        public String toString() {
            return "Span[" + "from=" + from + ", " + "to=" + to + ", " + "label=" + label + "]";
        }
    }

    /**
     * After the demo's injected failures (or, without them, once checkpoints complete), a checkpoint that
     * takes {@link #SLOW}, then the checkpoint storage down for {@link #OUTAGE}.
     */
    private static final class Trouble extends Thread {
        private final DemoOptions options;
        final List<Span> spans = new java.util.concurrent.CopyOnWriteArrayList<>();

        Trouble(DemoOptions options) {
            super("demo-run-trouble");
            setDaemon(true);
            this.options = options;
        }

        @Override
        public void run() {
            boolean chaos = options.chaos == null || options.chaos;
            try {
                while (chaos ? Chaos.fired() < options.faults : Chaos.checkpoints() < 5) {
                    Thread.sleep(200);
                }
                Thread.sleep(4_000);
                Instant slow = Instant.now();
                Chaos.slowCheckpointsUntil(slow.plus(SLOW).toEpochMilli());
                spans.add(new Span(slow, slow.plus(SLOW), "a slow checkpoint"));
                Thread.sleep(SLOW.toMillis() + 8_000);
                Path jobDir;
                try (java.util.stream.Stream<Path> jobs = Files.list(options.checkpointDir)) {
                    jobDir = jobs.filter(Files::isDirectory).findFirst().orElseThrow();
                }
                Path moved = jobDir.resolveSibling(jobDir.getFileName() + ".away");
                Instant outage = Instant.now();
                Files.move(jobDir, moved);
                Files.writeString(jobDir, "checkpoint storage down");
                try {
                    Thread.sleep(OUTAGE.toMillis());
                } finally {
                    Files.delete(jobDir);
                    Files.move(moved, jobDir);
                    spans.add(new Span(outage, Instant.now(), "checkpoint storage down"));
                }
            } catch (InterruptedException e) {
                // the demo ended first
            } catch (java.io.IOException | RuntimeException e) {
                System.err.println("could not make trouble: " + e);
            }
        }
    }

    /** Range queries over one window, as series on the chart's time axis. */
    private record Query(PrometheusServer prometheus, Instant from, Instant to, Duration step, double start) {
        // Written out: the compiler's versions pin a class loader in a JDK-wide cache (ArchitectureTest).
        @Override
        public boolean equals(Object other) {
            return other instanceof Query o
                    && Objects.equals(prometheus, o.prometheus)
                    && Objects.equals(from, o.from)
                    && Objects.equals(to, o.to)
                    && Objects.equals(step, o.step)
                    && Double.compare(start, o.start) == 0;
        }

        @Override
        public int hashCode() {
            return Objects.hash(prometheus, from, to, step, Double.hashCode(start));
        }

        @Override
        public String toString() {
            return "Query[" + "prometheus=" + prometheus + ", " + "from=" + from + ", " + "to=" + to + ", " + "step="
                    + step + ", " + "start=" + start + "]";
        }

        /** A panel of the queries ({@code promql, name} pairs) that have data; says which metrics had none. */
        SvgTimeChart.Panel panel(String title, String unit, String... queriesAndNames) throws Exception {
            List<SvgTimeChart.Series> series = new ArrayList<>();
            List<String> empty = new ArrayList<>();
            for (int i = 0; i < queriesAndNames.length; i += 2) {
                JsonNode result = prometheus.queryRange(queriesAndNames[i], from, to, step);
                if (result.size() == 0) {
                    empty.add(queriesAndNames[i]);
                    series.add(new SvgTimeChart.Series(
                            queriesAndNames[i + 1] + " (no data)", new double[0], new double[0]));
                    continue;
                }
                JsonNode values = result.get(0).path("values");
                double[] t = new double[values.size()];
                double[] v = new double[values.size()];
                for (int j = 0; j < values.size(); j++) {
                    t[j] = values.get(j).get(0).asDouble() - start;
                    v[j] = Double.parseDouble(values.get(j).get(1).asText());
                }
                series.add(new SvgTimeChart.Series(queriesAndNames[i + 1], t, v));
            }
            String missing = "no data: " + String.join(", ", empty);
            return new SvgTimeChart.Panel(title, unit, series, missing);
        }
    }
}
