package dev.eosink.testing.hardcases;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

/**
 * The hard cases where chaining can matter, with the sink's writer, committer and checkpoint outcome
 * operator as separate tasks: chaining disabled by the job ({@link RunDimension#JOB_CHAINING_DISABLED})
 * or by the sink ({@link RunDimension#SINK_CHAINING_DISABLED}). A test class extends this class once per
 * backend and way, giving both, and nothing else.
 *
 * <p>What changes without chaining: the committer commits in a task of its own, after the writer's
 * barrier has gone on, on its own thread and from its own restored state; its signal to the writer and
 * the outcome operator's cues cross tasks; a writer or committer task fails and restarts with the
 * records of another task in flight. So the cases run here are those where a commit meets the writer's
 * progress: the end of a bounded input (the final checkpoint commits after the writer finished), a
 * failure between prepare and commit and a crash before a commit (restored committers, in their own
 * tasks), a stop with a savepoint (a notified synchronous savepoint) and a rescale with prepared
 * transactions (restored committers of other subtasks while the writers start).
 * The others cannot tell chained from unchained operators: what a writer finds when it starts
 * (leftovers, a second job, another sink) and the histories of savepoints are decided by the writer
 * alone, before any commit of the run; the failures of a writer's own connection or of the server fail
 * the writer's task whatever it is chained to. Three cases assert an order of events across the
 * declining operator, the writer and the committer that only a chain gives, and so are not run here: a
 * declined checkpoint, tolerated or not, and an expired one (the declining operator, a task of its own,
 * may hear the abort after the committer, notified of the next checkpoint, committed the declined
 * checkpoint's transaction, and the writer may prepare twice before the decline); and a committer
 * connection cut while it commits (the fault picks the commit by the time since the committer's last
 * one, which another task's timing shifts).
 *
 * <p>Every case runs on every backend, both ways; none is skipped.
 */
public abstract class UnchainedHardCases extends HardCaseSuite {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(SLOTS).build());

    private final RunDimension way;

    /** @param way {@link RunDimension#JOB_CHAINING_DISABLED} or {@link RunDimension#SINK_CHAINING_DISABLED} */
    protected UnchainedHardCases(ResourceBackend backend, RunDimension way) {
        super(backend);
        if (way != RunDimension.JOB_CHAINING_DISABLED && way != RunDimension.SINK_CHAINING_DISABLED) {
            throw new IllegalArgumentException("chaining is disabled by the job or by the sink, not " + way);
        }
        this.way = way;
    }

    @BeforeEach
    void submitWithChainingDisabled(@InjectMiniCluster MiniCluster cluster) {
        DimensionEnvironment.install(cluster, SLOTS, way, null);
    }

    @AfterEach
    void submitPlainAgain() {
        DimensionEnvironment.uninstall();
    }

    @Test
    void boundedJobCommitsEverythingAtTheEnd() throws Exception {
        cases().boundedJobCommitsEverythingAtTheEnd();
    }

    @Test
    void failureAfterPrepareIsRolledBackByTheRestartedWriter() throws Exception {
        cases().failureAfterPrepareIsRolledBackByTheRestartedWriter();
    }

    @Test
    void crashBeforeCommitIsCommittedByTheRestoredCommitter() throws Exception {
        cases().crashBeforeCommitIsCommittedByTheRestoredCommitter();
    }


    @ParameterizedTest(name = "drain = {0}")
    @ValueSource(booleans = {false, true})
    void stopWithSavepointCommitsEverythingUpToIt(
            boolean drain, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().stopWithSavepointCommitsEverythingUpToIt(drain, client, dir);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"4, 3"})
    void rescaleFromSavepointWithPreparedTransactions(
            int from, int to, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().rescaleFromSavepointWithPreparedTransactions(from, to, client, dir);
    }

    @Override
    public String toString() {
        return super.toString() + ", " + way;
    }
}
