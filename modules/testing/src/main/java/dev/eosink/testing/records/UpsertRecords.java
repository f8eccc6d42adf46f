/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.records;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.RowKind;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The records of the upsert tests of every database, as functions of their index (the record is its
 * index, a {@code Long}): keys, changelog kinds, an ordered source, and the table they must leave,
 * replayed in order.
 */
public final class UpsertRecords {

    private UpsertRecords() {}

    /** A serializable key function of the record index, for a sink's row mapper. */
    @FunctionalInterface
    public interface KeyFunction extends Serializable {
        /** The key of record {@code i}. */
        long of(long i);
    }

    /** A serializable changelog kind of the record index, for a sink's {@code changelog(...)}. */
    @FunctionalInterface
    public interface KindFunction extends Serializable {
        /** The changelog kind of record {@code i}. */
        RowKind of(long i);
    }

    /**
     * Deletes (1 in 11), UPDATE_BEFORE (1 in 13: a delete too, unless a later record of the key wins),
     * the rest upserts.
     */
    public static RowKind hotKind(long i) {
        if (i % 11 == 10) {
            return RowKind.DELETE;
        }
        if (i % 13 == 12) {
            return RowKind.UPDATE_BEFORE;
        }
        return i % 2 == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
    }

    /** Ids 0..n-1 from one source subtask, so that every key's records keep their order after the sink's partitioning. */
    public static DataStream<Long> orderedIds(StreamExecutionEnvironment env, long n, double perSecond) {
        return env.fromSource(
                        new DataGeneratorSource<>(
                                (GeneratorFunction<Long, Long>) index -> index,
                                n,
                                RateLimiterStrategy.perSecond(perSecond),
                                Types.LONG),
                        WatermarkStrategy.noWatermarks(),
                        "ids")
                .setParallelism(1);
    }

    /** The table after records 0..n-1 into an empty one: {@link #replay(Map, long, LongFunction, LongFunction)}. */
    public static Map<Long, Long> replay(long n, LongFunction<Long> key, LongFunction<RowKind> kind) {
        return replay(Map.of(), n, key, kind);
    }

    /**
     * The table after records 0..n-1 into one holding {@code before}, replayed in order: key -> the
     * index of its last write; a delete or an UPDATE_BEFORE removes the key.
     */
    public static Map<Long, Long> replay(
            Map<Long, Long> before, long n, LongFunction<Long> key, LongFunction<RowKind> kind) {
        Map<Long, Long> rows = new HashMap<>(before);
        for (long i = 0; i < n; i++) {
            RowKind k = kind.apply(i);
            if (k == RowKind.DELETE || k == RowKind.UPDATE_BEFORE) {
                rows.remove(key.apply(i));
            } else {
                rows.put(key.apply(i), i);
            }
        }
        return rows;
    }
}
