/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesFactory;
import org.apache.flink.runtime.highavailability.JobResultStore;
import org.apache.flink.runtime.highavailability.nonha.embedded.EmbeddedHaServices;
import org.apache.flink.runtime.highavailability.nonha.embedded.EmbeddedJobResultStore;

import java.time.Duration;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * High-availability services for a MiniCluster ({@code high-availability.type} naming this class,
 * {@link #configure}) that run a job again under a job id it already ran, once that job is cleaned up:
 * Flink's embedded services keep every finished job's id in their job result store and refuse it as
 * "globally terminated" for good. A real redeployment under a fixed job id runs on a new cluster, or on
 * one whose job result store deletes the entry of a job once it is cleaned up ({@code
 * job-result-store.delete-on-commit}, true by default); so does this store. Everything else is Flink's
 * embedded services, as a MiniCluster without high availability has them.
 */
public final class ForgetfulHaServicesFactory implements HighAvailabilityServicesFactory {

    /** Cleanups per job id, in this JVM: what a submission under a fixed job id waits for. */
    private static final Map<JobID, AtomicInteger> CLEANED_UP = new ConcurrentHashMap<>();

    /** The factory Flink instantiates by the class name that {@link #configure} sets. */
    public ForgetfulHaServicesFactory() {}

    /** The MiniCluster's configuration: these services instead of the embedded ones. */
    public static Configuration configure(Configuration conf) {
        conf.set(HighAvailabilityOptions.HA_MODE, ForgetfulHaServicesFactory.class.getName());
        return conf;
    }

    @Override
    public HighAvailabilityServices createHAServices(Configuration configuration, Executor executor) {
        JobResultStore store = new ForgetfulJobResultStore();
        return new EmbeddedHaServices(executor) {
            @Override
            public JobResultStore getJobResultStore() {
                return store;
            }
        };
    }

    /**
     * Waits until {@code job} has been cleaned up {@code times} times in this JVM: every earlier
     * submission under that id is gone from the cluster, which will take the id again.
     */
    public static void awaitCleanedUp(JobID job, int times, Duration limit) throws InterruptedException {
        TestJobs.await(
                () -> cleanedUp(job) >= times,
                times + " cleanups of job " + job + " (seen: " + cleanedUp(job)
                        + "); an earlier job of this id still runs, or its cluster is not configured with "
                        + ForgetfulHaServicesFactory.class.getSimpleName(),
                limit);
    }

    private static int cleanedUp(JobID job) {
        AtomicInteger n = CLEANED_UP.get(job);
        return n == null ? 0 : n.get();
    }

    /** Flink's embedded store, except that a job cleaned up is forgotten: its id may be submitted again. */
    private static final class ForgetfulJobResultStore extends EmbeddedJobResultStore {

        @Override
        public void markResultAsCleanInternal(JobID jobId) throws NoSuchElementException {
            super.markResultAsCleanInternal(jobId);
            CLEANED_UP.computeIfAbsent(jobId, id -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public boolean hasCleanJobResultEntryInternal(JobID jobId) {
            return false;
        }
    }
}
