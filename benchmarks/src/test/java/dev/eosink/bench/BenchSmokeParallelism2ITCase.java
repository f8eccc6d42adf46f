/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/** {@code ./bench --smoke} at parallelism 2 ({@link BenchSmokeRuns}). */
class BenchSmokeParallelism2ITCase extends BenchSmokeRuns {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void smokeRunWritesOneCsvLinePerCase() throws Exception {
        smokeRunWritesOneCsvLinePerCase(2);
    }
}
