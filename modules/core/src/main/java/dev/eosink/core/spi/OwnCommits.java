package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;

/**
 * What a writer session uses to wait for the commit of its own previous, prepared transaction.
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
 */
@PublicEvolving
public interface OwnCommits {

    /** Whether the previous prepared transaction of this writer is not known to be committed yet. */
    boolean pending();

    /**
     * Returns once the previous prepared transaction is committed, at once if it is or if there is
     * none: then true. Meanwhile the task runs its mailbox. Gives up after a bound and returns false:
     * its checkpoint may have been declined, and then the commit comes only with the next completed
     * checkpoint, which cannot complete while this thread waits. The session then runs its statement
     * anyway, with a short lock timeout, so that a real conflict becomes a prompt failover; but only a
     * statement that would wait for that transaction's locks: PostgreSQL's INSERT ... ON CONFLICT waits
     * for a row that transaction inserted, a DELETE does not see such a row and would silently miss it,
     * so a session fails over rather than run a delete then.
     */
    boolean await() throws IOException;

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
