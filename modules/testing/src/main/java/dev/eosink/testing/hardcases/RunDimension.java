/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

/**
 * How every job of a hard case is submitted: a property of the run, never of the case. A case is
 * written once, against {@link TestJobs}' environments; a suite runs it along one of these paths
 * ({@link UnchainedHardCases}, {@link FixedJobIdHardCases}; {@link HardCases} along the plain one), and
 * {@link DimensionEnvironment} applies the path to every job the case builds.
 */
public enum RunDimension {

    /** As the case builds its jobs: operators chained where Flink chains them, a new job id for each job. */
    PLAIN,

    /**
     * The job disables chaining ({@code env.disableOperatorChaining()}): every operator, the sink's
     * writer, committer and outcome operator among them, is a task of its own.
     */
    JOB_CHAINING_DISABLED,

    /**
     * The sink disables its chaining ({@code sinkTo(...).disableChaining()}): Flink gives every operator
     * of the sink's topology the sink's chaining strategy, so writer, committer and outcome operator are
     * tasks of their own while the rest of the job chains as usual.
     */
    SINK_CHAINING_DISABLED,

    /**
     * Every job of a case is submitted under one job id ({@code $internal.pipeline.job-id}), the same at
     * every run of the case: what Flink does for an application with high availability, whose job id it
     * derives from {@code high-availability.cluster-id}, so that every redeployment has the same job id.
     * The MiniCluster forgets a job once it is cleaned up ({@link ForgetfulHaServicesFactory}), as a
     * redeployment on a new cluster, or on one whose job result store deletes a clean job's entry, does.
     */
    FIXED_JOB_ID
}
