/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import org.apache.flink.streaming.util.TestStreamEnvironment;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The MiniCluster's environment for the jobs of a hard case, submitting each along the suite's {@link
 * RunDimension}: {@code StreamExecutionEnvironment.getExecutionEnvironment(...)}, which {@link TestJobs}
 * calls for every job, returns one while a suite has installed it ({@link #install}), so the cases
 * themselves never change.
 *
 * <p>Under {@link RunDimension#FIXED_JOB_ID} a job is submitted only once every earlier job of the same id
 * has been cleaned up: Flink refuses a job id it still runs or has not yet cleaned up, and a test goes on
 * as soon as a job reached its terminal state, before the cluster has cleaned it up.
 */
public final class DimensionEnvironment extends TestStreamEnvironment {

    /** Jobs submitted under each fixed job id, in this JVM: the cleanups a next submission waits for. */
    private static final Map<JobID, AtomicInteger> SUBMITTED = new ConcurrentHashMap<>();

    private final RunDimension dimension;
    private final JobID fixedJobId;

    private DimensionEnvironment(
            MiniCluster cluster, Configuration conf, int parallelism, RunDimension dimension, JobID fixedJobId) {
        super(cluster, conf, parallelism, Collections.emptyList(), Collections.emptyList());
        this.dimension = dimension;
        this.fixedJobId = fixedJobId;
    }

    /**
     * From now on, every environment of this thread's jobs submits to {@code cluster} along {@code
     * dimension}; under {@link RunDimension#FIXED_JOB_ID} with the id {@code fixedJobId}.
     */
    public static void install(MiniCluster cluster, int parallelism, RunDimension dimension, JobID fixedJobId) {
        Objects.requireNonNull(dimension, "dimension");
        if (dimension == RunDimension.FIXED_JOB_ID) {
            Objects.requireNonNull(fixedJobId, "fixedJobId");
        }
        initializeContextEnvironment(conf -> {
            if (dimension == RunDimension.FIXED_JOB_ID) {
                conf.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, fixedJobId.toHexString());
            }
            DimensionEnvironment env = new DimensionEnvironment(cluster, conf, parallelism, dimension, fixedJobId);
            env.configure(conf, env.getUserClassloader());
            if (dimension == RunDimension.JOB_CHAINING_DISABLED) {
                env.disableOperatorChaining();
            }
            return env;
        });
    }

    /** Back to the MiniCluster's own environments, which its extension installs before each test. */
    public static void uninstall() {
        resetContextEnvironment();
    }

    /** Under {@link RunDimension#SINK_CHAINING_DISABLED}, disables every sink's chaining first. */
    @Override
    public StreamGraph getStreamGraph(boolean clearTransformations) {
        if (dimension == RunDimension.SINK_CHAINING_DISABLED) {
            for (Transformation<?> t : transformations) {
                if (t instanceof SinkTransformation) {
                    // What DataStreamSink.disableChaining() does, for every sink the case added.
                    ((SinkTransformation<?, ?>) t).setChainingStrategy(ChainingStrategy.NEVER);
                }
            }
        }
        return super.getStreamGraph(clearTransformations);
    }

    @Override
    public JobClient executeAsync(StreamGraph streamGraph) throws Exception {
        if (dimension != RunDimension.FIXED_JOB_ID) {
            return super.executeAsync(streamGraph);
        }
        AtomicInteger submitted = SUBMITTED.computeIfAbsent(fixedJobId, id -> new AtomicInteger());
        ForgetfulHaServicesFactory.awaitCleanedUp(fixedJobId, submitted.get(), TestJobs.TIMEOUT);
        JobClient client = super.executeAsync(streamGraph);
        if (!client.getJobID().equals(fixedJobId)) {
            throw new AssertionError(
                    "job submitted as " + client.getJobID() + ", not under the fixed id " + fixedJobId);
        }
        submitted.incrementAndGet();
        return client;
    }
}
