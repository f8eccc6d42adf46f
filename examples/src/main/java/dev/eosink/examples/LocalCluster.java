/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A MiniCluster in this JVM whose TaskManagers may be killed and replaced, as a machine's loss would
 * take one: the Kafka demo's cluster. Jobs are submitted to it as job graphs, so that one may be
 * stopped with a savepoint and another restored from it.
 */
final class LocalCluster implements AutoCloseable {

    private final MiniCluster mini;
    /** MiniCluster keeps killed TaskManagers in its list: the next live one is at this index. */
    private int nextVictim;

    private LocalCluster(MiniCluster mini) {
        this.mini = mini;
    }

    /** Starts {@code taskManagers} TaskManagers of {@code slots} slots each. */
    static LocalCluster start(Configuration conf, int taskManagers, int slots) throws Exception {
        MiniCluster mini = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(taskManagers)
                .setNumSlotsPerTaskManager(slots)
                .build());
        mini.start();
        return new LocalCluster(mini);
    }

    /** Submits the job built on {@code env}, restored from {@code savepoint} if given. */
    JobID submit(StreamExecutionEnvironment env, String name, Optional<String> savepoint) throws Exception {
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName(name);
        JobGraph job = graph.getJobGraph();
        savepoint.ifPresent(path -> job.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(path)));
        mini.submitJob(job).get(60, TimeUnit.SECONDS);
        return job.getJobID();
    }

    CompletableFuture<JobResult> result(JobID job) {
        return mini.requestJobResult(job);
    }

    /** Stops the job with a savepoint in {@code dir}; returns the savepoint's path. */
    String stopWithSavepoint(JobID job, Path dir) throws Exception {
        return stopWithSavepoint(job, dir, false);
    }

    /**
     * Stops the job with a savepoint, {@code drain} first (as {@code flink stop --drain}: the end of event
     * time, so every window fires and is written before the savepoint); returns the savepoint's path.
     */
    String stopWithSavepoint(JobID job, Path dir, boolean drain) throws Exception {
        return mini.stopWithSavepoint(job, dir.toUri().toString(), drain, SavepointFormatType.CANONICAL)
                .get(120, TimeUnit.SECONDS);
    }

    /**
     * Kills a TaskManager (its tasks fail, its slots are gone) and starts a new one in its place, so the
     * cluster keeps its size. Returns the killed TaskManager's index.
     */
    synchronized int killTaskManager() throws Exception {
        int victim = nextVictim++;
        mini.terminateTaskManager(victim).get(60, TimeUnit.SECONDS);
        mini.startTaskManager();
        return victim;
    }

    /** Shuts the cluster down, waiting up to a minute: a killed TaskManager can hold up MiniCluster's own close. */
    @Override
    public void close() throws ExecutionException {
        try {
            mini.closeAsync().get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            System.err.println("warning: the local Flink cluster did not shut down within 60 s; going on");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
