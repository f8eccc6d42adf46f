/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.flink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink's {@link Sink} as Flink 2.x declares it: a sink implements {@link
 * Sink#createWriter(WriterInitContext)} and nothing else. On this line the type adds nothing; the
 * Flink 1.20 source of the same type supplies the writer factory that Flink 1.20 still declares
 * abstract.
 *
 * @param <IN> the type of the sink's input
 */
@Internal
public interface SinkV2<IN> extends Sink<IN> {}
