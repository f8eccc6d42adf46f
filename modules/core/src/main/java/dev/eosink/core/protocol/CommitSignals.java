/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How a writer learns that the committer of its own task committed a transaction it prepared. Writer
 * and committer of one subtask run in the same task (chained), hence the same JVM; a writer registers
 * the transactions it waits for, the committer marks them. Nothing is kept for transactions nobody
 * waits for.
 */
final class CommitSignals {

    private static final ConcurrentHashMap<TransactionId, Boolean> AWAITED = new ConcurrentHashMap<>();

    private CommitSignals() {}

    static void expect(TransactionId id) {
        AWAITED.put(id, Boolean.FALSE);
    }

    static void committed(TransactionId id) {
        AWAITED.computeIfPresent(id, (k, v) -> Boolean.TRUE);
    }

    static boolean isCommitted(TransactionId id) {
        return Boolean.TRUE.equals(AWAITED.get(id));
    }

    static void forget(TransactionId id) {
        AWAITED.remove(id);
    }
}
