/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

/**
 * The hard cases whose job graph differs between chaining disabled by the job ({@link
 * RunDimension#JOB_CHAINING_DISABLED}) and by the sink ({@link SinkUnchainedHardCases}): those with an
 * operator between the source and the sink, here a task of its own ({@link UnchainedHardCases} says
 * why the others would run the sink-only suite's job graph again). A test class extends this class once
 * per backend, giving it, and nothing else.
 */
public abstract class JobUnchainedHardCases extends UnchainedHardCases {

    /** The cases with the job's chaining disabled, on {@code backend}. */
    protected JobUnchainedHardCases(ResourceBackend backend) {
        super(backend, RunDimension.JOB_CHAINING_DISABLED);
    }
}
