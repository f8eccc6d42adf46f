/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Fault injection for jobs on a MiniCluster in the test's own JVM: {@link dev.eosink.testing.faults.Faults} arms a
 * point of a sink's lifecycle, which {@link dev.eosink.testing.faults.FaultInjectingDatabase} makes the sink reach;
 * and what a test observes of such a job ({@link dev.eosink.testing.faults.JobFailures}, {@link
 * dev.eosink.testing.faults.LogCapture}, {@link dev.eosink.testing.faults.MaxSampler}, {@link
 * dev.eosink.testing.faults.CheckpointCounter}).
 */
package dev.eosink.testing.faults;
