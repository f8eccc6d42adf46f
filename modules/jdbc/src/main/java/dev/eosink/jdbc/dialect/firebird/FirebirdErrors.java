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
 *
 * <p>A unique key violation (23000 / 335544665, or 335544349 for a unique index without a constraint) is no refused
 * record here: the key may be held by a branch prepared by another session, not by a committed row. A branch of a
 * live session makes the insert wait the lock timeout and then fail with the same 335544665 as a committed duplicate
 * (measured), and only its session being gone (in limbo) tells it apart. Firebird has no branch lock, so such a
 * branch can be an orphan of an earlier attempt that the next recovery rolls back: kept as a dead letter, the
 * record would end in the dead-letter table only. So the epoch fails, and a record that truly duplicates a key fails
 * the job naming it, as without a dead-letter table.
 */
final class FirebirdErrors implements ErrorKinds {

    /** {@code isc_deadlock}: a lock conflict, after the lock timeout, at once without wait, or a deadlock. */
    static final int LOCK_CONFLICT = 335544336;
    /** {@code isc_rec_in_limbo}: a record of a transaction prepared by a session that is gone. */
    static final int RECORD_IN_LIMBO = 335544459;
    /** {@code isc_dsql_relation_err}: "Table unknown". */
    static final int TABLE_UNKNOWN = 335544580;
    /** {@code isc_unique_key_violation}: "violation of PRIMARY or UNIQUE KEY constraint". */
    static final int UNIQUE_KEY_VIOLATION = 335544665;
    /** {@code isc_no_dup}: "attempt to store duplicate value ... in unique index" (an index without a constraint). */
    static final int DUPLICATE_IN_UNIQUE_INDEX = 335544349;

    /**
     * The standard classes, and Jaybird's client-side conversion refusal (07006), which is the record's value too.
     * A record in limbo (HY000) is never the record's fault: it is another branch's row, and the epoch fails. Nor is
     * a unique key violation, which a prepared branch's key makes too (see the class).
     */
    @Override
    public boolean rejectsRecord(SQLException e) {
        int code = e.getErrorCode();
        if (code == RECORD_IN_LIMBO || code == UNIQUE_KEY_VIOLATION || code == DUPLICATE_IN_UNIQUE_INDEX) {
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
