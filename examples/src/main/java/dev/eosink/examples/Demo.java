/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.client.JobCancellationException;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The main job, runnable on a laptop or a cluster: replayable orders, windowed totals per customer
 * (or raw events; or, with --sql, the windowed totals in Flink SQL through the SQL connector; or, with
 * --source kafka, the orders through a Kafka topic: {@link KafkaDemo}), the
 * exactly-once PostgreSQL sink, failures injected at random moments, and a verdict computed from the
 * generator, not from Flink. Exit code 0 only when the table is exact.
 */
public final class Demo {

    /** The key prefix of the demo's Prometheus reporter, named {@code prom}. */
    static final String PROMETHEUS_REPORTER = "metrics.reporter.prom.";

    public static void main(String[] args) throws Exception {
        DemoOptions o;
        try {
            o = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(DemoOptions.USAGE);
            System.exit(2);
            return;
        }
        if (o.mode.equals("help")) {
            System.out.println(DemoOptions.USAGE); // asked for: no error
            System.exit(0);
        }
        System.exit(run(o));
    }

    static int run(DemoOptions o) throws Exception {
        if ("kafka".equals(o.source)) {
            return KafkaDemo.run(o, KafkaDemo.Servers.startOrNamed(o));
        }
        if ("cdc".equals(o.source)) {
            return CdcDemo.run(o);
        }
        if ("cdc-vs-debezium".equals(o.source)) {
            return CdcVsDebezium.run(o);
        }
        Chaos.resetCounters();
        String url = o.postgresUrl;
        String user = o.user;
        String password = o.password;
        if (url == null) {
            String[] embedded = EmbeddedDatabase.start();
            url = embedded[0];
            user = embedded[1];
            password = embedded[2];
        }
        OrderGenerator generator = OrderGenerator.defaults();
        Properties props = new Properties();
        if (user != null) {
            props.setProperty("user", user);
        }
        if (password != null) {
            props.setProperty("password", password);
        }

        try (Connection c = connect(url, props)) {
            if ("verify".equals(o.mode)) {
                Verdict v = Verdict.check(c, o.job, o.table, o.sinkId, generator, o.events);
                System.out.println(v);
                return v.exact() ? 0 : 1;
            }

            StreamExecutionEnvironment env = environment(o);
            boolean local = env instanceof LocalStreamEnvironment;
            if (!local && DemoDatabase.of(url) == DemoDatabase.MARIADB) {
                // The job's XA sink would find no driver: MariaDB Connector/J (LGPL) is left out of the cluster jar.
                System.err.println("error: on a cluster the demo writes to PostgreSQL only: the cluster jar carries "
                        + "no MariaDB driver. Remedy: run the MariaDB demo locally (docs/demo.md), or give "
                        + "--postgres-url");
                return 2;
            }
            Optional<String> restoreFrom = env.getConfiguration().getOptional(StateRecoveryOptions.SAVEPOINT_PATH);
            Optional<String> refused = new DemoTable(c, o).prepare(restoreFrom.isPresent());
            if (refused.isPresent()) {
                System.err.println("error: " + refused.get());
                return 2;
            }

            boolean chaos = o.chaos != null ? o.chaos : local;
            env.setParallelism(o.parallelism);
            Jobs.Target target = new Jobs.Target(url, user, password, o.table, o.sinkId, chaos);
            if (o.sql && !local) {
                System.err.println(
                        "error: --sql runs in a local MiniCluster only (the cluster jar has no SQL connector)");
                return 2;
            }
            var orders = Jobs.orders(env, generator, o.events, o.pace, chaos);
            if (o.sql) {
                System.out.println("the windowed INSERT of " + SqlDemo.SCRIPT + ", through connector "
                        + ChaosTableSinkFactory.IDENTIFIER);
            } else if ("events".equals(o.job)) {
                Jobs.rawEvents(orders, target);
            } else {
                Jobs.windowedTotals(orders, target);
            }

            System.out.printf(
                    "eosink demo: %s job, %,d orders %s, parallelism %d, %s, chaos %s, into table %s "
                            + "(sink id %s)%n",
                    o.sql ? o.job + " (SQL)" : o.job,
                    o.events,
                    o.pace.describe(),
                    o.parallelism,
                    restoreFrom.map(p -> "restoring " + p).orElse("fresh start"),
                    chaos ? "on (" + o.faults + " failures, seed " + o.seed + ")" : "off",
                    o.table,
                    o.sinkId);
            if (o.prometheusPort != null) {
                System.out.println(
                        local
                                ? "metrics for Prometheus: http://localhost:" + o.prometheusPort
                                        + "/metrics (docs/monitoring.md)"
                                : "note: --prometheus-port applies to local runs; a cluster reports with its own configuration "
                                        + "(docs/monitoring.md)");
            }
            if (chaos && !local) {
                System.out.println("note: chaos strikes only where the job runs in this JVM (a local MiniCluster)");
            }
            if (chaos) {
                Chaos.start(o.seed, o.chaosMinMillis, o.chaosMaxMillis, o.faults);
            }

            long start = System.nanoTime();
            JobClient job = o.sql ? SqlDemo.submit(env, orders, target) : env.executeAsync("eosink demo: " + o.job);
            JobProgress progress = local
                    ? JobProgress.local(start)
                    : JobProgress.cluster(
                            env.getConfiguration().get(RestOptions.ADDRESS),
                            env.getConfiguration().get(RestOptions.PORT),
                            job.getJobID());
            System.out.println("job " + job.getJobID() + " submitted");
            // A local MiniCluster shuts down with the job, so wait on the result, not on status calls.
            CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
            while (!result.isDone()) {
                try {
                    result.get(2, TimeUnit.SECONDS);
                } catch (TimeoutException | ExecutionException e) {
                    // still running, or failed: the loop condition decides
                }
                progress(c, o, start, progress);
            }
            Chaos.stop();
            Throwable failure = null;
            try {
                result.get();
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            JobStatus status = failure == null
                    ? JobStatus.FINISHED
                    : ExceptionUtils.findThrowable(failure, JobCancellationException.class)
                                    .isPresent()
                            ? JobStatus.CANCELED
                            : JobStatus.FAILED;
            // The cluster's REST API answers from caches: what follows must reflect the job's end.
            progress.settle();
            System.out.printf(
                    "job %s after %.1f s; failovers: %d%s%n",
                    status,
                    (System.nanoTime() - start) / 1e9,
                    progress.failovers(),
                    local ? " " + Chaos.firedByKind() : " (the cluster's exception history)");
            if (status == JobStatus.FAILED) {
                System.out.println("job failed: " + rootMessage(failure));
            }
            Verdict v = Verdict.check(c, o.job, o.table, o.sinkId, generator, o.events);
            if (status == JobStatus.CANCELED) {
                // Cancelled by an operator (flink cancel, the web UI): not a failure of the job, and not a
                // stop either. What the last completed checkpoint prepared is committed by a run restored
                // from it; until then it stays prepared.
                System.out.println("job cancelled: its transactions of the last completed checkpoint are committed "
                        + "when a run resumes from it");
                System.out.println("verdict: " + v.describeStopped());
                System.out.println(
                        "resume it: flink run -s <its latest retained checkpoint> <this jar> <the same arguments>");
                return 1;
            }
            Optional<String> savepoint =
                    status == JobStatus.FINISHED ? progress.stoppedWithSavepoint() : Optional.empty();
            if (savepoint.isPresent()) {
                System.out.println("job stopped with savepoint " + savepoint.get());
                System.out.println("verdict: " + v.describeStopped());
                System.out.println("resume it: flink run -s " + savepoint.get() + " <this jar> <the same arguments>");
                return v.consistent() ? 0 : 1;
            }
            System.out.println("verdict: " + v);
            return status == JobStatus.FINISHED && v.exact() ? 0 : 1;
        }
    }

    /**
     * The job's environment, with the demo's defaults for what neither the command line (-D options,
     * {@code flink run -s}) nor, on a cluster, the cluster's configuration sets. On a cluster,
     * checkpoints go where the cluster's configuration says unless --checkpoint-dir names a place;
     * locally they go to a folder of the sink id's own, so that --resume never picks another demo's.
     */
    static StreamExecutionEnvironment environment(DemoOptions o) throws IOException {
        Map<String, String> options = new LinkedHashMap<>(o.flinkConf);
        if (o.prometheusPort != null) {
            // Flink's Prometheus reporter (flink-metrics-prometheus on the local class path): it serves the
            // metrics of the MiniCluster's JobManager and TaskManagers on one port, pulled by Prometheus.
            options.putIfAbsent(
                    PROMETHEUS_REPORTER + "factory.class",
                    "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
            options.putIfAbsent(PROMETHEUS_REPORTER + "port", o.prometheusPort);
        }
        Configuration conf = Configuration.fromMap(options);
        StreamExecutionEnvironment probe = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        boolean local = probe instanceof LocalStreamEnvironment;
        ReadableConfig given = probe.getConfiguration();
        if (given.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL).isEmpty()) {
            conf.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    local ? Duration.ofSeconds(1) : Duration.ofSeconds(10));
        }
        Path dir = o.checkpointDir != null ? o.checkpointDir : local ? DemoOptions.localCheckpointDir(o.sinkId) : null;
        if (dir != null
                && (o.checkpointDir != null
                        || given.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
                                .isEmpty())) {
            conf.set(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    dir.toAbsolutePath().toUri().toString());
            if (given.getOptional(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION)
                    .isEmpty()) {
                // Kept when the job is cancelled or the process dies, so a killed run can be resumed.
                conf.set(
                        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
            }
        }
        if (local && given.getOptional(RestartStrategyOptions.RESTART_STRATEGY).isEmpty()) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1_000);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        }
        if (o.resume) {
            if (dir == null) {
                throw new IllegalArgumentException(
                        "--resume takes the newest retained checkpoint of --checkpoint-dir: "
                                + "name the directory (on a cluster, resume with flink run -s <savepoint or checkpoint> instead)");
            }
            Path latest = latestCheckpoint(dir)
                    .orElseThrow(() -> new IllegalArgumentException("--resume: no retained checkpoint under " + dir));
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, latest.toUri().toString());
        }
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    /**
     * {@code DriverManager} only hands out drivers loaded by the caller's class loader. Under
     * {@code flink run} this class comes from the job jar's own class loader, while {@code DriverManager}
     * may have registered the drivers of the parent class path already: then ask the jar's drivers.
     */
    static Connection connect(String url, Properties props) throws SQLException {
        try {
            return DriverManager.getConnection(url, props);
        } catch (SQLException noDriver) {
            for (Driver driver : ServiceLoader.load(Driver.class, Demo.class.getClassLoader())) {
                if (driver.acceptsURL(url)) {
                    return driver.connect(url, props);
                }
            }
            throw noDriver;
        }
    }

    /** The newest chk-N directory with a _metadata file, across all job ids under {@code dir}. */
    static Optional<Path> latestCheckpoint(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(dir, 3)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .map(Path::getParent)
                    .filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .max(Comparator.comparingLong(Demo::modified));
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p.resolve("_metadata")).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    private static void progress(Connection c, DemoOptions o, long start, JobProgress progress) {
        double seconds = (System.nanoTime() - start) / 1e9;
        long committed;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM " + DemoDatabase.of(c).quote(o.table))) {
            rs.next();
            committed = rs.getLong(1);
        } catch (SQLException e) {
            committed = -1;
        }
        System.out.printf(
                "[%5.0fs] %s committed %,d | %s%n",
                seconds, "events".equals(o.job) ? "rows" : "windows", committed, progress.figures());
    }

    private static String rootMessage(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
