/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.records;

/**
 * The records of the dead-letter tests of every database: ids whose row the database or the row
 * mapper refuses, five kinds per 500 ids, into a table {@code (id, payload)} with payload at most 12
 * characters, NOT NULL, and a CHECK constraint {@code payload <> 'bad'}.
 */
public final class DeadLetterRecords {

    /** Refused records per 500 ids: ids ending, per 500, in 37, 137, 237, 337 and 437. */
    public static final int BAD_PER_500 = 5;

    private DeadLetterRecords() {}

    /**
     * The row of a record: NULL payload (37), too long (137), against the CHECK (237), the mapper throws
     * (337), a duplicate of the id before it (437); {@code (id, "row-" + id)} for the others.
     */
    public static Object[] row(long id) {
        switch ((int) (id % 500)) {
            case 37:
                return new Object[] {id, null};
            case 137:
                return new Object[] {id, "far-too-long-for-twelve"};
            case 237:
                return new Object[] {id, "bad"};
            case 337:
                throw new IllegalStateException("no payload for order " + id);
            case 437:
                return new Object[] {id - 1, "duplicate"}; // id 436 came just before, in the same subtask
            default:
                return new Object[] {id, "row-" + id};
        }
    }
}
