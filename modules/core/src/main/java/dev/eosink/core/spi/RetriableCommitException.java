/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;

/**
 * A commit attempt whose outcome is unknown or may still change: the connection was lost during
 * the call, the server restarted, or another session is finishing the same transaction
 * (PostgreSQL 55000). The committer looks again, then retries with a bound. A resource whose commit
 * is one local, atomic step (a rename) has no such outcome and never throws it.
 */
@PublicEvolving
public class RetriableCommitException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * A commit attempt described by {@code message} (the transaction and what happened to the call), whose outcome
     * {@code cause} left unknown.
     */
    public RetriableCommitException(String message, Throwable cause) {
        super(message, cause);
    }
}
