package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.CheckpointOutcomes.Outcome;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;

import org.apache.flink.api.common.operators.MailboxExecutor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * What a writer's session uses to wait for the commit of the writer's previous transaction: see
 * {@link OwnCommits}. Between the barrier and the commit, only writes that may touch that
 * transaction's rows have to wait; the session knows which ones do.
 *
 * <p>It reads the writer's {@link PendingCommits} and never changes what they hold but by {@link
 * PendingCommits#refresh()}: like them, it is used by the task thread only.
 */
final class OwnCommitGate implements OwnCommits {

    private static final Logger LOG = LoggerFactory.getLogger(OwnCommitGate.class);

    private final SubtaskContext context;
    private final PendingCommits pending;
    /** The task's mailbox, where the committer's notification arrives while this gate waits. */
    private final MailboxExecutor mailbox;
    /**
     * How long to wait for the outcome of the checkpoint the last transaction belongs to: the job's
     * checkpoint timeout, after which that checkpoint cannot complete any more.
     */
    private final Duration checkpointTimeout;
    private final LongSupplier nanoClock;

    /**
     * The transaction whose commit the last wait gave up on: not waited for again in this epoch (the
     * session holds its statements past the barrier instead), but pending until it is committed.
     */
    private TransactionId gaveUpOn;

    /**
     * A restored run holds statements until its first barrier: before it, a restored committer of
     * another subtask may not have committed a transaction whose rows they touch (after a rescale,
     * keys move between subtasks), and a restored writer may not have written what its state carried
     * ({@link StartupRecovery}). Flink triggers the first checkpoint only once every task has
     * initialized, so once this writer snapshots it, both are done. Lifted at the end of input too:
     * nothing could carry the statements further.
     */
    private boolean holdUntilFirstBarrier;

    OwnCommitGate(
            SubtaskContext context,
            PendingCommits pending,
            MailboxExecutor mailbox,
            Duration checkpointTimeout,
            LongSupplier nanoClock) {
        this.context = context;
        this.pending = pending;
        this.mailbox = mailbox;
        this.checkpointTimeout = checkpointTimeout;
        this.nanoClock = nanoClock;
        this.holdUntilFirstBarrier = context.restoredCheckpointId().isPresent();
    }

    /** The writer snapshotted a checkpoint: see {@link #holdUntilFirstBarrier}. */
    void snapshotted() {
        holdUntilFirstBarrier = false;
    }

    /** The input ended: see {@link #holdUntilFirstBarrier}. */
    void inputEnded() {
        holdUntilFirstBarrier = false;
    }

    @Override
    public boolean pending() {
        pending.refresh();
        return holdUntilFirstBarrier || !pending.isEmpty();
    }

    /**
     * Lets the task run its mailbox (where the committer's notification arrives) until the committer
     * has committed this writer's previous transaction, so that the statement to come never waits for
     * row locks that only that commit releases: the commit could never run while the task thread
     * waits on the database. Gives up when that transaction's checkpoint was aborted, or is a plain
     * savepoint (either way its commit comes only with a later checkpoint, which this very thread
     * holds up), or when no outcome was heard within the checkpoint timeout (the checkpoint cannot
     * complete any more). A slow checkpoint is waited for, however long it takes within that bound.
     */
    @Override
    public boolean await() throws IOException {
        if (!pending()) {
            return true;
        }
        if (holdUntilFirstBarrier) {
            return false;
        }
        PendingCommits.Entry last = pending.newest().orElseThrow();
        if (last.id.equals(gaveUpOn)) {
            return false;
        }
        long deadline = last.preparedAtNanos + checkpointTimeout.toNanos();
        try {
            while (true) {
                pending.refresh();
                if (pending.isEmpty()) {
                    return true;
                }
                Outcome outcome = pending.outcome(last);
                if (outcome == Outcome.ABORTED || outcome == Outcome.PLAIN_SAVEPOINT) {
                    gaveUpOn = last.id;
                    LOG.info("{}: checkpoint {} of {} {}, so its commit comes only with a later checkpoint, which "
                                    + "this writer holds up while it waits; the writes that must follow that commit are "
                                    + "carried past the next barrier", context, last.checkpointId,
                            last.id, outcome == Outcome.ABORTED ? "was aborted" : "is a plain savepoint, which Flink "
                                    + "does not notify");
                    return false;
                }
                if (nanoClock.getAsLong() - deadline > 0) {
                    gaveUpOn = last.id;
                    LOG.warn("{}: no outcome of checkpoint {} of {} was heard within the checkpoint timeout of {}; "
                                    + "the writes that must follow its commit are carried past the next barrier",
                            context, last.checkpoint().isPresent() ? last.checkpointId : "?", last.id,
                            checkpointTimeout);
                    return false;
                }
                if (!mailbox.tryYield()) {
                    Thread.sleep(1);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while waiting for the commit of " + last.id, e);
        }
    }
}
