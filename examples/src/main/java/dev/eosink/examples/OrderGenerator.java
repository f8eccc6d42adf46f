/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import java.io.Serializable;
import java.time.Duration;

/**
 * The replayable source of the examples: a pure function from an index to an order. A replay after a
 * failure yields exactly the same orders, and the verifier computes the expected output from the same
 * function without running Flink.
 *
 * <p>Event time advances {@code spacingMillis} per order, with a deterministic jitter below {@link
 * #maxOutOfOrderness()}, so the watermark strategy never drops an order as late.
 */
public final class OrderGenerator implements Serializable {

    private static final long serialVersionUID = 1L;

    /** 2026-01-01T00:00:00Z: event times are fixed, not wall-clock, so every run is the same. */
    public static final long EPOCH_MILLIS = 1_767_225_600_000L;

    private final int customers;
    private final long spacingMillis;
    private final long jitterMillis;

    public OrderGenerator(int customers, long spacingMillis, long jitterMillis) {
        if (customers < 1 || spacingMillis < 1 || jitterMillis < 0) {
            throw new IllegalArgumentException("customers >= 1, spacing >= 1 ms, jitter >= 0");
        }
        this.customers = customers;
        this.spacingMillis = spacingMillis;
        this.jitterMillis = jitterMillis;
    }

    public static OrderGenerator defaults() {
        return new OrderGenerator(100, 5, 400);
    }

    public Order order(long index) {
        long h = mix(index);
        int customer = (int) Long.remainderUnsigned(h, customers);
        long amount = 100 + Long.remainderUnsigned(h >>> 17, 10_000);
        long jitter = jitterMillis == 0 ? 0 : Long.remainderUnsigned(h >>> 31, jitterMillis);
        return new Order(index, customer, amount, EPOCH_MILLIS + index * spacingMillis + jitter);
    }

    /** Larger than any jitter: no order is ever late. */
    public Duration maxOutOfOrderness() {
        return Duration.ofMillis(jitterMillis + 1);
    }

    /** SplitMix64's finalizer: a well-mixed, deterministic hash of the index. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
