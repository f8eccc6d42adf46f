/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hard cases with the sink's writer, committer and checkpoint outcome operator as separate tasks:
 * chaining disabled by the sink ({@link SinkUnchainedHardCases}) or by the job ({@link
 * JobUnchainedHardCases}). What changes without chaining: the committer commits in a task of its own,
 * after the writer's barrier has gone on, on its own thread and from its own restored state; its signal
 * to the writer and the outcome operator's cues cross tasks; a writer or committer task fails and
 * restarts with the records of another task in flight; an operator before the sink (one that declines a
 * checkpoint) snapshots before or after the writer prepared. So the cases run unchained are those where
 * a commit meets the writer's progress, or an abort meets both.
 *
 * <p>The two ways give the sink the same tasks: under {@code sinkTo(...).disableChaining()} the writer
 * chains to nothing either, not even to its input, so a job of a source and the sink has one job graph
 * both ways, and only an operator between them (chained to the source, or a task of its own) tells them
 * apart. So the sink's way walks every case where chaining can matter, and the job's way only those with
 * such an operator.
 *
 * <p>The others cannot tell chained from unchained operators: what a writer finds when it starts
 * (leftovers, a second job, another sink) and the histories of savepoints are decided by the writer
 * alone, before any commit of the run; the failures of a writer's own connection or of the server fail
 * the writer's task whatever it is chained to. Every case of these suites runs on every backend; none is
 * skipped.
 */
public abstract class UnchainedHardCases extends HardCaseSuite {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(SLOTS)
                    .build());

    private final RunDimension way;

    /** @param way {@link RunDimension#JOB_CHAINING_DISABLED} or {@link RunDimension#SINK_CHAINING_DISABLED} */
    UnchainedHardCases(ResourceBackend backend, RunDimension way) {
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

    /**
     * A checkpoint declined after the writers prepared it, tolerated: its transactions stay prepared until
     * the next completed checkpoint, whose committers commit them (and their own) in order.
     */
    @Test
    void declinedCheckpointIsCommittedByTheNextCompletedOne() throws Exception {
        cases().declinedCheckpointIsCommittedByTheNextCompletedOne();
    }

    /** The same decline, not tolerated: the job fails over, the restarted writers roll its transactions back. */
    @Test
    void declinedCheckpointWithoutToleranceIsRolledBackAndReplayed() throws Exception {
        cases().declinedCheckpointWithoutToleranceIsRolledBackAndReplayed();
    }

    @Override
    public String toString() {
        return super.toString() + ", " + way;
    }
}
