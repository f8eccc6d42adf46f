/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.faults;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * Samples a count (say, the prepared transactions of one subtask) every 10 ms on a thread of its own
 * until closed, and keeps the largest value seen: for bounds that must hold at every moment of a
 * job, not only at its end.
 */
public final class MaxSampler implements AutoCloseable {

    private final AtomicInteger max = new AtomicInteger();
    private final AtomicInteger samples = new AtomicInteger();
    private final Thread thread;

    /**
     * Starts sampling {@code count} every 10 ms on a daemon thread named after {@code name}, until {@link #close()}.
     */
    public MaxSampler(String name, IntSupplier count) {
        thread = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        max.accumulateAndGet(count.getAsInt(), Math::max);
                        samples.incrementAndGet();
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "sampler-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** The largest value sampled so far. */
    public int max() {
        return max.get();
    }

    /** How many samples were taken: a bound checked on none proves nothing. */
    public int samples() {
        return samples.get();
    }

    @Override
    public void close() {
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
