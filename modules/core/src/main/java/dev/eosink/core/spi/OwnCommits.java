/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;

/**
 * What a writer session uses to wait for the commit of its own previous, prepared transaction. Only a
 * resource whose prepared transactions lock what the next epoch writes needs it (a database's row
 * locks, for upserts); one without locks (files appended to) ignores it.
 *
 * <p>Why a session may need to: a prepared transaction keeps the row locks of every row it wrote
 * until COMMIT PREPARED. A statement of the next epoch that touches one of those rows (an upsert of
 * a key the previous epoch wrote) waits for that commit on the database. But the commit is delivered
 * to the very task thread that now waits: without help it would wait until the lock timeout. Worse,
 * a DELETE does not wait at all: the rows that transaction inserted are not committed, so it does not
 * see them, and misses them. So,
 * before running such a statement, the session calls {@link #await()}, which lets the task process
 * its other work (the committer's notification among it) until the commit is done.
 *
 * <p>Sessions decide when: an upsert session defers the statements that may touch the previous
 * epoch's rows and keeps writing rows that cannot (keys it never wrote), so the wait mostly costs
 * nothing. Calls come from the task thread only (inside {@code write} or {@code flush}).
 *
 * <p>Some commits cannot be waited for: when the previous transaction's checkpoint was aborted, or
 * was a plain savepoint, its commit comes only with a later checkpoint, whose barrier this very
 * thread would hold up. Then {@link #await()} says no, and the session holds those statements past
 * the barrier ({@link HeldWrites#carried()}), writing them into the epoch after the commit: never
 * before it, and never lost (the checkpoint's state keeps them).
 */
@PublicEvolving
public interface OwnCommits {

    /**
     * Whether a statement that may touch rows of this writer's earlier transactions must not run yet:
     * the previous prepared transaction is not known to be committed, or this run was restored and has
     * not passed its first barrier (until then, restored committers and restored writers may still
     * be committing writes that precede this run's).
     */
    boolean pending();

    /**
     * Returns true once such a statement may run: at once if nothing is {@link #pending()}, else once
     * the previous transaction is committed, meanwhile running the task's mailbox. Returns false when
     * it cannot be waited for now: its checkpoint was aborted or was a plain savepoint, no outcome
     * was heard within the checkpoint timeout, or the restored run has not passed its first barrier.
     * The session then holds the statement and carries it past the barrier; later calls in the same
     * epoch say false at once.
     */
    boolean await() throws IOException;

    /**
     * Whether {@link #await()} would now look at the database for the pending commit, which no signal of
     * a committer in this JVM proved (its committer runs in another JVM, or its checkpoint's outcome
     * cannot be heard here): a session that holds statements asks it with each record, cheaply (no I/O),
     * and when it says yes, calls {@link #await()}, which looks (through {@link Recovery#listPrepared},
     * which must then leave the epoch's transaction alone) and says whether the database shows the commit.
     * Without it, a committer in another JVM would release held statements only when the input pauses,
     * since in a busy stream a newer transaction is always pending.
     */
    default boolean lookDue() {
        return false;
    }

    /** For sessions used outside a Flink task (tests, tools): never pending. */
    OwnCommits NONE = new OwnCommits() {
        @Override
        public boolean pending() {
            return false;
        }

        @Override
        public boolean await() {
            return true;
        }
    };
}
