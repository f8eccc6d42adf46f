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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Ids 0..n-1 paced by checkpoints rather than by the clock: the source emits {@code perCheckpoint}
 * ids, then waits for the next completed checkpoint before it emits the next ones (Flink's gated rate
 * limiter, {@link RateLimiterStrategy#perCheckpoint}; split evenly over the source's subtasks).
 *
 * <p>For a test whose precondition is "the job prepares (or commits) at least k times before its
 * input ends", or "the first epoch holds at most so many records". A rate per second cannot promise
 * either: on a loaded machine fewer checkpoints complete while the input lasts, on a quiet one more
 * records fall into each. Here, however fast or slow the machine:
 *
 * <ul>
 *   <li>the first epoch holds at most {@code perCheckpoint} ids;
 *   <li>each source subtask emits its ids after the first {@code k} batches only once it has seen
 *       {@code k} checkpoints complete, each batch after the checkpoint that released it;
 *   <li>so the input spans at least {@code n / (2 x perCheckpoint)} epochs with records, and each of
 *       them prepares a transaction on every writer it reaches: with one checkpoint at a time (Flink's
 *       default), the next checkpoint is triggered only after the completion that released a batch,
 *       so a batch straddles at most one barrier, and shares an epoch with the next batch at most,
 *       never with the one after. Size {@code perCheckpoint} by that bound for the prepares or commits
 *       a test needs, not by the count a quiet machine shows.
 * </ul>
 *
 * <p>A failover restarts the pacing from the restored position. The price is time: the input lasts at
 * least {@code n / perCheckpoint} checkpoint intervals.
 */
public final class CheckpointPacedIds {

    private CheckpointPacedIds() {}

    /**
     * Ids 0..n-1 from as many source subtasks as the job's parallelism (each a contiguous range, in
     * order), {@code perCheckpoint} of them in all (at least one per subtask) per completed checkpoint,
     * replayable from checkpoints. The uid keeps the source's position across runs.
     */
    public static DataStream<Long> ids(StreamExecutionEnvironment env, long n, int perCheckpoint) {
        return env.fromSource(source(n, perCheckpoint), WatermarkStrategy.noWatermarks(), "ids")
                .uid("ids");
    }

    /**
     * The same ids from one source subtask, so that every key's records keep their order after the
     * sink's partitioning.
     */
    public static DataStream<Long> orderedIds(StreamExecutionEnvironment env, long n, int perCheckpoint) {
        return env.fromSource(source(n, perCheckpoint), WatermarkStrategy.noWatermarks(), "ids")
                .uid("ids")
                .setParallelism(1);
    }

    private static DataGeneratorSource<Long> source(long n, int perCheckpoint) {
        return new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index,
                n,
                RateLimiterStrategy.perCheckpoint(perCheckpoint),
                Types.LONG);
    }

    /**
     * Ids 0..n-1 from one source subtask, one id per {@code checkpointsPerId} completed checkpoints:
     * the first at once, each next one once that many checkpoints completed after the previous. With
     * one checkpoint at a time, an id lands in the epoch after the completion that released it, so at
     * least {@code checkpointsPerId - 1} epochs without records follow each epoch with one, on any
     * machine.
     */
    public static DataStream<Long> sparseIds(StreamExecutionEnvironment env, long n, int checkpointsPerId) {
        if (checkpointsPerId < 1) {
            throw new IllegalArgumentException("checkpointsPerId must be at least 1: " + checkpointsPerId);
        }
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index,
                n,
                parallelism -> new EveryNthCheckpoint(checkpointsPerId),
                Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids")
                .uid("ids")
                .setParallelism(1);
    }

    /** One permit per {@code every} completed checkpoints; the first at once. */
    private static final class EveryNthCheckpoint extends OneRecordPerPermit {
        private final int every;
        private int completedSinceLast;
        private boolean first = true;
        private CompletableFuture<Void> waiting;

        EveryNthCheckpoint(int every) {
            this.every = every;
        }

        @Override
        public CompletionStage<Void> acquire() {
            if (first) {
                first = false;
                return CompletableFuture.completedFuture(null);
            }
            waiting = new CompletableFuture<>();
            completedSinceLast = 0;
            return waiting;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (waiting != null && ++completedSinceLast >= every) {
                CompletableFuture<Void> next = waiting;
                waiting = null;
                next.complete(null);
            }
        }
    }
}
