/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.records;

import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A rate limiter of the tests' paced sources that grants one record per {@link #acquire()}, on every Flink
 * line: Flink 1.20's limiter has only {@code acquire()}, Flink 2's asks {@code acquire(n)} for n records,
 * which this class grants as n permits in a row. A subclass implements {@link #acquire()} only.
 */
@SuppressWarnings("rawtypes") // RateLimiter is generic in Flink 2 and not in Flink 1.20
public abstract class OneRecordPerPermit implements RateLimiter {

    /** For a subclass, which implements {@link #acquire()}. */
    protected OneRecordPerPermit() {}

    @Override
    public abstract CompletionStage<Void> acquire();

    /** Flink 2's abstract method (Flink 1.20 has only {@link #acquire()}): {@code numberOfEvents} permits. */
    public CompletionStage<Void> acquire(int numberOfEvents) {
        CompletionStage<Void> all = CompletableFuture.completedFuture(null);
        for (int i = 0; i < numberOfEvents; i++) {
            all = all.thenCompose(v -> acquire());
        }
        return all;
    }
}
