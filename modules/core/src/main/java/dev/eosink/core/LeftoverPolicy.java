package dev.eosink.core;

/**
 * What a writer does when it starts without restored state (a fresh job, not a restore) and finds
 * prepared transactions of its own sink id and subtask in the database: the leftovers of an earlier
 * run that died before committing them.
 *
 * <p>A restored writer never consults this: after a restore, leftovers of checkpoints newer than the
 * restored one are always rolled back (they belong to checkpoints that did not complete), and older
 * ones are left to the restored committer.
 */
public enum LeftoverPolicy {
    /** Roll them back and log each one at WARN. The new run starts from scratch anyway. */
    ROLLBACK,
    /**
     * Refuse to start, naming the transactions. For operators who want to inspect or commit them by
     * hand first (see sql/03-prepared-transactions.sql).
     */
    FAIL
}
