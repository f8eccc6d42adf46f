/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

/**
 * The whole hard-case suite on a JDBC database: every resource-neutral case ({@link ResourceHardCases})
 * and the cases that need JDBC: {@link ConnectionCases} (connections cut, stalled or held, the server
 * killed) and {@link SqlCases} (row locks, the pruning of marker rows). Each JDBC sink module extends
 * this class once per database it supports, giving the backend, and nothing else.
 *
 * <p>Every case runs on every database; none is skipped or left out for one.
 */
public abstract class HardCases extends ResourceHardCases implements ConnectionCases, SqlCases {

    private final HardCaseBackend backend;

    /** Every case on the JDBC database of {@code backend}. */
    protected HardCases(HardCaseBackend backend) {
        super(backend);
        this.backend = backend;
    }

    @Override
    public final HardCaseBackend backend() {
        return backend;
    }
}
