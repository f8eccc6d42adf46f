/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A transaction that a completed checkpoint promised to commit is neither prepared nor committed:
 * somebody else rolled it back (an operator, another job with the same sink id). Its rows are lost.
 * The sink never assumes success in this case; it fails, naming the transaction.
 */
@PublicEvolving
public class TransactionLostException extends SinkException {

    private static final long serialVersionUID = 1L;

    /**
     * A lost transaction described by {@code message}, which names the transaction, its sink, subtask and checkpoint.
     */
    public TransactionLostException(String message) {
        super(message);
    }
}
