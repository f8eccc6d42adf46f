/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

/** One run of a {@link Spec} in one round, as the orchestrator judged it. */
final class Measured {

    final Spec spec;
    final int round;
    final RunResult result;
    /** Null when the run counts; else why not (failure, timeout, wrong table). */
    final String failure;
    /** Steady-state rows/s: N / (end - first row); 0 when failed. */
    final double rowsPerS;
    /** Seconds from the first row to the end of the run. */
    final double steadySeconds;

    final double wallSeconds;
    /** How the end was taken: "commit timestamp" or "job end". */
    final String endMethod;
    /** Failures of earlier attempts of this run (a failed run is repeated, see --retries). */
    final java.util.List<String> failedAttempts = new java.util.ArrayList<>();

    Measured(
            Spec spec,
            int round,
            RunResult result,
            String failure,
            double rowsPerS,
            double steadySeconds,
            double wallSeconds,
            String endMethod) {
        this.spec = spec;
        this.round = round;
        this.result = result;
        this.failure = failure;
        this.rowsPerS = rowsPerS;
        this.steadySeconds = steadySeconds;
        this.wallSeconds = wallSeconds;
        this.endMethod = endMethod;
    }

    boolean ok() {
        return failure == null;
    }
}
