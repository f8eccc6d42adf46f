/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import org.apache.flink.annotation.PublicEvolving;

/** How rows travel into the open transaction. Both are inside the same prepared transaction. */
@PublicEvolving
public enum WriteMethod {
    /**
     * Binary {@code COPY ... FROM STDIN}, streamed as records arrive: the fastest path, and memory stays
     * at one small buffer whatever the checkpoint interval. The default for inserts into a table whose
     * column types it can encode (see docs/options.md); otherwise the sink falls back to {@link #BATCH}.
     */
    COPY,
    /** JDBC batches of prepared {@code INSERT}s ({@code batchSize} per round trip). */
    BATCH
}
