/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.connector;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Flink's SQL client, run as a user runs it: {@code sql-client.sh -j <connector jar> -f <script>}, in
 * a JVM of its own whose class path is Flink's alone, so that every class of the connector comes from
 * the jar. The client executes the script in its embedded mode with local execution: the job runs on
 * a MiniCluster inside the client's JVM, and each INSERT returns once its job has finished
 * ({@code table.dml-sync}).
 *
 * <p>A script names what differs between runs as placeholders, {@code ${url}}, {@code ${table}} and
 * so on, which {@link #run} replaces; a placeholder left without a value fails the run before the
 * client starts.
 */
final class FlinkSqlClient {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)}");

    /**
     * What Flink's distribution does not hold, left off the client's class path: this project's
     * artifacts and what the connector jar bundles (or leaves to the user, MariaDB Connector/J).
     */
    private static final Pattern NOT_FLINK = Pattern.compile(
            "eosink-.*|postgresql-\\d.*\\.jar|mariadb-java-client-.*|HikariCP-.*|flink-connector-jdbc.*");

    private final Path connectorJar;
    private final Path workDir;

    FlinkSqlClient(Path connectorJar, Path workDir) {
        this.connectorJar = connectorJar;
        this.workDir = workDir;
    }

    /** What the client printed, and how it ended. */
    record Result(int exitCode, String output, String log) {

        /**
         * Fails unless the client ended normally and reported no error: it exits with 0 even when a
         * statement of the script failed, printing {@code [ERROR]} and stopping there.
         */
        Result assertSucceeded() {
            if (exitCode != 0 || output.contains("[ERROR]")) {
                throw new AssertionError("The SQL client failed (exit code " + exitCode + "). Its output:\n" + output
                        + "\nThe end of its log:\n" + tail(log, 60));
            }
            return this;
        }
    }

    /**
     * Runs {@code script} with its placeholders replaced by {@code values} and waits for the client to
     * end, at most {@code timeout}.
     */
    Result run(Path script, Map<String, String> values, Duration timeout) throws IOException, InterruptedException {
        String name = script.getFileName().toString();
        Path filled = workDir.resolve(name);
        Files.writeString(filled, fill(Files.readString(script), values, name));
        Path confDir = Files.createDirectories(workDir.resolve("conf"));
        // Each INSERT waits for its job: the client's JVM, and the MiniCluster in it, end after the last.
        Files.writeString(
                confDir.resolve("config.yaml"),
                String.join("\n", "execution.target: local", "table.dml-sync: true", ""));
        // The client's log goes to its standard error (kept in the log file), its output alone to stdout.
        Path log4j = confDir.resolve("log4j-cli.properties");
        Files.writeString(
                log4j,
                String.join(
                        "\n",
                        "rootLogger.level = WARN",
                        "rootLogger.appenderRef.console.ref = Console",
                        "appender.console.type = Console",
                        "appender.console.name = Console",
                        "appender.console.target = SYSTEM_ERR",
                        "appender.console.layout.type = PatternLayout",
                        "appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n",
                        "logger.eosink.name = dev.eosink",
                        "logger.eosink.level = INFO",
                        ""));
        Path out = workDir.resolve(name + ".out");
        Path log = workDir.resolve(name + ".log");

        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx768m",
                "-Dlog4j.configurationFile=" + log4j.toUri(),
                "-cp",
                flinkClassPath(),
                "org.apache.flink.table.client.SqlClient",
                "--jar",
                connectorJar.toString(),
                "--history",
                workDir.resolve("history").toString(),
                "-f",
                filled.toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(log.toFile());
        builder.environment().put("FLINK_CONF_DIR", confDir.toString());
        Process client = builder.start();
        if (!client.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            client.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("The SQL client did not end within " + timeout + ". Its output:\n"
                    + Files.readString(out, StandardCharsets.UTF_8) + "\nThe end of its log:\n"
                    + tail(Files.readString(log, StandardCharsets.UTF_8), 60));
        }
        return new Result(
                client.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(log, StandardCharsets.UTF_8));
    }

    /** The script with each {@code ${name}} replaced by its value. */
    static String fill(String script, Map<String, String> values, String scriptName) {
        Matcher m = PLACEHOLDER.matcher(script);
        StringBuilder filled = new StringBuilder();
        List<String> missing = new ArrayList<>();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                missing.add(m.group());
                value = m.group();
            }
            m.appendReplacement(filled, Matcher.quoteReplacement(value));
        }
        m.appendTail(filled);
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(
                    scriptName + " has placeholders without a value: " + missing + "; given: " + values.keySet());
        }
        return filled.toString();
    }

    /**
     * The test's class path without this project's artifacts and what the connector jar bundles: what
     * a Flink distribution's {@code lib/} and the client's jars hold, with the stand-in for
     * flink-python among the test classes. Surefire and failsafe pass the class path in {@code
     * surefire.test.class.path} (their JVM's own is a manifest-only jar).
     */
    private static String flinkClassPath() {
        String testClassPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return Arrays.stream(testClassPath.split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                // A module of this project resolved to its classes directory rather than its jar.
                .filter(entry -> !(Files.isDirectory(Path.of(entry)) && entry.endsWith(File.separator + "classes")))
                .filter(entry -> !NOT_FLINK
                        .matcher(Path.of(entry).getFileName().toString())
                        .matches())
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static String tail(String text, int lines) {
        String[] all = text.split("\n");
        return String.join("\n", Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }
}
