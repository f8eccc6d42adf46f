/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.faults;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The failures a job went through, including the task failures it recovered from: its exception
 * history, as the Web UI shows it. A job that recovered and finished reports no exception to its
 * client, so this is where a test checks what the sink said when it failed a task.
 */
public final class JobFailures {

    private JobFailures() {}

    /** The stack trace text (messages of the whole cause chain) of every failure in the job's history. */
    public static List<String> of(MiniCluster cluster, JobID job) throws Exception {
        URI rest = cluster.getRestAddress().get();
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(rest.resolve("/jobs/" + job + "/exceptions?maxExceptions=100"))
                .timeout(Duration.ofSeconds(30))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(
                    "exception history of " + job + ": HTTP " + response.statusCode() + " " + response.body());
        }
        JsonNode root = new ObjectMapper().readTree(response.body());
        List<String> failures = new ArrayList<>();
        for (JsonNode entry : root.path("exceptionHistory").path("entries")) {
            failures.add(entry.path("stacktrace").asText());
            for (JsonNode concurrent : entry.path("concurrentExceptions")) {
                failures.add(concurrent.path("stacktrace").asText());
            }
        }
        return failures;
    }
}
