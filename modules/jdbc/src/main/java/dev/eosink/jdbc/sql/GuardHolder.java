/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Whose session holds a sink's ownership guard that a starting writer could not take, as far as the
 * database can tell, and the refusal each case gets. The JDBC sinks mark their guard sessions with the
 * execution (see {@code SubtaskContext.execution()}); the refusals read alike whichever sink refuses.
 */
@PublicEvolving
public enum GuardHolder {

    /** The holder carries the claimant's execution mark: an earlier attempt of the same job, going away. */
    THIS,
    /** The holder carries no such mark: another job, or another submission of the same job. */
    OTHER,
    /** Not known: the holder let go meanwhile, or the database cannot tell. */
    UNKNOWN;

    /**
     * Why the claim gave up: {@code held} names the sink, subtask, guard and holding session and how long
     * the claim waited; {@code endSession} is the statement that ends that session. Another execution's
     * session fails the job without restarts (a {@link MisconfigurationException}: each restart would find
     * the same); an earlier attempt's, or one not known, fails the task, and Flink restarts it.
     */
    public SinkException refusal(String held, String endSession) {
        switch (this) {
            case OTHER:
                return new MisconfigurationException(held + ": a session of another execution (another job, or "
                        + "another submission of this job), not a task of this one going away. Two jobs with the "
                        + "same sink id would roll back each other's transactions, so this one refuses to start, and "
                        + "fails without restarts: each would find the same, and once the other job ended this one "
                        + "would write its input a second time. Remedy: stop the other job, or give this sink a "
                        + "different sink id. If no live job owns that session (its TaskManager died and the server "
                        + "has not noticed yet), end it (" + endSession + ") and submit the job again.");
            case THIS:
                return new SinkException(held + ": a session of an earlier attempt of this job, which is going away "
                        + "(its task is being cancelled, or its TaskManager died and the server has not noticed yet). "
                        + "The task fails and the restarted one waits for it again. Remedy: if it stays, end it ("
                        + endSession + "), or raise claimWait.");
            default:
                return new SinkException(held + ". Two jobs with the same sink id would roll back each other's "
                        + "transactions, so this one refuses to start. Remedy: stop the other job, or give this sink "
                        + "a different sink id.");
        }
    }
}
