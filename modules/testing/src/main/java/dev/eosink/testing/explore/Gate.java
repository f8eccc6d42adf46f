/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.testing.faults.PoisonableLongSerializer;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The explorer's pass-through operator before the sink, with operator state: chained to the sink, it
 * makes the sink's task a restored one whatever happens to the sink's own state; and it declines a
 * checkpoint when the explorer asks ({@link #declineNext}): its state then fails to serialize in the
 * asynchronous part of the snapshot, after the sink of its chain prepared, and Flink counts the
 * checkpoint as failed without failing the job over (the explorer's jobs tolerate failed checkpoints).
 */
final class Gate extends RichMapFunction<Long, Long> implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** key -> whether the next snapshot of subtask 0 is to fail. */
    private static final Map<String, AtomicBoolean> DECLINE = new ConcurrentHashMap<>();

    private final String key;
    private transient ListState<Long> state;
    private transient long passed;

    Gate(String key) {
        this.key = key;
    }

    /** The next snapshot of subtask 0 of the gate of {@code key} fails. */
    static void declineNext(String key) {
        DECLINE.computeIfAbsent(key, k -> new AtomicBoolean()).set(true);
    }

    static void reset(String key) {
        DECLINE.remove(key);
    }

    @Override
    public Long map(Long value) {
        passed++;
        return value;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        AtomicBoolean decline = DECLINE.get(key);
        boolean fail = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0
                && decline != null
                && decline.compareAndSet(true, false);
        state.update(List.of(fail ? PoisonableLongSerializer.POISON : passed));
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("passed", new PoisonableLongSerializer()));
    }
}
