/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.OneRecordPerPermit;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.Serializable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Ids 0..n-1 as {@link TestJobs#ids} gives them, at about a rate, except that each source subtask's last
 * {@value #TAIL} records go one per completed checkpoint until a fault has happened (one armed on the sink
 * has fired, or a {@link CheckpointDecliner} failed its checkpoint), and at the rate again from then on. A
 * case whose fault hits the sink's n-th prepare or commit, or a decliner's n-th snapshot with records, so
 * never ends before that arrival, however few checkpoints complete while the rest of the input is read (on
 * a busy machine, only the final one may): every checkpoint meanwhile carries a record per subtask, and so
 * a prepare and a commit.
 */
public final class FaultPacedIds {

    /** Records per source subtask that wait for the fault: far more than the arrivals a case counts. */
    static final int TAIL = 200;

    private FaultPacedIds() {}

    /** Whether the fault the tail waits for has happened; asked in the source's task. */
    @FunctionalInterface
    private interface Happened extends Serializable {
        boolean happened();
    }

    /**
     * Ids 0..n-1 at about {@code perSecond} records per second, each source subtask's last {@value #TAIL}
     * paced by checkpoints until the fault armed at {@code point} on {@code sinkId} fired. The uid keeps the
     * source's state across runs, as {@link TestJobs#ids}' does.
     */
    public static DataStream<Long> ids(
            StreamExecutionEnvironment env, long n, double perSecond, String sinkId, Faults.Point point) {
        return ids(env, n, perSecond, () -> Faults.fired(sinkId, point) > 0);
    }

    /**
     * The same, the tail paced by checkpoints until a {@link CheckpointDecliner} of key {@code sinkId} failed
     * its checkpoint.
     */
    public static DataStream<Long> idsUntilDeclined(
            StreamExecutionEnvironment env, long n, double perSecond, String sinkId) {
        return ids(env, n, perSecond, () -> CheckpointDecliner.failedCheckpoint(sinkId) > 0);
    }

    private static DataStream<Long> ids(StreamExecutionEnvironment env, long n, double perSecond, Happened fault) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index, n, new Strategy(n, perSecond, fault), Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids").uid("ids");
    }

    /**
     * Raw types: the interfaces are generic in Flink 2 and not in Flink 1.20, and this class compiles
     * against both (as {@link IdValve}'s does).
     */
    @SuppressWarnings("rawtypes")
    private static final class Strategy implements RateLimiterStrategy {
        private static final long serialVersionUID = 1L;
        private final long n;
        private final double perSecond;
        private final Happened fault;

        Strategy(long n, double perSecond, Happened fault) {
            this.n = n;
            this.perSecond = perSecond;
            this.fault = fault;
        }

        @Override
        public RateLimiter createRateLimiter(int parallelism) {
            return new Limiter(
                    RateLimiterStrategy.perSecond(perSecond).createRateLimiter(parallelism),
                    n / parallelism - TAIL,
                    fault);
        }
    }

    /** The rate's limiter, and one permit per completed checkpoint for the tail while the fault has not happened. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class Limiter extends OneRecordPerPermit {
        private final RateLimiter rate;
        private final long untilTail;
        private final Happened fault;
        private long taken;
        /** A checkpoint completed since the tail's last record: the next one may go. */
        private boolean permit;
        /** The tail's next record, waiting for a checkpoint to complete. */
        private CompletableFuture<Void> waiting;

        Limiter(RateLimiter rate, long untilTail, Happened fault) {
            this.rate = rate;
            this.untilTail = untilTail;
            this.fault = fault;
        }

        @Override
        public CompletionStage<Void> acquire() {
            if (taken++ < untilTail || fault.happened()) {
                return rate.acquire();
            }
            if (permit) {
                permit = false;
                return rate.acquire();
            }
            waiting = new CompletableFuture<>();
            return waiting;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            rate.notifyCheckpointComplete(checkpointId);
            if (waiting != null) {
                CompletableFuture<Void> next = waiting;
                waiting = null;
                next.complete(null);
            } else {
                permit = true;
            }
        }
    }
}
