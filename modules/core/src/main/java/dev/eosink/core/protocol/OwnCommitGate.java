/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.CheckpointOutcomes.Outcome;
import dev.eosink.core.spi.CarriedLedger;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What a writer's session uses to wait for the commit of the writer's previous transaction: see
 * {@link OwnCommits}. Between the barrier and the commit, only writes that may touch that
 * transaction's rows have to wait; the session knows which ones do.
 *
 * <p>What proves the commit: the signal of the writer's committer ({@link CommitSignals}, set after
 * the commit returned), which reaches the writer whenever the committer runs in this JVM, chained or
 * not; or the database, which no longer lists the transaction as prepared. A completion heard from
 * Flink ({@link CheckpointOutcomes}) is only a cue: with chaining disabled the outcome operator is
 * notified in a task of its own, before the committer has committed, and a DELETE run then misses the
 * rows the transaction inserted. The database is asked only when a commit is due that no signal proved
 * (the checkpoint was heard completed at least {@link #LOOK_INTERVAL} ago, or its outcome cannot be heard
 * in this JVM), and at most once per {@link #LOOK_INTERVAL}: never on the chained path, where the signal
 * comes with the completion. It is asked between epochs, and within one whenever the session is about to
 * run statements that wait for the commit ({@link #await}) or holds some ({@link #lookDue}): a committer
 * in another JVM signals nothing, and in a busy stream a newer transaction is always pending by the time
 * an epoch ends, so only a look within the epoch lets held statements run.
 *
 * <p>Waiting is only an optimization: the session can always carry the statements past the barrier
 * instead ({@link OwnCommits}). So every wait is bounded, by what can still end it: see {@link #await}.
 *
 * <p>It reads the writer's {@link PendingCommits} and never changes what they hold but by {@link
 * PendingCommits#refresh()} and {@link PendingCommits#retainOnly}: like them, it is used by the task
 * thread only.
 */
final class OwnCommitGate implements OwnCommits {

    private static final Logger LOG = LoggerFactory.getLogger(OwnCommitGate.class);

    /**
     * How long a wait lasts after the transaction's checkpoint was heard completed without its
     * committer's signal. A committer in this JVM signals as soon as its commit returns (a COMMIT
     * PREPARED takes milliseconds; a slow disk or a synchronous standby adds some); one in another JVM
     * never does, and the database, asked every {@link #LOOK_INTERVAL} meanwhile, tells. Past this, the
     * statements are carried past the barrier, which is always correct.
     */
    static final Duration COMMIT_AFTER_COMPLETION = Duration.ofSeconds(2);

    /**
     * How long a wait lasts when this JVM cannot hear the outcome of the transaction's checkpoint (its
     * outcome operator runs in another JVM): an abort is never heard then, and waiting for a commit that
     * only a later checkpoint brings would hold up that checkpoint's barrier, in this very thread, until
     * the checkpoint timeout, and fail every checkpoint behind it too. A healthy checkpoint completes and
     * commits within seconds of the writer's barrier; one slower than this is carried past the barrier
     * like an aborted one, at the cost of holding its statements in memory and state for an epoch.
     */
    static final Duration UNHEARD_WAIT = Duration.ofSeconds(10);

    /**
     * How often the database is asked, at most, whether a commit that no signal proved is done: one
     * query of the sink's prepared transactions. A committer in this JVM signals within milliseconds of
     * its commit, so a completion heard this long ago without a signal points to one in another JVM.
     */
    static final Duration LOOK_INTERVAL = Duration.ofMillis(100);

    /**
     * Lists the sink's prepared transactions in the database: between epochs, and within one from
     * {@link #await} (leaving the epoch's transaction alone: {@link Recovery#listPrepared}).
     */
    @FunctionalInterface
    interface PreparedListing {
        Collection<TransactionId> list() throws IOException;
    }

    /** The open notices of writes carried past a barrier ({@link CarriedLedger#openCarried}), within an epoch too. */
    @FunctionalInterface
    interface CarriedListing {
        List<CarriedNotice> list() throws IOException;
    }

    private final SubtaskContext context;
    private final PendingCommits pending;
    /** The task's mailbox, where the committer's notification arrives while this gate waits. */
    private final MailboxExecutor mailbox;
    /**
     * How long to wait for the outcome of the checkpoint the last transaction belongs to, when this JVM
     * hears its outcomes: the job's checkpoint timeout, after which that checkpoint cannot complete any
     * more.
     */
    private final Duration checkpointTimeout;

    private final LongSupplier nanoClock;
    private final PreparedListing database;

    /**
     * The transaction whose commit the last wait gave up on: not waited for again in this epoch (the
     * session holds its statements past the barrier instead), but pending until it is committed.
     */
    private TransactionId gaveUpOn;

    /** When the database was last asked ({@link #nanoClock}); far enough in the past before the first look. */
    private long lastLookNanos;

    /** The newest pending transaction whose checkpoint was heard completed, and when that was first seen. */
    private TransactionId completionSeenOf;

    private long completionSeenAtNanos;

    /**
     * A restored run holds statements until its first barrier: before it, a restored committer of
     * another subtask may not have committed a transaction whose rows they touch (after a rescale,
     * keys move between subtasks), and a restored writer may not have written what its state carried
     * ({@link StartupRecovery}). Flink triggers the first checkpoint only once every task has
     * initialized, so once this writer snapshots it, both are done. Lifted at the end of input too:
     * nothing could carry the statements further; but only once the restored committers are done
     * ({@link #inputEnded}).
     */
    private boolean holdUntilFirstBarrier;

    /** What the end of input of a restored run waits for before the held statements run. */
    private final EndOfInputWait endOfInput;

    /**
     * How the gate waits: in the task's mailbox, within the bounds of the job and the sink, timed on the
     * writer's clock.
     *
     * @param mailbox the task's mailbox, where the committer's notification arrives while the gate waits
     * @param checkpointTimeout the job's checkpoint timeout: see {@link OwnCommitGate#checkpointTimeout}
     * @param restoredCommitWait the sink's claim wait: see {@link EndOfInputWait}
     * @param nanoClock the writer's clock, in nanoseconds
     */
    record Waiting(
            MailboxExecutor mailbox, Duration checkpointTimeout, Duration restoredCommitWait, LongSupplier nanoClock) {

        // Written out, not generated by the compiler: the architecture test says why.
        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Waiting other
                            && Objects.equals(mailbox, other.mailbox)
                            && Objects.equals(checkpointTimeout, other.checkpointTimeout)
                            && Objects.equals(restoredCommitWait, other.restoredCommitWait)
                            && Objects.equals(nanoClock, other.nanoClock);
        }

        @Override
        public int hashCode() {
            return Objects.hash(mailbox, checkpointTimeout, restoredCommitWait, nanoClock);
        }

        @Override
        public String toString() {
            return "Waiting[checkpointTimeout=" + checkpointTimeout + ", restoredCommitWait=" + restoredCommitWait
                    + "]";
        }
    }

    /**
     * @param database lists the sink's prepared transactions in the database
     * @param carried lists the open notices of carried writes
     */
    OwnCommitGate(
            SubtaskContext context,
            PendingCommits pending,
            Waiting waiting,
            PreparedListing database,
            CarriedListing carried) {
        this.context = context;
        this.pending = pending;
        this.mailbox = waiting.mailbox();
        this.checkpointTimeout = waiting.checkpointTimeout();
        this.nanoClock = waiting.nanoClock();
        this.database = database;
        this.endOfInput = new EndOfInputWait(context, waiting, database, carried);
        this.holdUntilFirstBarrier = context.restoredCheckpointId().isPresent();
        this.lastLookNanos = nanoClock.getAsLong() - LOOK_INTERVAL.toNanos();
    }

    /** The writer snapshotted a checkpoint: see {@link #holdUntilFirstBarrier}. */
    void snapshotted() {
        holdUntilFirstBarrier = false;
    }

    /**
     * The input ended: the statements held until the first barrier ({@link #holdUntilFirstBarrier}) run
     * now, in the last epoch, as no epoch follows; but first, in a restored run whose input ended before its
     * first barrier, the gate waits for the restored committers and writers of other subtasks ({@link
     * EndOfInputWait}).
     */
    void inputEnded() throws IOException {
        if (!holdUntilFirstBarrier) {
            return;
        }
        holdUntilFirstBarrier = false;
        endOfInput.await();
    }

    @Override
    public boolean pending() {
        pending.refresh();
        return holdUntilFirstBarrier || !pending.isEmpty();
    }

    /**
     * Called by the writer between epochs (no transaction open): asks the database whether the newest
     * pending transaction is still prepared, when its commit is due and no signal proved it: its
     * checkpoint was heard completed, or its outcome cannot be heard in this JVM. Then drops what the
     * database no longer lists. One query at most, and none when nothing is due.
     */
    void betweenEpochs() throws IOException {
        pending.refresh();
        PendingCommits.Entry last = pending.newest().orElse(null);
        if (last == null) {
            return;
        }
        if (pending.outcome(last) == Outcome.COMPLETED || !pending.hearsOutcomes()) {
            look();
        }
    }

    /** {@link #betweenEpochs()}, then {@link #pending()}. */
    boolean pendingBetweenEpochs() throws IOException {
        betweenEpochs();
        return pending();
    }

    /**
     * Whether {@link #await} would now ask the database about a commit that is due and that no signal
     * proved: the newest pending transaction's checkpoint was heard completed at least {@link
     * #LOOK_INTERVAL} ago (or its outcome cannot be heard in this JVM, and it was prepared that long
     * ago), and the last look is that old too. No I/O: a session holding statements asks it with every
     * record.
     */
    @Override
    public boolean lookDue() {
        if (holdUntilFirstBarrier) {
            return false;
        }
        pending.refresh();
        PendingCommits.Entry last = pending.newest().orElse(null);
        return last != null && lookDue(last, nanoClock.getAsLong());
    }

    private boolean lookDue(PendingCommits.Entry last, long now) {
        long interval = LOOK_INTERVAL.toNanos();
        if (now - lastLookNanos < interval) {
            return false;
        }
        if (!pending.hearsOutcomes()) {
            return now - last.preparedAtNanos >= interval;
        }
        if (pending.outcome(last) != Outcome.COMPLETED) {
            return false;
        }
        if (!last.id.equals(completionSeenOf)) {
            completionSeenOf = last.id;
            completionSeenAtNanos = now;
        }
        return now - completionSeenAtNanos >= interval;
    }

    /** Asks the database; true when none of this writer's pending transactions is prepared any more. */
    private boolean look() throws IOException {
        lastLookNanos = nanoClock.getAsLong();
        pending.retainOnly(database.list());
        pending.refresh();
        return pending.isEmpty();
    }

    /**
     * Lets the task run its mailbox (where the committer's signal arrives) until the committer has
     * committed this writer's previous transaction, so that the statement to come never waits for row
     * locks that only that commit releases (the commit could never run while the task thread waits on
     * the database, when the committer is in this task) and never misses rows that transaction inserted.
     * Gives up, and the session carries its statements past the barrier, when:
     *
     * <ul>
     *   <li>that transaction's checkpoint was aborted, or is a plain savepoint: either way its commit
     *       comes only with a later checkpoint, which this very thread holds up;
     *   <li>the checkpoint was heard completed, and neither a signal nor the database (asked every {@link
     *       #LOOK_INTERVAL}) showed the commit within {@link #COMMIT_AFTER_COMPLETION}: the committer commits
     *       slowly;
     *   <li>this JVM hears the checkpoint's outcomes, and none was heard within the checkpoint timeout
     *       (the checkpoint cannot complete any more); a slow checkpoint is waited for, however long it
     *       takes within that bound;
     *   <li>this JVM cannot hear them, and the database did not show the commit within {@link
     *       #UNHEARD_WAIT}.
     * </ul>
     *
     * <p>Once it gave up on a transaction, later calls in the epoch do not wait for it again: each asks the
     * database once if a look is due ({@link #lookDue}), else says no at once.
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
            return lookDue(last, nanoClock.getAsLong()) && look();
        }
        boolean hears = pending.hearsOutcomes();
        Duration bound = hears || checkpointTimeout.compareTo(UNHEARD_WAIT) < 0 ? checkpointTimeout : UNHEARD_WAIT;
        long deadline = last.preparedAtNanos + bound.toNanos();
        long completedAt = 0;
        boolean completionHeard = false;
        try {
            while (true) {
                pending.refresh();
                if (pending.isEmpty()) {
                    return true;
                }
                Outcome outcome = pending.outcome(last);
                if (outcome == Outcome.ABORTED || outcome == Outcome.PLAIN_SAVEPOINT) {
                    LOG.info(
                            "{}: checkpoint {} of {} {}, so its commit comes only with a later checkpoint, which this "
                                    + "writer holds up while it waits; the writes that must follow that commit are carried "
                                    + "past the next barrier",
                            context,
                            last.checkpointId,
                            last.id,
                            outcome == Outcome.ABORTED
                                    ? "was aborted"
                                    : "is a plain savepoint, which Flink does not notify");
                    return giveUp(last);
                }
                long now = nanoClock.getAsLong();
                if (lookDue(last, now) && look()) {
                    return true;
                }
                if (outcome == Outcome.COMPLETED) {
                    if (!completionHeard) {
                        completionHeard = true;
                        completedAt = now;
                    } else if (now - completedAt > COMMIT_AFTER_COMPLETION.toNanos()) {
                        LOG.info(
                                "{}: checkpoint {} of {} completed, and neither its committer's signal nor the "
                                        + "database showed the commit within {} (the committer commits slowly); the writes that "
                                        + "must follow "
                                        + "that commit are carried past the next barrier",
                                context,
                                last.checkpointId,
                                last.id,
                                COMMIT_AFTER_COMPLETION);
                        return giveUp(last);
                    }
                } else if (now - deadline > 0) {
                    LOG.warn(
                            "{}: no outcome of checkpoint {} of {} was heard within {} ({}); the writes that must "
                                    + "follow its commit are carried past the next barrier",
                            context,
                            last.checkpoint().isPresent() ? last.checkpointId : "?",
                            last.id,
                            bound,
                            hears
                                    ? "the checkpoint timeout"
                                    : "this JVM runs no outcome operator of this subtask, so no abort can be heard");
                    return giveUp(last);
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

    /** Not waited for again in this epoch: the session carries its statements past the barrier. */
    private boolean giveUp(PendingCommits.Entry last) {
        gaveUpOn = last.id;
        return false;
    }
}
