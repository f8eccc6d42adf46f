package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;

import java.io.Serializable;
import java.util.Objects;

/**
 * How an {@link ExactlyOnceSink}'s input reaches its writer subtasks: {@linkplain #asGiven() as the job
 * distributes it}, or {@linkplain #byKey keyed by the sink itself}, so that one writer subtask owns
 * each key whatever the job did before the sink. The sink applies it in its pre-write topology.
 *
 * <p>A sink that writes by key (upserts) needs the second: two subtasks writing one key would race
 * for its row, and each would wait for the other's row lock until a checkpoint completes, which it
 * cannot while one of them waits.
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
     * The input keyed by {@code key}: every record of one key goes to the same writer subtask, in every
     * attempt, whatever the job's own distribution. The key's {@code hashCode} must depend on its
     * value alone, the same in every JVM (no arrays, no enums, no identity hashes), as for any {@code
     * keyBy}; and records the database takes as one key must have equal keys.
     */
    public static <IN, K> InputDistribution<IN> byKey(KeySelector<IN, K> key, TypeInformation<K> keyType) {
        return new ByKey<>(key, keyType);
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

    /** Keyed by the sink. */
    static final class ByKey<IN, K> extends InputDistribution<IN> {
        private static final long serialVersionUID = 1L;

        private final KeySelector<IN, K> key;
        private final TypeInformation<K> keyType;

        ByKey(KeySelector<IN, K> key, TypeInformation<K> keyType) {
            this.key = Objects.requireNonNull(key, "key");
            this.keyType = Objects.requireNonNull(keyType, "keyType");
        }

        @Override
        DataStream<IN> distribute(DataStream<IN> input) {
            return input.keyBy(key, keyType);
        }

        @Override
        public String toString() {
            return "by key (" + key + ")";
        }
    }
}
