/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.util.MathUtils;

import java.io.Serializable;
import java.util.Objects;

/**
 * How an {@link ExactlyOnceSink}'s input reaches its writer subtasks: {@linkplain #asGiven() as the job
 * distributes it}, or {@linkplain #byKey partitioned by a key of the sink's}, so that one writer
 * subtask owns each key whatever the job did before the sink. The sink applies it in its pre-write
 * topology.
 *
 * <p>A sink that writes by key (upserts) needs the second: two subtasks writing one key would race
 * for its row, and each would wait for the other's row lock until a checkpoint completes, which it
 * cannot while one of them waits; and the order of the key's changes would be lost between them.
 *
 * <p>It is a custom partitioning, not a {@code keyBy}: the writers keep no keyed state, and a keyed
 * stream would compute every record's key a second time, on the writer's side, to set a key context
 * nobody reads. A {@code keyBy} of the job's right before the sink is replaced by it: one exchange
 * either way.
 *
 * @param <IN> the sink's records
 */
@PublicEvolving
public abstract sealed class InputDistribution<IN> implements Serializable
        permits InputDistribution.AsGiven, InputDistribution.ByKey {

    private static final long serialVersionUID = 1L;

    private InputDistribution() {}

    /** The input as the job distributes it: the sink adds no exchange. */
    public static <IN> InputDistribution<IN> asGiven() {
        return new AsGiven<>();
    }

    /**
     * The input partitioned by {@code key}: every record of one key goes to the same writer subtask, in
     * every attempt, whatever the job's own distribution. The key's {@code hashCode} must depend on
     * its value alone, the same in every JVM (no arrays, no enums, no identity hashes), as for any
     * {@code keyBy}; and records the database takes as one key must have equal keys.
     */
    public static <IN, K> InputDistribution<IN> byKey(KeySelector<IN, K> key) {
        return new ByKey<>(key);
    }

    /** The input as the writers get it. */
    abstract DataStream<IN> distribute(DataStream<IN> input);

    /** As the job distributes it. */
    static final class AsGiven<IN> extends InputDistribution<IN> {
        private static final long serialVersionUID = 1L;

        @Override
        DataStream<IN> distribute(DataStream<IN> input) {
            return input;
        }

        @Override
        public String toString() {
            return "as given";
        }
    }

    /** Partitioned by a key of the sink's. */
    static final class ByKey<IN, K> extends InputDistribution<IN> {
        private static final long serialVersionUID = 2L;

        private final KeySelector<IN, K> key;

        ByKey(KeySelector<IN, K> key) {
            this.key = Objects.requireNonNull(key, "key");
        }

        @Override
        DataStream<IN> distribute(DataStream<IN> input) {
            // A keyBy of the job's right before the sink served only to distribute the records (the
            // writers keep no keyed state): the same stream, unkeyed, so that this partitioning takes
            // the place of that one (Flink uses the last of consecutive partitionings), one exchange.
            DataStream<IN> stream = input instanceof KeyedStream
                    ? new DataStream<>(input.getExecutionEnvironment(), input.getTransformation())
                    : input;
            return stream.partitionCustom(new ByHash<>(), key);
        }

        @Override
        public String toString() {
            return "by key (" + key + ")";
        }
    }

    /** A key's subtask: its hash, spread as Flink spreads keys over key groups. */
    static final class ByHash<K> implements Partitioner<K> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(K key, int numPartitions) {
            return MathUtils.murmurHash(key.hashCode()) % numPartitions; // murmurHash is never negative
        }
    }
}
