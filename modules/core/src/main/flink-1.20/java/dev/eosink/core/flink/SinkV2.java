/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.flink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink's {@link Sink} as Flink 1.20 declares it. Flink 1.20 still declares the writer factory of
 * Flink 1.18, {@code createWriter(Sink.InitContext)}, abstract (deprecated since 1.19, removed in
 * 2.0), while its runtime creates every writer through {@link
 * Sink#createWriter(WriterInitContext)}, which a sink of this project implements. This type supplies
 * the old factory so the same sink source compiles on Flink 1.20 and on 2.x.
 *
 * @param <IN> the type of the sink's input
 */
@Internal
public interface SinkV2<IN> extends Sink<IN> {

    /**
     * Never called by Flink 1.20, which passes a {@link WriterInitContext} to every sink; a caller
     * with only the old context is refused rather than given a writer without the mailbox, metrics and
     * job information that a {@link WriterInitContext} carries and the writer needs.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    @Deprecated
    default SinkWriter<IN> createWriter(Sink.InitContext context) {
        throw new UnsupportedOperationException(
                this + " creates its writers from a WriterInitContext (Sink#createWriter(WriterInitContext)),"
                        + " as Flink 1.19 and later do; Sink.InitContext does not carry what they need");
    }
}
