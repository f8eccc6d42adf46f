/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Optional;

/** What a change event did to its table, from the envelope's {@code op} field. */
@PublicEvolving
public enum ChangeKind {
    /** {@code c}: a row inserted; the event has the row after, no row before. */
    INSERT("c"),
    /** {@code r}: a row read by a snapshot; the event has the row after, no row before. */
    SNAPSHOT_READ("r"),
    /** {@code u}: a row updated; the event has the row after and, when the connector gives it, the row before. */
    UPDATE("u"),
    /** {@code d}: a row deleted; the event has no row after, and a row before when the connector gives it. */
    DELETE("d"),
    /** {@code t}: the table truncated; the event has no key and no rows. */
    TRUNCATE("t");

    private final String op;

    ChangeKind(String op) {
        this.op = op;
    }

    /** The envelope's {@code op} code of this kind. */
    public String op() {
        return op;
    }

    /** Whether an event of this kind carries the row after the change. */
    public boolean hasRowAfter() {
        return this == INSERT || this == SNAPSHOT_READ || this == UPDATE;
    }

    /** The kind of an {@code op} code; empty for any other code (such as {@code m}, a logical decoding message). */
    public static Optional<ChangeKind> ofOp(String op) {
        for (ChangeKind kind : values()) {
            if (kind.op.equals(op)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}
