/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkSettings;

import java.time.Duration;

/**
 * The protocol's options as a builder's setters give them, one at a time ({@link
 * JdbcSinkBuilderBase#leftoverPolicy}, {@link JdbcSinkBuilderBase#commitRetries}, {@link
 * JdbcSinkBuilderBase#markerRetention} and the rest of its "Marker table and protocol" setters), starting from
 * {@link SinkSettings}' defaults. Unchecked here but for what a setter checks itself: {@link #toSinkSettings}
 * makes the immutable {@link SinkSettings}, which checks each value and names the one out of range.
 */
final class ProtocolSettings {

    LeftoverPolicy leftoverPolicy = SinkSettings.DEFAULT_LEFTOVER_POLICY;
    int maxPreparedPerSubtask = SinkSettings.DEFAULT_MAX_PREPARED_PER_SUBTASK;
    RewindPolicy rewindPolicy = SinkSettings.DEFAULT_REWIND_POLICY;
    int commitRetries = SinkSettings.DEFAULT_COMMIT_RETRIES;
    Duration commitRetryBackoff = SinkSettings.DEFAULT_COMMIT_RETRY_BACKOFF;
    Duration claimWait = SinkSettings.DEFAULT_CLAIM_WAIT;
    Duration markerRetention = SinkSettings.DEFAULT_MARKER_RETENTION;
    Duration markerPruneInterval = SinkSettings.DEFAULT_MARKER_PRUNE_INTERVAL;
    /** Null: derived from the job's checkpoint interval. */
    Duration preparedAgeWarning;

    /** The settings of the sink {@code sinkId}; {@link IllegalArgumentException} for a value out of its range. */
    SinkSettings toSinkSettings(String sinkId) {
        return SinkSettings.defaults(sinkId)
                .withLeftoverPolicy(leftoverPolicy)
                .withCommitRetries(commitRetries, commitRetryBackoff)
                .withClaimWait(claimWait)
                .withMarkerRetention(markerRetention, markerPruneInterval)
                .withMaxPreparedPerSubtask(maxPreparedPerSubtask)
                .withRewindPolicy(rewindPolicy)
                .withPreparedAgeWarning(preparedAgeWarning);
    }
}
