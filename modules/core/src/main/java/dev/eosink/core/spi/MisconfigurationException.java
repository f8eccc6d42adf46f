/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import dev.eosink.core.SinkException;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a start-up check throws when it found what no restart of the job can change: a setting of the
 * resource (PostgreSQL's {@code max_prepared_transactions}), a missing table, column or privilege, a
 * record type the target cannot take, or the sink id owned by another live job. Thrown from {@link
 * TransactionalDatabase#openWriter} or {@link TransactionalDatabase#openCommitter}, or from a method of a
 * {@link WriterSession}'s roles the writer calls before its first record ({@link Recovery#claim}, say),
 * it fails the job without restarts: Flink would otherwise restart the job per its restart strategy,
 * find the same at every attempt, and either never give up or bury the reason under identical
 * failures. The message names what was found and the remedy.
 *
 * <p>Throw it only for an answer the resource gave (a setting it reported, a grant or table it does
 * not have, a refusal for what the statement is). Anything a restart may find otherwise (the resource
 * down or unreachable, a connection refused or cut, a timeout, a guard held by a session that is going
 * away) is a plain {@link SinkException}, and Flink restarts the job. Thrown anywhere else, it fails
 * the task like any {@link SinkException}.
 */
@PublicEvolving
public class MisconfigurationException extends SinkException {

    private static final long serialVersionUID = 1L;

    /** A misconfiguration described by {@code message}, which names what was found and the remedy. */
    public MisconfigurationException(String message) {
        super(message);
    }

    /**
     * A misconfiguration described by {@code message}, which names what was found and the remedy, as the resource
     * reported it in {@code cause}.
     */
    public MisconfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
