/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import java.nio.file.Path;

/**
 * What an operator runs on a dead job: {@code eosink-admin resolve <snapshot> --sink-id ID --apply}
 * (docs/admin.md), which commits what the snapshot promised and rolls back the sink's other prepared
 * transactions. The explorer's {@code resolve} step calls it where a suite gives one (the tool lives in a
 * module that depends on the sinks, so the suite that can reach it supplies it).
 */
@FunctionalInterface
public interface Resolver {

    /** Runs the tool against {@code snapshot} for {@code sinkId}; what it printed, and its exit code. */
    Outcome resolve(String sinkId, Path snapshot);

    /** The tool's exit code (0: done) and everything it printed. */
    final class Outcome {
        /** The tool's exit code: 0 when it resolved every transaction. */
        public final int exitCode;
        /** Everything the tool printed, standard output and error. */
        public final String printed;

        /** The outcome of a run of the tool that exited with {@code exitCode} after printing {@code printed}. */
        public Outcome(int exitCode, String printed) {
            this.exitCode = exitCode;
            this.printed = printed;
        }
    }
}
