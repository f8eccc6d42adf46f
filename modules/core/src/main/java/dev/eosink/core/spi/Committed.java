package dev.eosink.core.spi;

/**
 * What a sink's marker rows say it committed in a range: how many transactions and rows, and the
 * lowest and highest checkpoint among them. For the warning (or refusal) when a job is restored from
 * a snapshot older than what the sink already committed.
 */
public final class Committed {

    private final long transactions;
    private final long rows;
    private final long firstCheckpoint;
    private final long lastCheckpoint;

    public Committed(long transactions, long rows, long firstCheckpoint, long lastCheckpoint) {
        this.transactions = transactions;
        this.rows = rows;
        this.firstCheckpoint = firstCheckpoint;
        this.lastCheckpoint = lastCheckpoint;
    }

    public long transactions() {
        return transactions;
    }

    public long rows() {
        return rows;
    }

    public long firstCheckpoint() {
        return firstCheckpoint;
    }

    public long lastCheckpoint() {
        return lastCheckpoint;
    }

    @Override
    public String toString() {
        return transactions + " transaction(s) with " + rows + " rows of checkpoints " + firstCheckpoint + " to "
                + lastCheckpoint;
    }
}
