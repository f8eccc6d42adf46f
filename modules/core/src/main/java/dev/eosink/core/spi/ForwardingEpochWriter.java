/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.Objects;

/**
 * An {@link EpochWriter} that passes every call to another one: extend it to watch or change a few calls of
 * the epoch (lifecycle hooks, test tracing, fault injection) without restating the rest. New methods of the
 * interface are forwarded here, so that no wrapper silently drops one (a wrapper that forgot {@link
 * #ownCommits} would make an upsert session wait for locks of its own). A wrapped session keeps its other
 * roles as they are.
 */
@PublicEvolving
public abstract class ForwardingEpochWriter<IN> implements EpochWriter<IN> {

    /** The writer every call is passed to; never null. */
    protected final EpochWriter<IN> delegate;

    /** A writer that passes every call to {@code delegate}. Throws {@link NullPointerException} for a null delegate. */
    protected ForwardingEpochWriter(EpochWriter<IN> delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public void begin(TransactionId id) throws IOException {
        delegate.begin(id);
    }

    @Override
    public void write(IN record, long positionInEpoch) throws IOException {
        delegate.write(record, positionInEpoch);
    }

    @Override
    public void flush() throws IOException {
        delegate.flush();
    }

    @Override
    public void prepare(TransactionId id, long rows) throws IOException {
        delegate.prepare(id, rows);
    }

    @Override
    public void ownCommits(OwnCommits ownCommits) {
        delegate.ownCommits(ownCommits);
    }

    @Override
    public long backlogBytes() {
        return delegate.backlogBytes();
    }

    @Override
    public void abortOpen() throws IOException {
        delegate.abortOpen();
    }
}
