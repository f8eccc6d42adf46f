/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.testing.records.OneRecordPerPermit;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A source of ids 0..n-1, in order from one subtask, that emits only as many records as the test has
 * opened it for ({@link #openTo}): with checkpoints the test triggers itself, the test decides which
 * records belong to which epoch, instead of a rate and a sleep guessing it.
 *
 * <p>A closed valve does not block the source's task: the source waits on a future (it is a {@link
 * RateLimiter}), so barriers, savepoints and notifications go through meanwhile. The valve is shared by
 * every run of the job in this JVM under its key (a job restored from a savepoint of it too) and
 * counts the records emitted by all of them.
 */
public final class IdValve {

    private static final Map<String, Gate> GATES = new ConcurrentHashMap<>();

    private IdValve() {}

    /**
     * Ids 0..n-1 from one source subtask, as many as the valve of {@code key} lets through. The uid
     * keeps the source's position across runs.
     */
    public static DataStream<Long> ids(StreamExecutionEnvironment env, String key, long n) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index, n, new Strategy(key), Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids")
                .uid("ids")
                .setParallelism(1);
    }

    /** Lets the sources of {@code key} emit {@code records} records in all, counted since {@link #reset}. */
    public static void openTo(String key, long records) {
        gate(key).openTo(records);
    }

    /** Lets the sources of {@code key} emit everything. */
    public static void openFully(String key) {
        openTo(key, Long.MAX_VALUE);
    }

    /** Forgets the valve of {@code key}: closed again, nothing emitted. */
    public static void reset(String key) {
        GATES.remove(key);
    }

    private static Gate gate(String key) {
        return GATES.computeIfAbsent(key, k -> new Gate());
    }

    /** How many records may go, and the sources that wait for the next one. */
    private static final class Gate {
        private long open;
        private long taken;
        private final Queue<CompletableFuture<Void>> waiting = new ArrayDeque<>();

        CompletionStage<Void> acquire() {
            synchronized (this) {
                if (taken < open) {
                    taken++;
                    return CompletableFuture.completedFuture(null);
                }
                CompletableFuture<Void> next = new CompletableFuture<>();
                waiting.add(next);
                return next;
            }
        }

        void openTo(long records) {
            List<CompletableFuture<Void>> released = new ArrayList<>();
            synchronized (this) {
                open = Math.max(open, records);
                while (taken < open && !waiting.isEmpty()) {
                    taken++;
                    released.add(waiting.poll());
                }
            }
            // Outside the lock: completing wakes the source's task, which may acquire again at once.
            released.forEach(f -> f.complete(null));
        }
    }

    /**
     * The valve as the source's rate limiter, one permit a record. Raw types: the interfaces are
     * generic in Flink 2 and not in Flink 1.20, and this class compiles against both.
     */
    @SuppressWarnings("rawtypes")
    private static final class Strategy implements RateLimiterStrategy {
        private static final long serialVersionUID = 1L;
        private final String key;

        Strategy(String key) {
            this.key = key;
        }

        @Override
        public RateLimiter createRateLimiter(int parallelism) {
            return new Limiter(gate(key));
        }
    }

    @SuppressWarnings("rawtypes")
    private static final class Limiter extends OneRecordPerPermit {
        private final Gate gate;

        Limiter(Gate gate) {
            this.gate = gate;
        }

        @Override
        public CompletionStage<Void> acquire() {
            return gate.acquire();
        }
    }
}
