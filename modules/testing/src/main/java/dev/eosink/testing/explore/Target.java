/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.testing.hardcases.KeyedResource;
import dev.eosink.testing.hardcases.ResourceBackend;
import dev.eosink.testing.hardcases.SinkSpec;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A scenario's target as its {@link WriteMode} writes it: how it is made, what each job of the scenario runs
 * into it (the source of ids, the {@link Gate}, the sink), and what it holds at the end. One kind per mode.
 */
abstract sealed class Target permits Target.Inserts, Target.Changelog {

    final ResourceBackend backend;
    /** The table's (or directory's) name. */
    final String name;

    private Target(ResourceBackend backend, String name) {
        this.backend = backend;
        this.name = name;
    }

    /** The target of a scenario in {@code mode}; refused for a mode the backend does not offer. */
    static Target of(WriteMode mode, ResourceBackend backend, String name) {
        if (!WriteMode.on(backend).contains(mode)) {
            throw new IllegalArgumentException(backend.name() + " cannot run a scenario in mode " + mode.word()
                    + ": it has " + WriteMode.on(backend) + " (changelog on postgres and xa-mariadb, by COPY and "
                    + "inserts by batch on postgres)");
        }
        if (!mode.changelog()) {
            return new Inserts(backend, name, mode == WriteMode.INSERT_BY_BATCH);
        }
        KeyedResource keyed = backend.keyed().orElseThrow();
        return new Changelog(
                backend,
                keyed,
                name,
                mode == WriteMode.CHANGELOG_BY_COPY ? KeyedResource.Method.COPY : KeyedResource.Method.STATEMENTS);
    }

    /** Creates it, empty. */
    abstract void create();

    /** Ids 0..{@link Scenario#IDS}-1, {@code rate} a second, through {@code gate}, as {@code start} chains it. */
    abstract DataStream<Long> gated(StreamExecutionEnvironment env, Step.Start start, Gate gate, double rate);

    /** The backend's sink of this mode, as {@code spec} says. */
    abstract ExactlyOnceSink<Long> sink(SinkSpec spec);

    /** Records what it holds, committed and visible, in {@code history}. */
    abstract void read(History history);

    void drop() {
        backend.dropTarget(name);
    }

    /**
     * Each id inserted once: a source at the job's parallelism, rebalanced into the gate, which is chained to
     * the sink's writer or not; by the backend's default path, or by JDBC batches.
     */
    static final class Inserts extends Target {

        private final boolean byBatch;

        Inserts(ResourceBackend backend, String name, boolean byBatch) {
            super(backend, name);
            this.byBatch = byBatch;
        }

        @Override
        void create() {
            backend.createTarget(name);
        }

        @Override
        DataStream<Long> gated(StreamExecutionEnvironment env, Step.Start start, Gate gate, double rate) {
            SingleOutputStreamOperator<Long> gated = TestJobs.rebalancedIds(env, 0, Scenario.IDS, rate)
                    .map(gate)
                    .uid("gate")
                    .name("gate");
            if (!start.gateChained) {
                gated.disableChaining();
            }
            return gated;
        }

        @Override
        ExactlyOnceSink<Long> sink(SinkSpec spec) {
            return byBatch ? backend.batchSink(spec).orElseThrow() : backend.sink(spec);
        }

        @Override
        void read(History history) {
            history.idCounts = backend.idCounts(name);
        }
    }

    /**
     * Each id a record of {@link ChangelogIds}, written by key. The table ends as the replay of the input only
     * if each key's records reach its writer in index order, through every restore and rescale: so the source
     * runs at parallelism 1, and whatever comes between it and the writers keeps each key on one channel. The
     * sink partitions its input by key itself, so the gate never shares the writer's task here: chained, it
     * runs in the source's task (parallelism 1); apart, in a task of its own at the job's parallelism, fed by
     * key. By statements, of {@value #BATCH} keys, so that they also run within an epoch, right after the
     * writer takes its previous transaction for committed; or by COPY ({@link WriteMode#CHANGELOG_BY_COPY}).
     */
    static final class Changelog extends Target {

        static final int BATCH = 20;

        private final KeyedResource keyed;
        private final KeyedResource.Method method;

        Changelog(ResourceBackend backend, KeyedResource keyed, String name, KeyedResource.Method method) {
            super(backend, name);
            this.keyed = keyed;
            this.method = method;
        }

        @Override
        void create() {
            keyed.createKeyedTarget(name);
        }

        @Override
        DataStream<Long> gated(StreamExecutionEnvironment env, Step.Start start, Gate gate, double rate) {
            DataStream<Long> ids = env.fromSource(
                            new DataGeneratorSource<>(
                                    (GeneratorFunction<Long, Long>) index -> index,
                                    Scenario.IDS,
                                    RateLimiterStrategy.perSecond(rate),
                                    Types.LONG),
                            WatermarkStrategy.noWatermarks(),
                            "ids")
                    .uid("ids")
                    .setParallelism(1);
            if (start.gateChained) {
                return ids.map(gate).uid("gate").name("gate").setParallelism(1);
            }
            return ids.keyBy((KeySelector<Long, Long>) ChangelogIds::key, Types.LONG)
                    .map(gate)
                    .uid("gate")
                    .name("gate");
        }

        @Override
        ExactlyOnceSink<Long> sink(SinkSpec spec) {
            return keyed.changelogSink(spec.withBatchSize(BATCH), ChangelogIds::key, ChangelogIds::kind, method);
        }

        @Override
        void read(History history) {
            history.rowsByKey = keyed.rowsByKey(name);
        }
    }
}
