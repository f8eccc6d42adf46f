package dev.eosink.examples;

import dev.eosink.examples.cluster.ProcessCluster;
import dev.eosink.testing.PostgresFixture;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster example as an operator runs it: Flink's own command line client ({@code flink run},
 * {@code flink stop --savepointPath}, {@code flink run -s}) against a multi-process session cluster,
 * the example's tables created by {@code sql/04-example-tables.sql} and the sink running as the
 * least-privileged role of {@code sql/02-sink-role.sql}, with docs/demo.md's command as written.
 *
 * <p>A run is stopped with a savepoint and resumed with {@code flink run -s}, stopped again (after a
 * TaskManager was killed, so that there is a real failover to count) and resumed with {@code
 * -Dexecution.state-recovery.path}; a fresh run against the table with results is refused. Each stop
 * ends with the savepoint's path, the command to resume and exit code 0; the last run ends exact,
 * every row committed before the stops kept.
 */
class ClusterClientITCase {

    private static final long EVENTS = 54_000;
    /**
     * Runs 1 and 2 read slowly, 90 s for all the orders: run 2 must still be running when it is stopped,
     * after a kill, a failover and three checkpoints, also on a loaded machine (at 36 s for all it once
     * ended before its stop). The rate is no part of the results (event time comes from the order's
     * index) nor of the state, so run 3 reads the rest at full speed.
     */
    private static final int SLOW_RATE = 600;
    private static final int FULL_RATE = 20_000;
    private static final Path JAR = Path.of("target", "eosink-examples-cluster.jar").toAbsolutePath();

    @TempDir
    Path dir;

    private final PostgresFixture db = PostgresFixture.get();

    @Test
    @Timeout(300)
    void stopWithSavepointAndResumeKeepEveryResultAndEndExact() throws Exception {
        String role = "cluster_sink_" + System.nanoTime() % 100_000;
        String password = "pw-" + System.nanoTime();
        String database = role + "_db";
        String url = database(database, role, password);
        Map<String, String> env = Map.of("EOSINK_DEMO_PASSWORD", password);
        List<String> job = job(url, role, SLOW_RATE);

        try (ProcessCluster cluster = ProcessCluster.start(dir.resolve("cluster"), 2, 1)) {
            // Run 1, fresh: stopped with a savepoint once windows are committed.
            Process first = cluster.flink(args("run", job), env, dir.resolve("run-1.out"));
            JobID firstJob = awaitRunning(cluster, first, "run-1.out");
            awaitCommitted(url, role, password, 1);
            assertThat(cluster.checkpointDirectory().resolve(firstJob.toHexString()))
                    .as("checkpoints where the cluster's configuration says").isDirectory();
            String firstSavepoint = stop(cluster, firstJob, "stop-1.out");
            String out1 = finish(first, "run-1.out");
            assertThat(out1).contains("fresh start").contains("job stopped with savepoint " + firstSavepoint)
                    .contains("resume it: flink run -s " + firstSavepoint).contains("=> CONSISTENT")
                    .contains("failovers: 0 (the cluster's exception history)").doesNotContain("NOT");
            long atFirstStop = committed(url, role, password);

            // Run 2, `flink run -s`: a TaskManager killed mid-way (a real failover), then stopped again.
            Process second = cluster.flink(args("run", List.of("-s", firstSavepoint), job), env, dir.resolve("run-2.out"));
            JobID secondJob = awaitRunning(cluster, second, "run-2.out");
            cluster.await("2 checkpoints of run 2", Duration.ofSeconds(60), () -> cluster.completedCheckpoints(secondJob) >= 2);
            String victim = cluster.taskManagers().get(0);
            cluster.kill(victim);
            cluster.startTaskManager();
            cluster.await("the failover of run 2", Duration.ofSeconds(60), () -> !cluster.failures(secondJob).isEmpty());
            cluster.await("run 2 running again, with a checkpoint", Duration.ofSeconds(90),
                    () -> cluster.allTasksRunning(secondJob) && cluster.completedCheckpoints(secondJob) >= 3);
            awaitCommitted(url, role, password, atFirstStop + 1);
            String secondSavepoint = stop(cluster, secondJob, "stop-2.out");
            String out2 = finish(second, "run-2.out");
            assertThat(out2).contains("restoring " + firstSavepoint).contains("job stopped with savepoint " + secondSavepoint)
                    .contains("=> CONSISTENT").doesNotContain("deleted").doesNotContain("created table");
            assertThat(failovers(out2)).as("failovers counted in run 2's last line: %s", out2).isEqualTo(cluster.failures(secondJob).size()).isPositive();
            long atSecondStop = committed(url, role, password);
            assertThat(atSecondStop).as("rows kept through the resume, and more").isGreaterThan(atFirstStop);

            // A fresh run against a table with results is refused, nothing submitted.
            Process fresh = cluster.flink(args("run", job), env, dir.resolve("fresh.out"));
            assertThat(fresh.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String outFresh = Files.readString(dir.resolve("fresh.out"));
            assertThat(outFresh).contains("holds").contains("--reset").contains("flink run -s");
            assertThat(committed(url, role, password)).as("nothing deleted").isEqualTo(atSecondStop);

            // Run 3, -Dexecution.state-recovery.path: to the end.
            Process third = cluster.flink(args("run", job(url, role, FULL_RATE), List.of("-Dexecution.state-recovery.path=" + secondSavepoint)),
                    env, dir.resolve("run-3.out"));
            String out3 = finish(third, "run-3.out");
            assertThat(out3).contains("restoring " + secondSavepoint).contains("job FINISHED").contains("=> EXACT");
        }
        try (Connection c = DriverManager.getConnection(url, credentials(role, password))) {
            Verdicts.assertExact(Verdict.check(c, "windows", "window_totals", "demo-windows", OrderGenerator.defaults(), EVENTS));
        }
    }

    private static List<String> job(String url, String role, int rate) {
        return List.of(JAR.toString(), "--postgres-url", url, "--user", role,
                "--events", Long.toString(EVENTS), "--rate", Integer.toString(rate), "--parallelism", "2",
                "-Dexecution.checkpointing.interval=400ms");
    }

    /** A database of its own, set up with the repository's scripts for the least-privileged role. */
    private String database(String name, String role, String password) throws IOException {
        db.execute("CREATE DATABASE " + name);
        String url = db.jdbcUrl().replaceFirst("/postgres(\\?|$)", "/" + name + "$1");
        try (Connection c = DriverManager.getConnection(url, credentials(db.user(), db.password()))) {
            try (Statement s = c.createStatement()) {
                s.execute(script("01-marker-table.sql"));
                s.execute(script("02-sink-role.sql").replace("flink_sink", role).replace("'change-me'", "'" + password + "'")
                        .replaceAll("\\bapp\\.", "public.").replaceAll("\\bapp\\b", "public").replaceAll("\\borders\\b", "window_totals")
                        // the tables of 04 come next: their grants there
                        .replaceAll("(?m)^GRANT INSERT ON public\\.window_totals.*$", ""));
                s.execute(script("04-example-tables.sql").replace("flink_sink", role));
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("setting up " + name + " with the sql/ scripts failed", e);
        }
        return url;
    }

    /** A script of the repository's sql/ folder, comments removed. */
    private static String script(String name) throws IOException {
        return Files.readAllLines(Path.of("..", "sql", name), StandardCharsets.UTF_8).stream()
                .map(line -> line.replaceAll("--.*$", ""))
                .filter(line -> !line.isBlank())
                .collect(Collectors.joining("\n"));
    }

    private static Properties credentials(String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null) {
            p.setProperty("password", password);
        }
        return p;
    }

    @SafeVarargs
    private static List<String> args(String command, List<String>... parts) {
        List<String> all = new ArrayList<>(List.of(command));
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    private JobID awaitRunning(ProcessCluster cluster, Process client, String output) throws Exception {
        cluster.await("a running job (client output: " + output + ")", Duration.ofSeconds(90), () -> {
            assertThat(client.isAlive()).as("the client ended early: %s", Files.readString(dir.resolve(output))).isTrue();
            return cluster.jobs(JobStatus.RUNNING).size() == 1 && cluster.allTasksRunning(cluster.jobs(JobStatus.RUNNING).get(0));
        });
        return cluster.jobs(JobStatus.RUNNING).get(0);
    }

    /** {@code flink stop --savepointPath}: the savepoint's path, as the CLI prints it. */
    private String stop(ProcessCluster cluster, JobID job, String output) throws Exception {
        Process stop = cluster.flink(List.of("stop", "--savepointPath", dir.resolve("savepoints").toUri().toString(),
                job.toHexString()), Map.of(), dir.resolve(output));
        assertThat(stop.waitFor(120, TimeUnit.SECONDS)).as("flink stop returns").isTrue();
        String out = Files.readString(dir.resolve(output));
        assertThat(stop.exitValue()).as("flink stop: %s", out).isZero();
        Matcher m = Pattern.compile("Savepoint completed\\. Path: (\\S+)").matcher(out);
        assertThat(m.find()).as("the savepoint's path in: %s", out).isTrue();
        return m.group(1);
    }

    /** Waits for a client to end, which must be with exit code 0; its output. */
    private String finish(Process client, String output) throws Exception {
        assertThat(client.waitFor(180, TimeUnit.SECONDS)).as("the client ends").isTrue();
        String out = Files.readString(dir.resolve(output));
        assertThat(client.exitValue()).as("exit code of the client; its output:%n%s", out).isZero();
        return out;
    }

    private static long failovers(String output) {
        Matcher m = Pattern.compile("failovers: (\\d+)").matcher(output);
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }

    private long committed(String url, String role, String password) throws Exception {
        try (Connection c = DriverManager.getConnection(url, credentials(role, password));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM window_totals")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void awaitCommitted(String url, String role, String password, long atLeast) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (committed(url, role, password) < atLeast) {
            assertThat(System.nanoTime()).as("%d committed rows within 90 s", atLeast).isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
