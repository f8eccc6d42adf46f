package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a sink's marker rows say it committed in a range: how many transactions and rows, and the
 * lowest and highest checkpoint among them. For the warning (or refusal) when a job is restored from
 * a snapshot older than what the sink already committed.
 *
 * @param transactions how many transactions committed in the range
 * @param rows how many rows they wrote
 * @param firstCheckpoint the lowest checkpoint among them
 * @param lastCheckpoint the highest checkpoint among them
 */
@PublicEvolving
public record Committed(long transactions, long rows, long firstCheckpoint, long lastCheckpoint) {

    /** "3 transaction(s) with 1200 rows of checkpoints 5 to 7": how messages show it. */
    @Override
    public String toString() {
        return transactions + " transaction(s) with " + rows + " rows of checkpoints " + firstCheckpoint + " to "
                + lastCheckpoint;
    }
}
