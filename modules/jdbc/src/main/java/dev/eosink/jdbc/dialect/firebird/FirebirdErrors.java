/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.ErrorKinds;

import java.sql.SQLException;

/**
 * Firebird's errors as Jaybird 6 reports them (measured on Firebird 3.0.11): a record's data is refused with
 * SQLSTATE 23000 (335544347 NOT NULL, 335544665 unique key, 335544558 CHECK), 22018 (335544334 conversion in the
 * server), 22001 (a {@code DataTruncation} Jaybird throws before sending a string too long) or 07006 (a {@code
 * TypeConversionException} Jaybird throws for a value it cannot bind to the parameter's type). A lock conflict
 * is 40001 / 335544336 ({@code isc_deadlock}, "update conflicts with concurrent update") whether the wait ran into
 * the lock timeout, a NO WAIT transaction met a lock, or the server found a deadlock: Jaybird's exception carries
 * nothing more. A record of a branch in limbo is HY000 / 335544459, a missing table 42S02 / 335544580.
 */
final class FirebirdErrors implements ErrorKinds {

    /** {@code isc_deadlock}: a lock conflict, after the lock timeout, at once without wait, or a deadlock. */
    static final int LOCK_CONFLICT = 335544336;
    /** {@code isc_rec_in_limbo}: a record of a transaction prepared by a session that is gone. */
    static final int RECORD_IN_LIMBO = 335544459;
    /** {@code isc_dsql_relation_err}: "Table unknown". */
    static final int TABLE_UNKNOWN = 335544580;

    /**
     * The standard classes, and Jaybird's client-side conversion refusal (07006), which is the record's value too.
     * A record in limbo (HY000) is never the record's fault: it is another branch's row, and the epoch fails.
     */
    @Override
    public boolean rejectsRecord(SQLException e) {
        if (e.getErrorCode() == RECORD_IN_LIMBO) {
            return false;
        }
        return ErrorKinds.super.rejectsRecord(e) || "07006".equals(e.getSQLState());
    }

    /**
     * 335544336 anywhere in the chain. On a connection whose transactions wait with a lock timeout (the writer's),
     * that is a wait that ran into it, or a deadlock the server found (after its DeadlockTimeout, 10 s by default):
     * both are a wait for another transaction's lock, and the message names that transaction's number.
     */
    @Override
    public boolean isLockTimeout(SQLException e) {
        return ErrorKinds.chain(e).stream().anyMatch(x -> x.getErrorCode() == LOCK_CONFLICT);
    }

    @Override
    public boolean isMissingTable(SQLException e) {
        return ErrorKinds.super.isMissingTable(e)
                || ErrorKinds.chain(e).stream().anyMatch(x -> x.getErrorCode() == TABLE_UNKNOWN);
    }

    /** Whether {@code e} reports a record of a branch in limbo. */
    static boolean inLimbo(SQLException e) {
        return ErrorKinds.chain(e).stream().anyMatch(x -> x.getErrorCode() == RECORD_IN_LIMBO);
    }
}
