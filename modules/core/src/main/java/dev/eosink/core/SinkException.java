/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;

/**
 * Every failure the sink reports: the message always names the sink, the subtask and, where one is
 * involved, the table, the transaction id, the checkpoint and what to do about it.
 *
 * <p>It is an {@link IOException} because the Sink V2 methods declare that; Flink fails the task
 * and restarts it per the job's restart strategy, and the restarted task recovers idempotently.
 */
@PublicEvolving
public class SinkException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * A failure described by {@code message}, which names the sink, the subtask and the remedy (see the class comment).
     */
    public SinkException(String message) {
        super(message);
    }

    /**
     * A failure described by {@code message}, caused by {@code cause} (the database's or the driver's exception), which
     * Flink's failure report shows below it.
     */
    public SinkException(String message, Throwable cause) {
        super(message, cause);
    }
}
