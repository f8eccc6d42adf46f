/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Passes records through unchanged, chained right before every sink (ours and the peer's alike), and
 * notes when the first record reaches the sink and when a checkpoint barrier does. Flink calls {@code
 * prepareSnapshotPreBarrier} on a chain's operators head to tail, so this runs right before the sink
 * writer's flush at the barrier: the start of "barrier to prepared".
 */
final class ProbeOperator<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T>, BoundedOneInput {

    private static final long serialVersionUID = 1L;
    static final int PUBLISH = 4096;

    private transient boolean seen;
    private transient int unpublished;
    private transient int subtask;

    @Override
    public void open() throws Exception {
        super.open();
        subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        if (!seen) {
            seen = true;
            Probe.firstRow();
        }
        if (++unpublished == PUBLISH) {
            Probe.recordsSeen.addAndGet(PUBLISH);
            unpublished = 0;
        }
        output.collect(element);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        Probe.barrier(subtask);
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() {
        Probe.recordsSeen.addAndGet(unpublished);
        unpublished = 0;
        Probe.endOfInput(subtask);
    }
}
