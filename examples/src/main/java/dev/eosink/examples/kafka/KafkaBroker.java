/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Kafka broker of the Kafka demo and its tests: the one named by {@code EOSINK_KAFKA_BOOTSTRAP}
 * (a system property of that name wins over the environment), or else a real Apache Kafka broker started
 * here, in KRaft combined mode (broker and controller in one process), on free ports of localhost and a
 * temporary log directory.
 *
 * <p>The embedded broker runs in a JVM of its own, from the class path that the build resolved into
 * modules/kafka-broker (Kafka's own Maven artifacts, in the local Maven repository): its Kafka, Scala and
 * Jackson never meet the Flink job's class path, whose kafka-clients is the one flink-connector-kafka
 * pins. The price is a second JVM (about 4 s to start, 300 MB) and a broker that only runs on the machine
 * whose Maven repository holds those jars.
 *
 * <p>{@link #kill()} is a {@code kill -9}: no controlled shutdown, the log recovers on {@link #start()},
 * which brings the broker back on the same ports and log directory, so clients reconnect to the same
 * address. A named broker is someone else's: it is never started, killed or stopped here ({@link
 * #restartable()} is false). {@link #close()} stops an embedded broker and deletes its directory; a
 * shutdown hook closes any left open.
 */
public final class KafkaBroker implements AutoCloseable {

    /** {@code host:port[,host:port]...} of a broker to use instead of starting one. */
    public static final String ENV_BOOTSTRAP = "EOSINK_KAFKA_BOOTSTRAP";

    /** The resource of modules/kafka-broker that lists the broker's class path. */
    static final String CLASSPATH_RESOURCE = "/dev/eosink/kafka-broker.classpath";

    private static final long START_TIMEOUT_SECONDS = 60;

    private final String bootstrap;
    private final Path directory;
    private final int port;
    private final int controllerPort;
    private Process process;

    private KafkaBroker(String bootstrap, Path directory, int port, int controllerPort) {
        this.bootstrap = bootstrap;
        this.directory = directory;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    /** The broker named by {@value #ENV_BOOTSTRAP}, or a new embedded one, started. */
    public static KafkaBroker namedOrStarted() {
        String named = System.getProperty(ENV_BOOTSTRAP);
        if (named == null || named.isBlank()) {
            named = System.getenv(ENV_BOOTSTRAP);
        }
        if (named != null && !named.isBlank()) {
            return named(named);
        }
        return startEmbedded();
    }

    /** The broker at {@code bootstrap}: someone else's, never started, killed or stopped here. */
    public static KafkaBroker named(String bootstrap) {
        return new KafkaBroker(bootstrap.trim(), null, -1, -1);
    }

    /** A new embedded broker on free ports and a fresh temporary directory, started and accepting connections. */
    public static KafkaBroker startEmbedded() {
        try {
            Path dir = Files.createTempDirectory("eosink-kafka-");
            int port = freePort();
            int controllerPort = freePort();
            KafkaBroker broker = new KafkaBroker("localhost:" + port, dir, port, controllerPort);
            broker.configure();
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "eosink-kafka-broker-stop"));
            broker.start();
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare an embedded Kafka broker", e);
        }
    }

    public String bootstrapServers() {
        return bootstrap;
    }

    /** Whether this class started the broker, and so may kill and start it. */
    public boolean restartable() {
        return directory != null;
    }

    public String describe() {
        return restartable()
                ? "embedded Kafka broker (KRaft, " + brokerVersion() + ") at " + bootstrap + ", log directory "
                        + directory
                : "Kafka broker at " + bootstrap + " (named, not started here)";
    }

    /** Starts the embedded broker if it is not running, and waits until it accepts connections. */
    public synchronized void start() {
        requireEmbedded("start");
        if (process != null && process.isAlive()) {
            return;
        }
        try {
            process = java("kafka.Kafka", directory.resolve("server.properties").toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            directory.resolve("broker.log").toFile()))
                    .start();
            awaitListening();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Could not start the embedded Kafka broker; its log: " + directory.resolve("broker.log"), e);
        }
    }

    /** SIGKILL, as a crash would: no controlled shutdown; {@link #start()} recovers the log. */
    public synchronized void kill() {
        requireEmbedded("kill");
        if (process != null) {
            process.destroyForcibly();
            waitFor(process);
            process = null;
        }
    }

    /** {@link #kill()} then {@link #start()}: same address, same log directory. */
    public void killAndStart() {
        kill();
        start();
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops an embedded broker (SIGTERM: a controlled shutdown) and deletes its directory; a named broker is left alone. */
    @Override
    public synchronized void close() {
        if (!restartable()) {
            return;
        }
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    waitFor(process);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            process = null;
        }
        deleteRecursively(directory);
    }

    @Override
    public String toString() {
        return describe();
    }

    // ---------------------------------------------------------------- embedded broker

    private void configure() throws IOException {
        List<String> lines = List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@localhost:" + controllerPort,
                "listeners=PLAINTEXT://localhost:" + port + ",CONTROLLER://localhost:" + controllerPort,
                "advertised.listeners=PLAINTEXT://localhost:" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "log.dirs=" + directory.resolve("data"),
                // One broker: every internal topic has one replica.
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=4",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                // A restarted broker registers again only once its old incarnation's session expired: short
                // sessions bring it back in about a second rather than nine.
                "broker.session.timeout.ms=1500",
                "broker.heartbeat.interval.ms=300",
                "auto.create.topics.enable=false",
                // Small segments and indexes: a test broker, started and restarted many times.
                "log.segment.bytes=16777216",
                "log.index.size.max.bytes=1048576");
        Files.write(directory.resolve("server.properties"), lines, StandardCharsets.UTF_8);
        // The broker's own log: INFO and up, into broker.log (its standard output, see start()).
        Files.write(
                directory.resolve("log4j2.properties"),
                List.of(
                        "appender.out.type=Console", "appender.out.name=out",
                        "appender.out.layout.type=PatternLayout",
                                "appender.out.layout.pattern=%d{HH:mm:ss.SSS} %-5p [%c{1}] %m%n",
                        "rootLogger.level=INFO", "rootLogger.appenderRef.out.ref=out"),
                StandardCharsets.UTF_8);
        Process format = java(
                        "kafka.tools.StorageTool",
                        "format",
                        "--cluster-id",
                        clusterId(),
                        "--config",
                        directory.resolve("server.properties").toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        directory.resolve("format.log").toFile()))
                .start();
        int exit = waitFor(format);
        if (exit != 0) {
            throw new IllegalStateException("Formatting the embedded Kafka broker's storage failed (exit " + exit
                    + "): " + Files.readString(directory.resolve("format.log")).trim());
        }
    }

    private ProcessBuilder java(String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A small heap and the client compiler: it starts faster and carries a test's load easily.
        command.addAll(List.of(
                "-Xms128m",
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.awt.headless=true",
                "-Dlog4j2.configurationFile="
                        + directory.resolve("log4j2.properties").toUri(),
                "-cp",
                brokerClasspath(),
                mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(directory.toFile());
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "The embedded Kafka broker exited at start (exit " + process.exitValue() + "); its log: "
                                + directory.resolve("broker.log") + ": " + tail(directory.resolve("broker.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("localhost", port), 200);
                return;
            } catch (IOException notYet) {
                sleep(100);
            }
        }
        throw new IllegalStateException("The embedded Kafka broker did not listen on " + bootstrap + " within "
                + START_TIMEOUT_SECONDS + " s; its log: " + directory.resolve("broker.log"));
    }

    static String brokerClasspath() {
        try (InputStream in = KafkaBroker.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("The Kafka broker's class path (" + CLASSPATH_RESOURCE + ", built by "
                        + "modules/kafka-broker) is not on the class path. Remedy: build the examples with their "
                        + "modules (./mvnw -pl examples -am package -DskipTests), or name a broker with "
                        + ENV_BOOTSTRAP);
            }
            String classpath = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            for (String jar : classpath.split(java.io.File.pathSeparator)) {
                if (!Files.isRegularFile(Path.of(jar))) {
                    throw new IllegalStateException(
                            "The Kafka broker's class path names " + jar + ", which is not there: "
                                    + "it lists the Maven repository of the machine that built it. Remedy: rebuild the examples "
                                    + "here (./mvnw -pl examples -am package -DskipTests), or name a broker with "
                                    + ENV_BOOTSTRAP);
                }
            }
            return classpath;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The broker's version, from its jar's name on the class path. */
    static String brokerVersion() {
        for (String jar : brokerClasspath().split(java.io.File.pathSeparator)) {
            String name = Path.of(jar).getFileName().toString();
            if (name.startsWith("kafka_2.13-") && name.endsWith(".jar")) {
                return "Kafka " + name.substring("kafka_2.13-".length(), name.length() - ".jar".length());
            }
        }
        return "Kafka";
    }

    /**
     * A KRaft cluster id: 16 random bytes, URL-safe Base64 without padding, as Kafka's own tool makes them,
     * and, as Kafka's {@code Uuid} does too, never one that begins with '-' (one in 64 would): the storage
     * tool would read it as an option and fail ("argument --cluster-id/-t: expected one argument").
     */
    static String clusterId() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[16];
        String id;
        do {
            random.nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        } while (id.startsWith("-"));
        return id;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private static int waitFor(Process p) {
        while (true) {
            try {
                return p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }

    private static String tail(Path log) {
        try {
            String text = Files.readString(log);
            return text.length() > 2_000 ? "..." + text.substring(text.length() - 2_000) : text;
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void requireEmbedded(String what) {
        if (!restartable()) {
            throw new IllegalStateException("Cannot " + what + " the Kafka broker at " + bootstrap + ": it is named by "
                    + ENV_BOOTSTRAP + ", not started here");
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
