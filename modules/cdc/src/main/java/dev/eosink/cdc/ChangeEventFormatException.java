/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

/**
 * An event this module cannot read: not JSON, not shaped as Debezium writes it, or with a type it does not take.
 * The message names the field ({@link #fieldPath()}, such as {@code value.payload.after.price}) and what is wrong,
 * with at most a short excerpt of the offending value, never the whole event, which may be large.
 */
@PublicEvolving
public class ChangeEventFormatException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String fieldPath;

    /**
     * The field at {@code fieldPath} (dotted, from the record: {@code value.payload.after.price}) is wrong as {@code
     * problem} says; the message is both.
     */
    public ChangeEventFormatException(String fieldPath, String problem) {
        super(fieldPath + ": " + problem);
        this.fieldPath = fieldPath;
    }

    /** The same, caused by {@code cause}, the exception that reading the value threw. */
    public ChangeEventFormatException(String fieldPath, String problem, Throwable cause) {
        super(fieldPath + ": " + problem, cause);
        this.fieldPath = fieldPath;
    }

    /** Where in the event: {@code key} or {@code value}, then the JSON fields down to the offending one. */
    public String fieldPath() {
        return fieldPath;
    }
}
