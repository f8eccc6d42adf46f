/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.monitoring;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A Prometheus server of its own, for the monitoring test and the demo-run picture: the installed
 * {@code prometheus} binary (Debian's package) on a data directory of its own and a free port of
 * 127.0.0.1, scraping the given targets and evaluating the given rules file, plus the few calls of
 * its HTTP API they need. Never the package's service: that one is neither started nor needed.
 */
public final class PrometheusServer implements AutoCloseable {

    /** What to do when a binary is missing: said by every failure to find one. */
    public static final String REMEDY =
            "run the tests with ./test, which obtains Debian's prometheus package (prometheus and promtool) "
                    + "without root, or apt-get install prometheus, or put both on the PATH";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final URI base;
    private final Path log;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusServer(Process process, URI base, Path log) {
        this.process = process;
        this.base = base;
        this.log = log;
    }

    /**
     * {@code prometheus} or {@code promtool}: from the directory of Debian's packages that {@code ./test} unpacked
     * ({@code $EOSINK_TEST_PACKAGES/usr/bin}) when that variable is set, and only there; else from the PATH, else
     * /usr/bin. Throws, naming the remedy, when none has it.
     */
    public static Path binary(String name) {
        String unpacked = System.getenv("EOSINK_TEST_PACKAGES");
        if (unpacked != null && !unpacked.isBlank()) {
            Path binary = Path.of(unpacked, "usr", "bin", name);
            if (!Files.isExecutable(binary)) {
                throw new IllegalStateException(
                        binary + " is missing (EOSINK_TEST_PACKAGES=" + unpacked + "): " + REMEDY);
            }
            return binary;
        }
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, name));
                }
            }
        }
        candidates.add(Path.of("/usr/bin", name));
        return candidates.stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        name + " is not installed (looked on the PATH and in /usr/bin): " + REMEDY));
    }

    /** A free TCP port of 127.0.0.1 at the time of the call. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    /**
     * The configuration of a server that scrapes {@code targets} (host:port, job {@code eosink-demo})
     * and evaluates {@code rules} (may be empty), both every {@code interval}.
     */
    public static String config(List<String> targets, Optional<Path> rules, Duration interval) {
        String every = interval.toMillis() + "ms";
        StringBuilder yml = new StringBuilder()
                .append("global:\n")
                .append("  scrape_interval: ")
                .append(every)
                .append('\n')
                .append("  evaluation_interval: ")
                .append(every)
                .append('\n');
        rules.ifPresent(r ->
                yml.append("rule_files:\n  - \"").append(r.toAbsolutePath()).append("\"\n"));
        yml.append("scrape_configs:\n")
                .append("  - job_name: eosink-demo\n")
                .append("    scrape_timeout: ")
                .append(every)
                .append('\n')
                .append("    static_configs:\n")
                .append("      - targets: [");
        for (int i = 0; i < targets.size(); i++) {
            yml.append(i == 0 ? "" : ", ").append('"').append(targets.get(i)).append('"');
        }
        return yml.append("]\n").toString();
    }

    /**
     * Starts a server with {@code config} (written into {@code dir}, its data under {@code dir/data},
     * its output in {@code dir/prometheus.log}) and waits until it is ready.
     */
    public static PrometheusServer start(Path dir, String config) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path configFile = dir.resolve("prometheus.yml");
        Files.writeString(configFile, config);
        int port = freePort();
        Path log = dir.resolve("prometheus.log");
        ProcessBuilder pb = new ProcessBuilder(
                binary("prometheus").toString(),
                "--config.file=" + configFile,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port);
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        PrometheusServer server = new PrometheusServer(pb.start(), URI.create("http://127.0.0.1:" + port), log);
        try {
            server.awaitReady(Duration.ofSeconds(30));
        } catch (IOException | RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("prometheus exited with " + process.exitValue() + ": " + tail());
            }
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(base.resolve("/-/ready")).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("prometheus not ready within " + timeout + ": " + tail());
    }

    public URI url() {
        return base;
    }

    /** The result of an instant query (a list of {metric, value}); fails on a query Prometheus refuses. */
    public JsonNode query(String promql) throws IOException, InterruptedException {
        return get("/api/v1/query?query=" + encode(promql)).path("result");
    }

    /** The result of a range query (a list of {metric, values}). */
    public JsonNode queryRange(String promql, Instant start, Instant end, Duration step)
            throws IOException, InterruptedException {
        return get(String.format(
                        Locale.ROOT,
                        "/api/v1/query_range?query=%s&start=%.3f&end=%.3f&step=%.3f",
                        encode(promql),
                        start.toEpochMilli() / 1e3,
                        end.toEpochMilli() / 1e3,
                        step.toMillis() / 1e3))
                .path("result");
    }

    /** The largest value of an instant query's series, if it has any. */
    public Optional<Double> max(String promql) throws IOException, InterruptedException {
        Optional<Double> max = Optional.empty();
        for (JsonNode series : query(promql)) {
            double v = Double.parseDouble(series.path("value").path(1).asText());
            if (!Double.isNaN(v) && (max.isEmpty() || v > max.get())) {
                max = Optional.of(v);
            }
        }
        return max;
    }

    /** The alerts pending or firing now ({@code /api/v1/alerts}): a list of {labels, annotations, state, value}. */
    public JsonNode alerts() throws IOException, InterruptedException {
        return get("/api/v1/alerts").path("alerts");
    }

    private JsonNode get(String pathAndQuery) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = JSON.readTree(r.body());
        if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
            throw new IllegalStateException("Prometheus refused " + pathAndQuery + ": HTTP " + r.statusCode() + " "
                    + body.path("errorType").asText() + ": "
                    + body.path("error").asText());
        }
        return body.path("data");
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** The last lines of the server's output, for failure messages. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
