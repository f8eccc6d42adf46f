/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a restored writer does when the sink's marker table shows that the sink already committed
 * checkpoints after the restored one, since that checkpoint was taken: the job is being rewound, and
 * every record after the restored checkpoint is written a second time (rows committed after it stay;
 * an upsert table converges, an append table gets them twice). Checked by subtask 0 at start.
 */
@PublicEvolving
public enum RewindPolicy {
    /** Log at WARN how many transactions and rows of which checkpoints will be replayed, and go on (the default). */
    WARN,
    /** Refuse to start, naming what was committed after the restored checkpoint; for jobs that must never rewind. */
    FAIL
}
