/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.testing.faults.CheckpointCounter;
import dev.eosink.testing.faults.Faults;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every suite of hard cases does around each case, whatever cases it runs and along which {@link
 * RunDimension}: a fresh target and sink id per test, named after it, and nothing left behind
 * afterwards. {@link ResourceHardCases} and {@link HardCases} run every case along the plain path;
 * {@link UnchainedHardCases} and {@link FixedJobIdHardCases} run the cases where their dimension can
 * matter. Each suite runs its jobs on a MiniCluster of its own (one TaskManager, {@value #SLOTS} slots).
 */
public abstract class HardCaseSuite implements HardCaseSupport {

    private static final Logger LOG = LoggerFactory.getLogger(HardCaseSuite.class);

    /** Slots of the MiniCluster: the largest parallelism of a case (a rescale from 4). */
    static final int SLOTS = 4;

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final ResourceBackend backend;
    private String target;
    private String sinkId;

    /** A suite on {@code backend}; throws {@link NullPointerException} for null. */
    protected HardCaseSuite(ResourceBackend backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /**
     * The Flink and Java versions the suite runs on, as they are at run time (not as the build asked for
     * them), for reports such as the version matrix; the database fixtures log their server's version.
     */
    @BeforeAll
    static void logVersions() {
        LOG.info(
                "Hard cases on Flink {}, Java {} ({})",
                EnvironmentInformation.getVersion(),
                Runtime.version(),
                System.getProperty("java.vendor"));
    }

    @Override
    public ResourceBackend backend() {
        return backend;
    }

    @Override
    public final String sinkId() {
        return sinkId;
    }

    @Override
    public final String target() {
        return target;
    }

    /**
     * A fresh target and sink id, named after the test. Short: PostgreSQL cuts session names at 63
     * bytes, and the tests find the sink's sessions by the names "eosink/&lt;sinkId&gt;/&lt;subtask&gt;/writer"
     * and "eosink-xa/&lt;sinkId&gt;/&lt;subtask&gt;/committer"; and Firebird 3 takes identifiers of at most 31
     * bytes, the cases' index "&lt;target&gt;_id" among them (3 + 12 + 1 + 4 + 1 + 5 + 3 = 29).
     */
    @BeforeEach
    void createTarget(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("t").toLowerCase(Locale.ROOT);
        String base = method.length() > 12 ? method.substring(0, 12) : method;
        target = "hc_" + base + "_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100_000);
        sinkId = target.replace('_', '-');
        backend.createTarget(target);
        resetStatics();
    }

    /**
     * Never leaves anything behind for the next test, even when this one failed: held writers go on, a
     * job the test left running is cancelled (it would hold the cluster's slots, and every later case
     * would time out waiting for its own writers), the sink's prepared transactions are rolled back, the
     * target is dropped.
     */
    @AfterEach
    void cleanUp(@InjectClusterClient ClusterClient<?> client) {
        TestJobs.releaseHeldWriters();
        try {
            cancelJobsLeftRunning(client);
        } catch (Exception | AssertionError e) {
            LOG.warn("Could not end the jobs the test left running: {}", e.toString());
        }
        try {
            backend.rollbackAllPrepared(sinkId);
        } finally {
            resetStatics();
        }
        try {
            backend.dropTarget(target);
        } catch (RuntimeException e) {
            // A job a failed test left running may still hold the target; it is never reused.
            LOG.warn("Could not drop {} on {}: {}", target, backend.name(), e.getMessage());
        }
    }

    private void cancelJobsLeftRunning(ClusterClient<?> client) throws Exception {
        boolean cancelled = false;
        for (JobStatusMessage job : client.listJobs().get(30, TimeUnit.SECONDS)) {
            if (!job.getJobState().isGloballyTerminalState()) {
                LOG.warn(
                        "The test left job {} ({}) {}: cancelling it",
                        job.getJobId(),
                        job.getJobName(),
                        job.getJobState());
                try {
                    client.cancel(job.getJobId()).get(30, TimeUnit.SECONDS);
                    cancelled = true;
                } catch (ExecutionException e) {
                    // it ended meanwhile
                }
            }
        }
        if (cancelled) {
            TestJobs.await(() -> backend.openSessions(sinkId) == 0, "the sessions of " + sinkId + " to close");
        }
    }

    private void resetStatics() {
        Faults.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        CheckpointCounter.reset(sinkId);
    }

    /**
     * The resource-neutral cases, on this suite's backend, target and sink id: for a suite that runs a
     * choice of them, each a test method of its own that calls the case.
     */
    protected ResourceCases cases() {
        return new ResourceCases();
    }

    /** The cases of {@link ResourceHardCases}, run on the suite's backend, target and sink id. */
    protected class ResourceCases implements FailoverCases, StartupCases, SavepointCases, RescaleCases {

        /** The resource-neutral cases of this suite. */
        protected ResourceCases() {}

        @Override
        public ResourceBackend backend() {
            return HardCaseSuite.this.backend();
        }

        @Override
        public String sinkId() {
            return HardCaseSuite.this.sinkId();
        }

        @Override
        public String target() {
            return HardCaseSuite.this.target();
        }
    }

    /** The cases that need JDBC ({@link HardCases}), run on the suite's backend, target and sink id. */
    protected class JdbcCases extends ResourceCases implements ConnectionCases, SqlCases {

        /** The JDBC cases of this suite. */
        protected JdbcCases() {}

        @Override
        public HardCaseBackend backend() {
            return (HardCaseBackend) HardCaseSuite.this.backend();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + " on " + backend.name();
    }
}
