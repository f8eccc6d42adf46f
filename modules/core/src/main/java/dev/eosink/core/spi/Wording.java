/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Objects;

/**
 * How the protocol's messages speak of a resource's transactions, in the resource's own words: a
 * file sink's operator must not read of row locks, nor a database's of pending files. Phrases, not
 * sentences; none may contain credentials. {@link #NEUTRAL} names no mechanism at all.
 *
 * @param missingMarker how a message says that the proof of a commit is missing. A transaction gone
 *     from the prepared ones and unmarked ({@link CommitSession#isMarked} false) fails the job as
 *     "prepared transaction ... is gone and <em>this</em>": either rolled back by someone else (its rows
 *     are lost) or committed with its proof deleted since (its rows are there). A database says "its
 *     marker row is absent", a file sink "its committed file is absent".
 * @param manualResolution how an operator lists the sink's prepared transactions and commits or rolls
 *     them back by hand, for the messages that send them there: "resolve them by hand (<em>this</em>)",
 *     "decide by hand (<em>this</em>): commit them if ..., roll them back otherwise". A script, page or
 *     command of the resource's own.
 * @param preparedHolds what a prepared transaction holds until it is committed or rolled back, and
 *     what waits for it, for the messages about transactions that stay prepared: "each holds
 *     <em>this</em>". A database names its row locks and, where the server bounds them, its slots of
 *     prepared transactions; a file sink its pending file.
 * @param findRows how an operator tells whether the records of a transaction that is gone and unmarked are in
 *     the resource (it committed, and only its proof was deleted since) or not (it was rolled back), for the
 *     message of such a transaction: "To tell which: <em>this</em>". The resource's own means, in a sentence or
 *     two; the message names the transaction, its subtask, checkpoint and row count before it.
 * @param restoreProof what an operator does when those records are there, so that a restore proves the
 *     commit again instead of failing: "If they are there, nothing is lost ...: <em>this</em>, and restore the
 *     job again".
 */
@PublicEvolving
public record Wording(
        String missingMarker, String manualResolution, String preparedHolds, String findRows, String restoreProof)
        implements Serializable {

    /** What {@link #findRows} says for a resource that names no means of its own. */
    public static final String FIND_ROWS_NEUTRAL = "look in the resource for the records that subtask wrote "
            + "between the barrier of the checkpoint before and that checkpoint's barrier";

    /** What {@link #restoreProof} says for a resource that names no means of its own. */
    public static final String RESTORE_PROOF_NEUTRAL = "recreate the proof of its commit (what the commit session's "
            + "isMarked reads) with the resource's own tools";

    /** The words of a resource that says nothing of its own mechanism. */
    public static final Wording NEUTRAL = new Wording(
            "no marker proves that it committed",
            "by their names, with the resource's own tools",
            "what the resource keeps for it until it is committed or rolled back");

    /**
     * Checks that each text is given: {@link IllegalArgumentException} for a null or blank one, naming the component.
     */
    public Wording {
        requireText(missingMarker, "missingMarker");
        requireText(manualResolution, "manualResolution");
        requireText(preparedHolds, "preparedHolds");
        requireText(findRows, "findRows");
        requireText(restoreProof, "restoreProof");
    }

    /**
     * The words of a resource that names no means of its own to find a transaction's records or to recreate the
     * proof of its commit: {@link #FIND_ROWS_NEUTRAL} and {@link #RESTORE_PROOF_NEUTRAL}.
     */
    public Wording(String missingMarker, String manualResolution, String preparedHolds) {
        this(missingMarker, manualResolution, preparedHolds, FIND_ROWS_NEUTRAL, RESTORE_PROOF_NEUTRAL);
    }

    // Written out: the compiler's versions would pin the job's class loader in a JDK-wide cache.
    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof Wording other
                        && missingMarker.equals(other.missingMarker)
                        && manualResolution.equals(other.manualResolution)
                        && preparedHolds.equals(other.preparedHolds)
                        && findRows.equals(other.findRows)
                        && restoreProof.equals(other.restoreProof);
    }

    @Override
    public int hashCode() {
        return Objects.hash(missingMarker, manualResolution, preparedHolds, findRows, restoreProof);
    }

    @Override
    public String toString() {
        return "Wording[missingMarker=" + missingMarker + ", manualResolution=" + manualResolution
                + ", preparedHolds=" + preparedHolds + ", findRows=" + findRows + ", restoreProof=" + restoreProof
                + "]";
    }

    private static void requireText(String phrase, String name) {
        if (phrase == null || phrase.isBlank()) {
            throw new IllegalArgumentException(name + " must be a phrase for the sink's messages, not empty");
        }
    }
}
