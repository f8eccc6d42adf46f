/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Debezium's JDBC sink connector in a Kafka Connect standalone worker of its own JVM: the peer that {@code ./demo
 * --cdc-vs-debezium} replicates the same topics with. The worker runs {@code
 * org.apache.kafka.connect.cli.ConnectStandalone worker.properties} from the class path that the build resolved into
 * modules/debezium-jdbc-sink (Connect 4.1.1, the connector 3.6.0.Final, its Hibernate 7.2.6 with hibernate-agroal
 * 7.2.0 for its default connection pool, the PostgreSQL driver, in the local Maven repository), in a temporary directory with its offsets file and its log ({@code worker.log}); its
 * Connect, Debezium, Hibernate, Kafka and Jackson never meet the Flink job's class path. Its converters read what
 * Debezium's Connect runtime writes: {@code JsonConverter} with schemas, keys and values.
 *
 * <p>The worker starts with no connector: {@link #startConnector} adds one through the worker's REST API (on a free
 * port of localhost), so that one worker serves several rounds, each a connector of its own name, hence a consumer
 * group of its own that reads the topics from the start. {@link #close()} stops the worker and deletes its directory
 * (kept when a connector failed, or with {@code -Deosink.connect.keep=true}); a shutdown hook closes any left open.
 */
public final class DebeziumJdbcSink implements AutoCloseable {

    /** The resource of modules/debezium-jdbc-sink that lists the worker's class path. */
    static final String CLASSPATH_RESOURCE = "/dev/eosink/debezium-jdbc-sink.classpath";

    private static final long START_TIMEOUT_SECONDS = 120;

    private final Path directory;
    private final int port;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Process process;
    /** A connector failed: its directory (the log with the trace) is kept. */
    private volatile boolean failed;

    private boolean closed;

    private DebeziumJdbcSink(Path directory, int port) {
        this.directory = directory;
        this.port = port;
    }

    /**
     * Starts a worker on the broker at {@code bootstrap}; it may still be starting when this returns ({@link
     * #awaitReady}).
     */
    public static DebeziumJdbcSink launch(String bootstrap) {
        try {
            Path dir = Files.createTempDirectory("eosink-connect-");
            DebeziumJdbcSink worker = new DebeziumJdbcSink(dir, freePort());
            worker.configure(bootstrap);
            Runtime.getRuntime().addShutdownHook(new Thread(worker::close, "eosink-connect-stop"));
            worker.process = worker.java("org.apache.kafka.connect.cli.ConnectStandalone", "worker.properties")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            dir.resolve("worker.log").toFile()))
                    .start();
            return worker;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start a Kafka Connect worker", e);
        }
    }

    /** Waits until the worker's REST API answers and lists the JDBC sink connector among its plugins. */
    public void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("The Kafka Connect worker exited at start (exit " + process.exitValue()
                        + "); its log: " + log() + ": " + tail());
            }
            try {
                HttpResponse<String> plugins = get("/connector-plugins");
                if (plugins.statusCode() == 200) {
                    if (!plugins.body().contains("io.debezium.connector.jdbc.JdbcSinkConnector")) {
                        throw new IllegalStateException(
                                "The Kafka Connect worker lacks Debezium's JDBC sink connector: " + plugins.body()
                                        + "; its log: " + log());
                    }
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("The Kafka Connect worker did not answer on port " + port + " within "
                + START_TIMEOUT_SECONDS + " s; its log: " + log());
    }

    /** Creates the connector {@code name} with {@code config} (its {@code connector.class} included). */
    public void startConnector(String name, Map<String, String> config) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(uri("/connectors/" + name + "/config"))
                        .timeout(Duration.ofSeconds(60))
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(json(config)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("The Kafka Connect worker refused the connector " + name + " (HTTP "
                    + r.statusCode() + "): " + r.body());
        }
    }

    /**
     * The connector's failure: the trace of a FAILED connector or task, or null while they run (or start). A sink
     * whose task failed writes nothing more: the run must stop waiting for it.
     */
    public String failure(String name) throws IOException, InterruptedException {
        HttpResponse<String> r = get("/connectors/" + name + "/status");
        if (r.statusCode() != 200 || !r.body().contains("\"FAILED\"")) {
            return null;
        }
        failed = true;
        // The trace's root cause says what happened (a constraint refused a write, say); the whole trace is in the log.
        String cause = "see its status";
        for (String line : r.body().replace("\\t", " ").split("\\\\n")) {
            if (line.startsWith("Caused by: ")) {
                cause = line.substring("Caused by: ".length()).replace("\\\"", "\"");
            }
        }
        return "the connector's task FAILED: " + (cause.length() > 300 ? cause.substring(0, 300) + "..." : cause)
                + " (the whole trace: the worker's log, " + log() + ")";
    }

    /** Deletes the connector: its tasks stop (their last offsets committed), its consumer group stays. */
    public void deleteConnector(String name) throws IOException, InterruptedException {
        http.send(
                HttpRequest.newBuilder(uri("/connectors/" + name))
                        .timeout(Duration.ofSeconds(60))
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The worker's log file. */
    public Path log() {
        return directory.resolve("worker.log");
    }

    /** The connector's version and the worker's, from their jars' names on the class path. */
    public static String versions() {
        String connector = "?";
        String connect = "?";
        for (String jar : workerClasspath().split(java.io.File.pathSeparator)) {
            String name = Path.of(jar).getFileName().toString();
            if (name.startsWith("debezium-connector-jdbc-")) {
                connector = name.substring("debezium-connector-jdbc-".length(), name.length() - ".jar".length());
            } else if (name.startsWith("connect-runtime-")) {
                connect = name.substring("connect-runtime-".length(), name.length() - ".jar".length());
            }
        }
        return "Debezium JDBC sink connector " + connector + " in Kafka Connect " + connect + " (standalone)";
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return; // closed already (the shutdown hook after the run's own close)
        }
        closed = true;
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(20, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            process = null;
        }
        if (failed || Boolean.getBoolean("eosink.connect.keep")) {
            System.out.println("the Kafka Connect worker's directory, its log included, is kept: " + directory);
        } else {
            deleteRecursively(directory);
        }
    }

    // ---------------------------------------------------------------- the worker

    private void configure(String bootstrap) throws IOException {
        Files.write(
                directory.resolve("worker.properties"),
                List.of(
                        "bootstrap.servers=" + bootstrap,
                        "key.converter=org.apache.kafka.connect.json.JsonConverter",
                        "value.converter=org.apache.kafka.connect.json.JsonConverter",
                        "key.converter.schemas.enable=true",
                        "value.converter.schemas.enable=true",
                        "offset.storage.file.filename=" + directory.resolve("connect.offsets"),
                        // The default, 10 s: how often a sink task's consumer offsets are committed.
                        "offset.flush.interval.ms=10000",
                        "listeners=http://localhost:" + port,
                        // Plugins on the class path only, found through their service files (no scan).
                        "plugin.discovery=service_load"),
                StandardCharsets.UTF_8);
        Files.write(
                directory.resolve("log4j2.properties"),
                List.of(
                        "appender.out.type=Console", "appender.out.name=out",
                        "appender.out.layout.type=PatternLayout",
                                "appender.out.layout.pattern=%d{HH:mm:ss.SSS} %-5p [%c{1}] %m%n",
                        "rootLogger.level=INFO", "rootLogger.appenderRef.out.ref=out",
                        // Hibernate's per-statement chatter and Jersey's warnings at start: not needed.
                        "logger.hibernate.name=org.hibernate", "logger.hibernate.level=WARN",
                        "logger.jersey.name=org.glassfish", "logger.jersey.level=ERROR"),
                StandardCharsets.UTF_8);
    }

    private ProcessBuilder java(String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(
                "-Xms128m",
                "-Xmx768m",
                "-Djava.awt.headless=true",
                "-Dlog4j2.configurationFile="
                        + directory.resolve("log4j2.properties").toUri(),
                "-cp",
                workerClasspath(),
                mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(directory.toFile());
    }

    static String workerClasspath() {
        try (InputStream in = DebeziumJdbcSink.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("The Kafka Connect worker's class path (" + CLASSPATH_RESOURCE
                        + ", built by modules/debezium-jdbc-sink) is not on the class path. Remedy: build the "
                        + "examples with their modules (./mvnw -pl examples -am package -DskipTests)");
            }
            String classpath = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            for (String jar : classpath.split(java.io.File.pathSeparator)) {
                if (!Files.isRegularFile(Path.of(jar))) {
                    throw new IllegalStateException("The Kafka Connect worker's class path names " + jar
                            + ", which is not there: it lists the Maven repository of the machine that built it. "
                            + "Remedy: rebuild the examples here (./mvnw -pl examples -am package -DskipTests)");
                }
            }
            return classpath;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(uri(path))
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    /** A flat JSON object of strings. */
    static String json(Map<String, String> config) {
        return new LinkedHashMap<>(config)
                .entrySet().stream()
                        .map(e -> quote(e.getKey()) + ":" + quote(e.getValue()))
                        .collect(Collectors.joining(",", "{", "}"));
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private String tail() {
        try {
            String text = Files.readString(log());
            return text.length() > 3_000 ? "..." + text.substring(text.length() - 3_000) : text;
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: left for the system to clean
        }
    }
}
