/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import org.apache.flink.api.common.JobID;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.util.TimeUtils;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * What the client reports while a job runs and when it ends. In a local MiniCluster the job runs in
 * this JVM and its counters ({@link Chaos}) are the truth; on a cluster they stay zero here, so the
 * figures come from the cluster itself, over its REST API: checkpoints completed and failed, and the
 * failovers in the job's exception history.
 */
abstract class JobProgress {

    /** The figures of one progress line, after the committed rows. */
    abstract String figures();

    /** How many times the job failed over so far: the real failovers, wherever the job runs. */
    abstract long failovers();

    /**
     * Waits, once the job has ended, until what the other methods read reflects that end. Call it before the
     * last figures and {@link #stoppedWithSavepoint()}.
     */
    abstract void settle() throws InterruptedException;

    /**
     * The savepoint the job was stopped with (stop-with-savepoint ends a job FINISHED, before its input
     * ended), or empty.
     */
    abstract Optional<String> stoppedWithSavepoint();

    /** Counters of a job in this JVM. */
    static JobProgress local(long startNanos) {
        return new JobProgress() {
            @Override
            String figures() {
                double seconds = (System.nanoTime() - startNanos) / 1e9;
                return String.format(
                        "events generated %,d (incl. replays) | checkpoint %d | failures survived %d | %,.0f events/s",
                        Chaos.events(), Chaos.checkpoints(), Chaos.fired(), Chaos.events() / Math.max(seconds, 0.001));
            }

            @Override
            long failovers() {
                return Chaos.fired();
            }

            @Override
            void settle() {
                // The counters are this JVM's own: never stale.
            }

            @Override
            Optional<String> stoppedWithSavepoint() {
                return Optional.empty();
            }
        };
    }

    /** A job on the cluster whose REST endpoint is {@code http://host:port}. */
    static JobProgress cluster(String host, int port, JobID job) {
        return new Cluster(URI.create("http://" + host + ":" + port), job);
    }

    private static final class Cluster extends JobProgress {
        private static final ObjectMapper JSON = new ObjectMapper();

        /** Flink's default {@code web.refresh-interval}. */
        private static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(3);

        private static final String CHECKPOINT_STATISTICS_TIMEOUT = "rest.cache.checkpoint-statistics.timeout";

        private final URI base;
        private final JobID job;
        private volatile boolean settled;
        private final HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        Cluster(URI base, JobID job) {
            this.base = base;
            this.job = job;
        }

        @Override
        String figures() {
            try {
                JsonNode counts = get("/jobs/" + job + "/checkpoints").path("counts");
                return String.format(
                        "checkpoints completed %,d, failed %,d | failovers %d (from the cluster)",
                        counts.path("completed").asLong(), counts.path("failed").asLong(), failovers());
            } catch (IOException e) {
                return "cluster figures unavailable: " + e.getMessage();
            }
        }

        @Override
        long failovers() {
            try {
                return get("/jobs/" + job + "/exceptions?maxExceptions=100000")
                        .path("exceptionHistory")
                        .path("entries")
                        .size();
            } catch (IOException e) {
                return -1;
            }
        }

        /**
         * The REST API answers a job's details, exceptions and checkpoint statistics from caches that live
         * {@code web.refresh-interval} (3 s by default; the checkpoint statistics {@code
         * rest.cache.checkpoint-statistics.timeout}, which defaults to it) from the moment they were filled. An
         * answer read right after the job ended may still describe it running: no savepoint yet, fewer
         * failovers. An entry filled after the job ended describes its end, so once the longest of these
         * lives has passed since this client saw the end, every answer does. (A savepoint in an answer would
         * not do: the exception history beside it may be older.)
         */
        @Override
        void settle() throws InterruptedException {
            Thread.sleep(cacheLife().toMillis());
            settled = true;
        }

        @Override
        Optional<String> stoppedWithSavepoint() {
            if (!settled) {
                throw new IllegalStateException("stoppedWithSavepoint() before settle(): the answer could be stale");
            }
            return savepointOfStop();
        }

        private Optional<String> savepointOfStop() {
            try {
                JsonNode latest = get("/jobs/" + job + "/checkpoints").path("latest");
                JsonNode savepoint = latest.path("savepoint");
                // A stop's savepoint is synchronous, and the last snapshot the job took.
                if ("SYNC_SAVEPOINT".equals(savepoint.path("checkpoint_type").asText())
                        && savepoint.path("id").asLong()
                                >= latest.path("completed").path("id").asLong()) {
                    return Optional.of(savepoint.path("external_path").asText());
                }
                return Optional.empty();
            } catch (IOException e) {
                return Optional.empty();
            }
        }

        /**
         * How long the cluster's REST caches keep an answer: the longer of {@code web.refresh-interval} (from
         * {@code /config}) and {@code rest.cache.checkpoint-statistics.timeout} (from {@code /jobmanager/config},
         * when set), plus a second for the request that filled the entry. Flink's defaults when unreadable.
         */
        private Duration cacheLife() {
            long millis = DEFAULT_REFRESH_INTERVAL.toMillis();
            try {
                millis = get("/config").path("refresh-interval").asLong(millis);
                for (JsonNode entry : get("/jobmanager/config")) {
                    if (CHECKPOINT_STATISTICS_TIMEOUT.equals(entry.path("key").asText())) {
                        millis = Math.max(
                                millis,
                                TimeUtils.parseDuration(entry.path("value").asText())
                                        .toMillis());
                    }
                }
            } catch (IOException | IllegalArgumentException e) {
                // the defaults above
            }
            return Duration.ofMillis(millis).plusSeconds(1);
        }

        private JsonNode get(String path) throws IOException {
            try {
                HttpResponse<String> response = http.send(
                        HttpRequest.newBuilder(base.resolve(path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    throw new IOException("GET " + path + ": HTTP " + response.statusCode());
                }
                return JSON.readTree(response.body());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }
}
