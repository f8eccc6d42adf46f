/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.cluster;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.client.program.PackagedProgramUtils;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.taskexecutor.TaskManagerRunner;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Flink session cluster on this machine: one JobManager and any number of TaskManagers, each
 * its own JVM, started from Flink's Maven jars (no distribution download) the way Flink's scripts
 * start them, and a REST client that submits a job jar like {@code flink run} does.
 *
 * <p>Why separate processes: a TaskManager killed with SIGKILL loses its threads, sockets and
 * memory at once, with no shutdown hook, no task cancellation and no {@code close()} of the sink.
 * Nothing inside one JVM (exceptions, cancellations, a MiniCluster) reproduces that.
 *
 * <p>The processes, the {@code flink} command line client included, get the class path of a Flink
 * distribution's {@code lib/} only ({@link #distributionClasspath()}), never this JVM's: the sink, the
 * job, pgjdbc and HikariCP reach them inside the submitted jar, and a class the jar lacks fails there
 * as it would on a real cluster.
 */
public final class ProcessCluster implements AutoCloseable {

    /**
     * Where modules/flink-distribution leaves the class path of a Flink distribution's {@code lib/}: Flink's own
     * jars, nothing of this project and no connector, as on a cluster started from a binary distribution.
     */
    private static final String DISTRIBUTION_CLASSPATH = "/dev/eosink/flink-distribution.classpath";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The CheckpointCoordinator's line for each completed checkpoint: "Completed checkpoint 7 for job 3f2a... (". */
    private static final Pattern COMPLETED_CHECKPOINT =
            Pattern.compile("Completed checkpoint (\\d+) for job ([0-9a-f]{32})");

    /**
     * The JVM options that Flink's default configuration ({@code env.java.opts.all}) gives every process
     * its scripts start on Java 17+: parts of Flink reach into JDK internals (the client's DataStream
     * API, for one, opens java.util).
     */
    private static final List<String> JAVA_OPTS_ALL = List.of(
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    private final Path dir;
    private final Path confDir;
    private final Configuration conf;
    private final String classpath;
    private final int restPort;
    private final Process jobManager;
    private final Map<String, Process> taskManagers = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private final Map<String, Long> completedLogged = new HashMap<>();
    private long jobManagerLogRead;
    private int started;

    private ProcessCluster(Path dir, int slotsPerTaskManager) throws IOException {
        this.dir = dir;
        this.confDir = Files.createDirectories(dir.resolve("conf"));
        this.restPort = freePort();
        Files.createDirectories(dir.resolve("tmp"));
        Files.writeString(
                confDir.resolve("config.yaml"),
                String.join(
                        "\n",
                        "jobmanager.rpc.address: localhost",
                        "jobmanager.rpc.port: " + freePort(),
                        "jobmanager.bind-host: localhost",
                        "jobmanager.memory.process.size: 768m",
                        "rest.address: localhost",
                        "rest.bind-address: localhost",
                        "rest.port: " + restPort,
                        "taskmanager.host: localhost",
                        "taskmanager.bind-host: localhost",
                        "taskmanager.numberOfTaskSlots: " + slotsPerTaskManager,
                        "taskmanager.memory.process.size: 1024m",
                        // A killed TaskManager is noticed within seconds, not after the 50 s default.
                        "heartbeat.interval: 1000",
                        "heartbeat.timeout: 6000",
                        // web.refresh-interval stays at Flink's default (3 s): job details, exceptions and checkpoint
                        // statistics over REST may be that old, for the demo's client as for an operator's. What must
                        // be current is read from the processes' logs instead (completedCheckpointsLogged, logged).
                        // failures() counts failovers from the exception history, which keeps 16 by default.
                        "web.exception-history-size: 100000",
                        "io.tmp.dirs: " + dir.resolve("tmp"),
                        // What an operator configures for every job: where checkpoints go, how jobs restart.
                        "execution.checkpointing.dir: "
                                + dir.resolve("checkpoints").toUri(),
                        "restart-strategy.type: fixed-delay",
                        "restart-strategy.fixed-delay.attempts: 1000",
                        "restart-strategy.fixed-delay.delay: 500ms",
                        ""));
        Files.writeString(
                confDir.resolve("log4j.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = file",
                        "appender.file.type = File",
                        "appender.file.name = file",
                        "appender.file.fileName = ${sys:log.file}",
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-40c{1.} [%t] %m%n",
                        "logger.pekko.name = org.apache.pekko",
                        "logger.pekko.level = WARN",
                        ""));
        this.conf = GlobalConfiguration.loadConfiguration(confDir.toString());
        this.classpath = distributionClasspath();
        this.jobManager =
                launch("jobmanager", List.of("-Xmx512m"), StandaloneSessionClusterEntrypoint.class, List.of());
    }

    /** Starts the JobManager and {@code taskManagers} TaskManagers and waits until all have registered. */
    public static ProcessCluster start(Path dir, int taskManagers, int slotsPerTaskManager) throws Exception {
        ProcessCluster cluster = new ProcessCluster(dir, slotsPerTaskManager);
        try {
            for (int i = 0; i < taskManagers; i++) {
                cluster.startTaskManager();
            }
            // Generous: JVMs start slowly on a machine busy with other builds.
            cluster.awaitTaskManagers(taskManagers, Duration.ofSeconds(180));
            return cluster;
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Starts one more TaskManager, with the JVM memory flags and dynamic options that Flink's
     * {@code taskmanager.sh} computes (through {@code BashJavaUtils}) from the configuration.
     */
    public String startTaskManager() throws IOException {
        String name = "taskmanager-" + (++started);
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(conf);
        List<String> jvm =
                List.of(ProcessMemoryUtils.generateJvmParametersStr(spec).trim().split("\\s+"));
        List<String> dynamic = new ArrayList<>(List.of(
                TaskExecutorProcessUtils.generateDynamicConfigsStr(spec).trim().split("\\s+")));
        dynamic.addAll(List.of("-D", TaskManagerOptions.TASK_MANAGER_RESOURCE_ID.key() + "=" + name));
        taskManagers.put(name, launch(name, jvm, TaskManagerRunner.class, dynamic));
        return name;
    }

    /** SIGKILL: no shutdown hook runs, the kernel drops the process's connections. */
    public void kill(String taskManager) throws InterruptedException {
        Process p = taskManagers.remove(taskManager);
        if (p == null) {
            throw new IllegalArgumentException(
                    "no running task manager " + taskManager + ", have " + taskManagers.keySet());
        }
        p.destroyForcibly();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(taskManager + " survived SIGKILL for 30 s");
        }
    }

    /** The checkpoint directory of the cluster's configuration: where a job's checkpoints go unless it names its own. */
    public Path checkpointDirectory() {
        return dir.resolve("checkpoints");
    }

    public List<String> taskManagers() {
        return List.copyOf(taskManagers.keySet());
    }

    /**
     * Submits a job jar the way {@code flink run} does: runs its main method in this JVM to extract
     * the job graph (with the jar's own class loader), then uploads graph and jar over REST.
     */
    public JobID submit(Path jar, List<String> args, int parallelism) throws Exception {
        PackagedProgram program = PackagedProgram.newBuilder()
                .setJarFile(jar.toFile())
                .setArguments(args.toArray(new String[0]))
                .setConfiguration(conf)
                .build();
        JobGraph graph = PackagedProgramUtils.createJobGraph(program, conf, parallelism, true);
        try (RestClusterClient<StandaloneClusterId> client = client()) {
            return client.submitJob(graph).get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * Runs Flink's command line client ({@code CliFrontend}, what {@code bin/flink} runs) in a JVM of
     * its own against this cluster, as an operator would: {@code flink run [-s savepoint] <jar> <args>},
     * {@code flink stop --savepointPath <dir> <job>}. Its output (the job's client's included) goes to
     * {@code output}.
     */
    public Process flink(List<String> args, Map<String, String> environment, Path output) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JAVA_OPTS_ALL);
        cmd.add("-Dlog.file=" + output.resolveSibling(output.getFileName() + ".client.log"));
        cmd.add("-Dlog4j.configurationFile="
                + confDir.resolve("log4j.properties").toUri());
        cmd.addAll(List.of("-cp", classpath, "org.apache.flink.client.cli.CliFrontend"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("FLINK_CONF_DIR", confDir.toString());
        pb.environment().putAll(environment);
        return pb.start();
    }

    /** The ids of the jobs in {@code status} (RUNNING, FINISHED, ...), from the REST API. */
    public List<JobID> jobs(JobStatus status) throws IOException, InterruptedException {
        List<JobID> ids = new ArrayList<>();
        for (JsonNode job : rest("/jobs/overview").path("jobs")) {
            if (status.name().equals(job.path("state").asText())) {
                ids.add(JobID.fromHexString(job.path("jid").asText()));
            }
        }
        return ids;
    }

    public JobStatus status(JobID job) throws Exception {
        try (RestClusterClient<StandaloneClusterId> client = client()) {
            return client.getJobStatus(job).get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The highest checkpoint of the job that the JobManager logged as completed, 0 before the first: current,
     * unlike the REST API's checkpoint statistics, which may be {@code web.refresh-interval} old. Reads only
     * what the log gained since the last call.
     */
    public synchronized long completedCheckpointsLogged(JobID job) throws IOException {
        Path log = dir.resolve("jobmanager.log");
        if (Files.exists(log)) {
            try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(log.toFile(), "r")) {
                if (file.length() > jobManagerLogRead) {
                    file.seek(jobManagerLogRead);
                    byte[] added = new byte[(int) (file.length() - jobManagerLogRead)];
                    file.readFully(added);
                    String text = new String(added, StandardCharsets.UTF_8);
                    // Only whole lines: the rest is read next time.
                    int end = text.lastIndexOf('\n') + 1;
                    jobManagerLogRead += text.substring(0, end).getBytes(StandardCharsets.UTF_8).length;
                    Matcher m = COMPLETED_CHECKPOINT.matcher(text.substring(0, end));
                    while (m.find()) {
                        completedLogged.merge(m.group(2), Long.parseLong(m.group(1)), Math::max);
                    }
                }
            }
        }
        return completedLogged.getOrDefault(job.toHexString(), 0L);
    }

    /** Whether the log of {@code process} (a TaskManager's name, or "jobmanager") has a line with {@code text}. */
    public boolean logged(String process, String text) throws IOException {
        Path log = dir.resolve(process + ".log");
        if (!Files.exists(log)) {
            return false;
        }
        try (java.util.stream.Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.anyMatch(line -> line.contains(text));
        }
    }

    /** The number of completed checkpoints of the job, from the REST API (up to {@code web.refresh-interval} old). */
    public long completedCheckpoints(JobID job) throws IOException, InterruptedException {
        return rest("/jobs/" + job + "/checkpoints")
                .path("counts")
                .path("completed")
                .asLong();
    }

    /**
     * The root causes of the job's failovers so far, oldest first, from the scheduler's exception
     * history (immediate, unlike the {@code numRestarts} metric, which the REST API samples). The
     * endpoint answers 20 entries unless asked for more, and the JobManager keeps as many as
     * {@code web.exception-history-size} (16 by default; set high above).
     */
    public List<String> failures(JobID job) throws IOException, InterruptedException {
        List<String> causes = new ArrayList<>();
        for (JsonNode entry : rest("/jobs/" + job + "/exceptions?maxExceptions=100000")
                .path("exceptionHistory")
                .path("entries")) {
            causes.add(
                    0,
                    entry.path("exceptionName").asText() + " on "
                            + entry.path("taskManagerId").asText("?"));
        }
        return causes;
    }

    /** How many of the job's tasks are in {@code state} (e.g. INITIALIZING, RUNNING). */
    public int tasksIn(JobID job, String state) throws IOException, InterruptedException {
        int n = 0;
        for (JsonNode vertex : rest("/jobs/" + job).path("vertices")) {
            n += vertex.path("tasks").path(state).asInt();
        }
        return n;
    }

    /**
     * Starts one more TaskManager like {@link #startTaskManager()}, with {@code jvmOptions} added to
     * its JVM's command line (system properties of the libraries in the job's jar, for instance).
     */
    public String startTaskManager(List<String> jvmOptions) throws IOException {
        String name = "taskmanager-" + (++started);
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(conf);
        List<String> jvm = new ArrayList<>(
                List.of(ProcessMemoryUtils.generateJvmParametersStr(spec).trim().split("\\s+")));
        jvm.addAll(jvmOptions);
        List<String> dynamic = new ArrayList<>(List.of(
                TaskExecutorProcessUtils.generateDynamicConfigsStr(spec).trim().split("\\s+")));
        dynamic.addAll(List.of("-D", TaskManagerOptions.TASK_MANAGER_RESOURCE_ID.key() + "=" + name));
        taskManagers.put(name, launch(name, jvm, TaskManagerRunner.class, dynamic));
        return name;
    }

    /**
     * The highest attempt number of any of the job's subtasks, from the REST API: 0 when every task ran
     * at its first attempt, with no failover at all.
     */
    public int highestAttempt(JobID job) throws IOException, InterruptedException {
        int highest = 0;
        for (JsonNode vertex : rest("/jobs/" + job).path("vertices")) {
            for (JsonNode subtask : rest("/jobs/" + job + "/vertices/"
                            + vertex.path("id").asText())
                    .path("subtasks")) {
                highest = Math.max(highest, subtask.path("attempt").asInt());
            }
        }
        return highest;
    }

    /** The oldest failure of the job's exception history with its stack trace, or null: for failure messages. */
    public String firstFailure(JobID job) throws IOException, InterruptedException {
        String first = null;
        for (JsonNode entry : rest("/jobs/" + job + "/exceptions?maxExceptions=100000")
                .path("exceptionHistory")
                .path("entries")) {
            first = entry.path("taskName").asText("?") + " on "
                    + entry.path("taskManagerId").asText("?") + ": "
                    + entry.path("stacktrace").asText();
        }
        return first;
    }

    /** The process id of a running TaskManager. */
    public long pid(String taskManager) {
        Process p = taskManagers.get(taskManager);
        if (p == null) {
            throw new IllegalArgumentException(
                    "no running task manager " + taskManager + ", have " + taskManagers.keySet());
        }
        return p.pid();
    }

    /**
     * How many instances of each of {@code classNames} a TaskManager's heap holds, by {@code jcmd <pid>
     * GC.class_histogram}: it runs a full garbage collection first, so only what something still
     * references is counted (softly reachable objects may survive one: the JVM clears those under
     * memory pressure only). A class without instances counts 0.
     */
    public Map<String, Long> liveInstances(String taskManager, List<String> classNames)
            throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid(taskManager)),
                        "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String out = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            throw new IOException("jcmd GC.class_histogram of " + taskManager + " failed: " + out);
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        classNames.forEach(name -> counts.put(name, 0L));
        // "   7:          1234          98720  org.example.Name (module@version)"
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":") && counts.containsKey(f[3])) {
                counts.put(f[3], Long.parseLong(f[1]));
            }
        }
        return counts;
    }

    public int registeredTaskManagers() throws IOException, InterruptedException {
        return rest("/overview").path("taskmanagers").asInt();
    }

    /** Whether every task of the job is RUNNING (or already FINISHED). */
    public boolean allTasksRunning(JobID job) throws IOException, InterruptedException {
        int all = 0;
        int running = 0;
        for (JsonNode vertex : rest("/jobs/" + job).path("vertices")) {
            all += vertex.path("parallelism").asInt();
            running += vertex.path("tasks").path("RUNNING").asInt()
                    + vertex.path("tasks").path("FINISHED").asInt();
        }
        return all > 0 && running == all;
    }

    public void awaitTaskManagers(int n, Duration timeout) throws Exception {
        await(n + " task managers registered", timeout, () -> registeredTaskManagers() == n);
    }

    /** A condition on the cluster, asked over REST. */
    public interface Condition {
        boolean holds() throws Exception;
    }

    /**
     * Polls {@code condition} until it holds. A REST call that fails (the endpoint is not up yet, or
     * busy with a failover) counts as "not yet"; assertion errors and runtime exceptions end the wait.
     */
    public void await(String what, Duration timeout, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!holds(condition)) {
            if (!jobManager.isAlive()) {
                throw new IllegalStateException("the job manager died; its log:\n" + tail("jobmanager", 60));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("waited " + timeout.toSeconds() + " s for " + what
                        + "; job manager log:\n" + tail("jobmanager", 40));
            }
            Thread.sleep(20);
        }
    }

    /** The last lines of a process's log file, for failure messages. */
    public String tail(String process, int lines) {
        try {
            List<String> all = Files.readAllLines(dir.resolve(process + ".log"));
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static boolean holds(Condition condition) throws Exception {
        try {
            return condition.holds();
        } catch (IOException | ExecutionException | TimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() {
        for (Process p : taskManagers.values()) {
            p.destroyForcibly();
        }
        taskManagers.clear();
        jobManager.destroyForcibly();
    }

    private JsonNode rest(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + restPort + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + ": HTTP " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }

    private RestClusterClient<StandaloneClusterId> client() throws Exception {
        return new RestClusterClient<>(conf, StandaloneClusterId.getInstance());
    }

    private Process launch(String name, List<String> jvmOptions, Class<?> main, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JAVA_OPTS_ALL);
        cmd.addAll(jvmOptions);
        cmd.add("-Dlog.file=" + dir.resolve(name + ".log"));
        cmd.add("-Dlog4j.configurationFile="
                + confDir.resolve("log4j.properties").toUri());
        cmd.addAll(List.of("-cp", classpath, main.getName(), "--configDir", confDir.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".out").toFile());
        return pb.start();
    }

    /**
     * The class path of a Flink distribution's {@code lib/}, as modules/flink-distribution resolved it (jars of the
     * local Maven repository).
     */
    static String distributionClasspath() {
        try (InputStream in = ProcessCluster.class.getResourceAsStream(DISTRIBUTION_CLASSPATH)) {
            if (in == null) {
                throw new IllegalStateException("The Flink distribution's class path (" + DISTRIBUTION_CLASSPATH
                        + ", built by modules/flink-distribution) is not on the test class path. Remedy: build the "
                        + "examples with their modules (./mvnw -pl examples -am verify ...)");
            }
            String classpath = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            for (String jar : classpath.split(File.pathSeparator)) {
                if (!Files.isRegularFile(Path.of(jar))) {
                    throw new IllegalStateException("The Flink distribution's class path names " + jar + ", which is "
                            + "not there: it lists the Maven repository of the machine that built it. Remedy: rebuild "
                            + "here (./mvnw -pl examples -am verify ...)");
                }
            }
            return classpath;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
