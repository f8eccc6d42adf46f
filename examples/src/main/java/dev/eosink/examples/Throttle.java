/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A pass-through map that holds each subtask to {@code perSecond / parallelism} records a second, chained
 * to the source so that the source reads no faster: a Kafka source reads as fast as it can, and the
 * Kafka demo wants a run long enough to be watched and to fail in. Its clock restarts with the task.
 */
final class Throttle<T> extends RichMapFunction<T, T> {

    private static final long serialVersionUID = 1L;

    private final double perSecond;
    private transient double perSubtaskNanos;
    private transient long startNanos;
    private transient long records;

    Throttle(double perSecond) {
        this.perSecond = perSecond;
    }

    @Override
    public void open(OpenContext context) {
        int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        perSubtaskNanos = 1e9 * parallelism / perSecond;
        startNanos = System.nanoTime();
        records = 0;
    }

    @Override
    public T map(T value) throws InterruptedException {
        long ahead = startNanos + (long) (++records * perSubtaskNanos) - System.nanoTime();
        if (ahead > 1_000_000) {
            Thread.sleep(ahead / 1_000_000);
        }
        return value;
    }
}
