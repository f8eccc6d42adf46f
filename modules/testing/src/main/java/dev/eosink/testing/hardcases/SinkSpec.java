/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The sink a hard case asks its backend for ({@link HardCaseBackend#sink}), in the options every sink
 * has. An empty option means the builder's default. Immutable: each {@code with} returns a copy.
 *
 * <p>The suite's defaults differ from a production sink's where a test would otherwise wait: JDBC
 * batches of 100 (so that an epoch reaches the database early), a 20 s claim wait, a 50 ms commit
 * retry backoff.
 *
 * @param sinkId the sink id
 * @param table the target table, columns {@code (id, payload)}
 * @param jdbcUrl where to connect instead of the backend's own URL (a proxy in front of it)
 * @param batchSize records per JDBC batch
 * @param claimWait how long a starting writer waits for a guard held by a task going away
 * @param commitRetryBackoff the committer's first retry backoff
 * @param leftoverPolicy what a start without state does with other jobs' leftovers
 * @param rewindPolicy what a restore that rewinds the sink does
 * @param maxPreparedPerSubtask how many prepared transactions a subtask may hold
 * @param markerRetention how long marker rows are kept
 * @param markerPruneInterval how often the committer prunes them
 * @param networkTimeout the sink's bound on every call to the database
 * @param driverProperties properties passed to the driver as they are
 */
public record SinkSpec(
        String sinkId,
        String table,
        Optional<String> jdbcUrl,
        int batchSize,
        Duration claimWait,
        Duration commitRetryBackoff,
        Optional<LeftoverPolicy> leftoverPolicy,
        Optional<RewindPolicy> rewindPolicy,
        OptionalInt maxPreparedPerSubtask,
        Optional<Duration> markerRetention,
        Optional<Duration> markerPruneInterval,
        Optional<Duration> networkTimeout,
        Map<String, String> driverProperties) {

    /**
     * Checks that the sink id and the table are not null ({@link NullPointerException}) and copies the driver
     * properties.
     */
    public SinkSpec {
        Objects.requireNonNull(sinkId, "sinkId");
        Objects.requireNonNull(table, "table");
        driverProperties = Map.copyOf(driverProperties);
    }

    /** The suite's sink into {@code table} under {@code sinkId}, with the suite's defaults. */
    public static SinkSpec of(String sinkId, String table) {
        return new SinkSpec(
                sinkId,
                table,
                Optional.empty(),
                100,
                Duration.ofSeconds(20),
                Duration.ofMillis(50),
                Optional.empty(),
                Optional.empty(),
                OptionalInt.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Map.of());
    }

    /** This spec under the sink id {@code id}. */
    public SinkSpec withSinkId(String id) {
        return new SinkSpec(
                id,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec writing into the table {@code name}. */
    public SinkSpec withTable(String name) {
        return new SinkSpec(
                sinkId,
                name,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec connecting to {@code url} instead of the backend's own URL (a proxy in front of it). */
    public SinkSpec withJdbcUrl(String url) {
        return new SinkSpec(
                sinkId,
                table,
                Optional.of(url),
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec with {@code records} per JDBC batch. */
    public SinkSpec withBatchSize(int size) {
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                size,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec with a starting writer waiting up to {@code wait} for the guard of a task going away. */
    public SinkSpec withClaimWait(Duration wait) {
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                wait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec with {@code policy} for other jobs' leftovers at a start without state. */
    public SinkSpec withLeftoverPolicy(LeftoverPolicy policy) {
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                Optional.of(policy),
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec with {@code policy} for a restore that rewinds the sink. */
    public SinkSpec withRewindPolicy(RewindPolicy policy) {
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                Optional.of(policy),
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec with at most {@code max} prepared transactions per writer subtask. */
    public SinkSpec withMaxPreparedPerSubtask(int max) {
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                OptionalInt.of(max),
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    /** This spec with marker rows kept for {@code retention} and pruned every {@code pruneInterval}. */
    public SinkSpec withMarkerRetention(Duration retention, Duration pruneInterval) {
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                Optional.of(retention),
                Optional.of(pruneInterval),
                networkTimeout,
                driverProperties);
    }

    /** This spec with {@code timeout} as the sink's bound on every call to the database. */
    public SinkSpec withNetworkTimeout(Duration timeout) {
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                Optional.of(timeout),
                driverProperties);
    }

    /** This spec with the driver property {@code key} set to {@code value}, replacing an earlier value of it. */
    public SinkSpec withDriverProperty(String key, String value) {
        Map<String, String> properties = new LinkedHashMap<>(driverProperties);
        properties.put(key, value);
        return new SinkSpec(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                properties);
    }

    // Written out, not generated by the compiler: the architecture test says why.
    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof SinkSpec other
                        && Objects.equals(sinkId, other.sinkId)
                        && Objects.equals(table, other.table)
                        && Objects.equals(jdbcUrl, other.jdbcUrl)
                        && batchSize == other.batchSize
                        && Objects.equals(claimWait, other.claimWait)
                        && Objects.equals(commitRetryBackoff, other.commitRetryBackoff)
                        && Objects.equals(leftoverPolicy, other.leftoverPolicy)
                        && Objects.equals(rewindPolicy, other.rewindPolicy)
                        && Objects.equals(maxPreparedPerSubtask, other.maxPreparedPerSubtask)
                        && Objects.equals(markerRetention, other.markerRetention)
                        && Objects.equals(markerPruneInterval, other.markerPruneInterval)
                        && Objects.equals(networkTimeout, other.networkTimeout)
                        && Objects.equals(driverProperties, other.driverProperties);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                sinkId,
                table,
                jdbcUrl,
                batchSize,
                claimWait,
                commitRetryBackoff,
                leftoverPolicy,
                rewindPolicy,
                maxPreparedPerSubtask,
                markerRetention,
                markerPruneInterval,
                networkTimeout,
                driverProperties);
    }

    @Override
    public String toString() {
        return "SinkSpec[sinkId=" + sinkId + ", table=" + table + ", jdbcUrl=" + jdbcUrl
                + ", batchSize=" + batchSize + ", claimWait=" + claimWait
                + ", commitRetryBackoff=" + commitRetryBackoff + ", leftoverPolicy=" + leftoverPolicy
                + ", rewindPolicy=" + rewindPolicy + ", maxPreparedPerSubtask=" + maxPreparedPerSubtask
                + ", markerRetention=" + markerRetention + ", markerPruneInterval=" + markerPruneInterval
                + ", networkTimeout=" + networkTimeout + ", driverProperties=" + driverProperties + "]";
    }
}
