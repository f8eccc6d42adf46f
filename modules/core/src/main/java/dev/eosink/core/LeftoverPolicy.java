/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a writer does with prepared transactions of its sink id that another job left behind, when
 * no state of this sink was restored: a fresh start, or a restore that did not give the sink its
 * state (a changed sink uid with {@code --allowNonRestoredState}, or state of another sink id).
 *
 * <p>The sink cannot tell such a transaction's story. It may belong to a checkpoint that never
 * completed: its records are replayed by sources that start over, and rolling it back is right. Or a
 * completed checkpoint or savepoint promised it (a savepoint does not notify the sink, so its
 * transactions stay prepared until a later checkpoint completes) and the restored sources resume
 * after that snapshot: then it is the only copy of its records, and rolling it back loses them.
 *
 * <p>Never consulted for what the sink can prove: a restored writer rolls back what is named after
 * the restored checkpoint and orphans of other lines of history, and leaves what the restored
 * committers hold; a job that restarts before its first completed checkpoint rolls back what its own
 * earlier attempts prepared. See {@code RecoveryPlan}.
 */
@PublicEvolving
public enum LeftoverPolicy {
    /**
     * Refuse to start (the default), naming each transaction, its age and the remedies: restore the job
     * with the sink's state, or decide by hand (commit or roll back, as the resource's
     * {@link dev.eosink.core.spi.Wording#manualResolution} says: sql/03-prepared-transactions.sql for PostgreSQL),
     * or set {@link #ROLLBACK} for a job whose sources replay everything from the start.
     */
    FAIL,
    /**
     * Roll them back and log each one at WARN: for jobs whose sources start over when the job starts
     * without state, so that whatever such a transaction holds is written again.
     */
    ROLLBACK
}
