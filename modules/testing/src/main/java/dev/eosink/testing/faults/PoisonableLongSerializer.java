/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.faults;

import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;

/**
 * A long serializer that fails, or takes long, on two values: for operator state whose snapshot must
 * fail (or be slow) in its asynchronous part, after the synchronous part, where the sink already
 * prepared. Flink then declines the checkpoint (CHECKPOINT_ASYNC_EXCEPTION), which {@code
 * execution.checkpointing.tolerable-failed-checkpoints} counts.
 */
public final class PoisonableLongSerializer extends TypeSerializerSingleton<Long> {

    private static final long serialVersionUID = 1L;

    /** Serializes to a failure: the state value that makes the asynchronous part of a snapshot fail. */
    public static final long POISON = Long.MIN_VALUE;

    /** Serializes slowly: the state value that makes the asynchronous part of a snapshot take {@link #SLOW_MILLIS}. */
    public static final long SLOW = Long.MIN_VALUE + 1;

    /** How long the asynchronous part of a snapshot of {@link #SLOW} takes: above half a minute. */
    public static final long SLOW_MILLIS = 35_000;

    /** A serializer; every instance is equal to every other, as a {@link TypeSerializerSingleton} is. */
    public PoisonableLongSerializer() {}

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public Long createInstance() {
        return 0L;
    }

    @Override
    public Long copy(Long from) {
        return from;
    }

    @Override
    public Long copy(Long from, Long reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return Long.BYTES;
    }

    @Override
    public void serialize(Long record, DataOutputView target) throws IOException {
        if (record == POISON) {
            throw new IOException("injected: this operator state cannot be written (asynchronous snapshot failure)");
        }
        if (record == SLOW) {
            try {
                Thread.sleep(SLOW_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while writing slowly", e);
            }
        }
        target.writeLong(record);
    }

    @Override
    public Long deserialize(DataInputView source) throws IOException {
        return source.readLong();
    }

    @Override
    public Long deserialize(Long reuse, DataInputView source) throws IOException {
        return source.readLong();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.writeLong(source.readLong());
    }

    @Override
    public TypeSerializerSnapshot<Long> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer's snapshot, for Flink's compatibility check: a restore reads with this serializer again. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Long> {
        /** The snapshot Flink reads back by reflection. */
        public Snapshot() {
            super(PoisonableLongSerializer::new);
        }
    }
}
