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
 *     "prepared transaction ... is gone and <em>this</em>: it was rolled back by someone other than this
 *     job, and its rows are LOST". A database says "its marker row is absent", a file sink "its
 *     committed file is absent".
 * @param manualResolution how an operator lists the sink's prepared transactions and commits or rolls
 *     them back by hand, for the messages that send them there: "resolve them by hand (<em>this</em>)",
 *     "decide by hand (<em>this</em>): commit them if ..., roll them back otherwise". A script, page or
 *     command of the resource's own.
 * @param preparedHolds what a prepared transaction holds until it is committed or rolled back, and
 *     what waits for it, for the messages about transactions that stay prepared: "each holds
 *     <em>this</em>". A database names its row locks and, where the server bounds them, its slots of
 *     prepared transactions; a file sink its pending file.
 */
@PublicEvolving
public record Wording(String missingMarker, String manualResolution, String preparedHolds) implements Serializable {

    /** The words of a resource that says nothing of its own mechanism. */
    public static final Wording NEUTRAL = new Wording(
            "no marker proves that it committed",
            "by their names, with the resource's own tools",
            "what the resource keeps for it until it is committed or rolled back");

    public Wording {
        requireText(missingMarker, "missingMarker");
        requireText(manualResolution, "manualResolution");
        requireText(preparedHolds, "preparedHolds");
    }

    // Written out: the compiler's versions would pin the job's class loader in a JDK-wide cache.
    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof Wording other
                        && missingMarker.equals(other.missingMarker)
                        && manualResolution.equals(other.manualResolution)
                        && preparedHolds.equals(other.preparedHolds);
    }

    @Override
    public int hashCode() {
        return Objects.hash(missingMarker, manualResolution, preparedHolds);
    }

    @Override
    public String toString() {
        return "Wording[missingMarker=" + missingMarker + ", manualResolution=" + manualResolution
                + ", preparedHolds=" + preparedHolds + "]";
    }

    private static void requireText(String phrase, String name) {
        if (phrase == null || phrase.isBlank()) {
            throw new IllegalArgumentException(name + " must be a phrase for the sink's messages, not empty");
        }
    }
}
