/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import org.apache.flink.annotation.PublicEvolving;

/**
 * The {@link TransactionAssembler} cannot make whole source transactions of its input: an END's counts and the
 * events disagree, or a transaction stays incomplete past the assembler's bound. The message names the transaction,
 * the counts and what to check. The job fails: going on would commit part of a transaction or grow state for ever.
 */
@PublicEvolving
public final class TransactionAssemblyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}, which names the transaction, the counts and what to check. */
    public TransactionAssemblyException(String message) {
        super(message);
    }
}
