package dev.eosink.testing.hardcases;

import dev.eosink.testing.faults.CheckpointCounter;
import dev.eosink.testing.faults.Faults;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The resource-neutral hard cases of the exactly-once protocol, written once and run against every
 * transactional resource the core's SPI runs on: a database ({@link HardCases} adds the cases that need
 * JDBC) or anything else (a directory of files). A test class extends this class once per backend,
 * giving the backend, and nothing else.
 *
 * <p>The cases are grouped by what fails or what starts: {@link FailoverCases} (a task fails around
 * the two-phase commit, between a checkpoint and its commit, a checkpoint is declined or expires),
 * {@link StartupCases} (what a starting writer finds: leftovers, a second live job), {@link
 * SavepointCases} (savepoints, older savepoints, stops and cancels) and {@link RescaleCases} (another
 * parallelism, names across runs). Each case states in its Javadoc what fails, what the sink must do
 * and what is checked.
 *
 * <p>Every test gets a fresh target and sink id and runs its jobs on one MiniCluster (one TaskManager,
 * four slots) per class, against the real resource of the backend. Every exactly-once case ends with
 * exact counts asked of that resource: records = expected, zero duplicates, zero missing, zero
 * prepared transactions of the sink left ({@link #assertExactlyOnce}).
 *
 * <p>Every case here runs on every backend; none is skipped or left out for one.
 */
public abstract class ResourceHardCases implements FailoverCases, StartupCases, SavepointCases, RescaleCases {

    private static final Logger LOG = LoggerFactory.getLogger(ResourceHardCases.class);

    /** Slots of the MiniCluster: the largest parallelism of a case (a rescale from 4). */
    static final int SLOTS = 4;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(SLOTS).build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final ResourceBackend backend;
    private String target;
    private String sinkId;

    protected ResourceHardCases(ResourceBackend backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /**
     * The Flink and Java versions the suite runs on, as they are at run time (not as the build asked for
     * them), for reports such as the version matrix; the database fixtures log their server's version.
     */
    @BeforeAll
    static void logVersions() {
        LOG.info("Hard cases on Flink {}, Java {} ({})", EnvironmentInformation.getVersion(), Runtime.version(),
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
     * and "eosink-xa/&lt;sinkId&gt;/&lt;subtask&gt;/committer".
     */
    @BeforeEach
    void createTarget(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("t").toLowerCase(Locale.ROOT);
        String base = method.length() > 20 ? method.substring(0, 20) : method;
        target = "hc_" + base + "_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100_000);
        sinkId = target.replace('_', '-');
        backend.createTarget(target);
        resetStatics();
    }

    /**
     * Never leaves anything behind for the next test, even when this one failed: held writers go on,
     * the sink's prepared transactions are rolled back, the target is dropped.
     */
    @AfterEach
    void cleanUp() {
        TestJobs.releaseHeldWriters();
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

    private void resetStatics() {
        Faults.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        CheckpointCounter.reset(sinkId);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + " on " + backend.name();
    }
}
