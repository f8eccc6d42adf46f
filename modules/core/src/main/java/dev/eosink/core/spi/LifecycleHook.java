/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.io.Serializable;

/**
 * Called at each point of a transaction's life, on the thread that reaches it. For failure injection
 * (the tests and the demo throw here to prove recovery) and for instrumentation. A hook that throws
 * fails the writer or committer call it was called from, exactly as a database error there would.
 */
@PublicEvolving
@FunctionalInterface
public interface LifecycleHook extends Serializable {

    /** The points a hook sees, in the order a transaction passes them. */
    enum Point {
        /** A writer's session was opened (its start-up checks and recovery come next). */
        WRITER_OPENED,
        /** A record is about to be written into the open transaction. */
        WRITE,
        /** At the barrier, before the transaction is prepared. */
        BEFORE_PREPARE,
        /** At the barrier, right after the transaction was prepared, before Flink has the committable. */
        AFTER_PREPARE,
        /** The checkpoint completed; the commit is about to be sent. */
        BEFORE_COMMIT,
        /** The commit was sent and answered, before Flink hears of it. */
        AFTER_COMMIT
    }

    /**
     * @param transaction the transaction concerned; null at {@link Point#WRITER_OPENED} and {@link Point#WRITE}
     */
    void at(Point point, SubtaskContext context, TransactionId transaction) throws IOException;
}
