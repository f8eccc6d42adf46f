/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.faults;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** A pass-through map that counts the checkpoints completed while it ran, per test key. */
public final class CheckpointCounter<T> implements MapFunction<T, T>, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicLong> COMPLETED = new ConcurrentHashMap<>();

    private final String key;

    /** Counts the completed checkpoints of the job it runs in under {@code key}. */
    public CheckpointCounter(String key) {
        this.key = key;
    }

    /** Starts the count of {@code key} again at 0: call it before each test. */
    public static void reset(String key) {
        COMPLETED.put(key, new AtomicLong());
    }

    /**
     * How many checkpoints completed under {@code key} since its {@link #reset}, as its subtasks heard of them (each
     * subtask counts each notification).
     */
    public static long completed(String key) {
        AtomicLong n = COMPLETED.get(key);
        return n == null ? 0 : n.get();
    }

    @Override
    public T map(T value) {
        return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        COMPLETED.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
    }
}
