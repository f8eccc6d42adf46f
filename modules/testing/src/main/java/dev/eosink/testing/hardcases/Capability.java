/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

/**
 * What a hard case may assume of a backend's database beyond what every backend gives. A backend names those its
 * database lacks ({@link ResourceBackend#lacking}), each with the reason. No case is skipped for it: a case that
 * meets one asks the backend ({@link ResourceBackend#lacks}) and asserts there what the database documents
 * instead, and still ends on exact counts and no prepared transaction left.
 */
public enum Capability {

    /**
     * A restarted writer waits for the sessions of the writer before it that may still prepare a branch (the XA
     * sink's branch lock, the PostgreSQL sink's guard on its one connection), so that recovery sees every branch
     * they prepare.
     */
    WAITS_FOR_EARLIER_SESSIONS,

    /**
     * A write that meets a row of a branch left prepared by a session that is gone waits for the branch's locks
     * (until the branch is rolled back, or the lock timeout), rather than failing at once: what lets the subtask
     * that owns such a leftover roll it back at start while another subtask's writes wait.
     */
    WRITES_WAIT_FOR_PREPARED_ROWS,

    /**
     * The committer's commit of a branch runs on the committer's own connection, so that its watchdog, which
     * aborts that connection, ends a commit the network stalls within the network timeout.
     */
    COMMITS_ON_THE_COMMITTERS_CONNECTION
}
