package dev.eosink.testing.hardcases;

/**
 * What a hard case may need of a backend's database beyond what every backend gives. A backend names those its
 * database lacks ({@link ResourceBackend#lacking}), each with the reason; a case that {@link Needs} one of them is
 * not run on that backend, and the test report shows it disabled with that reason (never skipped silently).
 */
public enum Capability {

    /**
     * The rewind check: the sink can tell, from its marker rows, that it committed after a checkpoint was taken,
     * by comparing a marker's time with the checkpoint's epoch milliseconds ({@code MarkerSql.committedAfterSql}).
     */
    REWIND_CHECK,

    /**
     * A restarted writer waits for the sessions of the writer before it that may still prepare a branch (the XA
     * sink's branch lock, the PostgreSQL sink's guard on its one connection), so that recovery sees every branch
     * they prepare.
     */
    WAITS_FOR_EARLIER_SESSIONS
}
