/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.SubtaskContext;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The wait of a restored writer whose input ended before its first barrier, before the statements its
 * {@link OwnCommitGate} held since the start run in the last epoch. The input of a restored run can end
 * before its first barrier, while a restored committer of another subtask is still committing a transaction
 * whose rows they touch (it commits as its task initializes, and a slow commit keeps that task from running):
 * a delete run before that commit would miss its rows. So the writer waits, letting the mailbox run, until
 * the database lists no transaction of the sink named at or before the restored checkpoint that another
 * subtask owns (each is committed by a restored committer, or is an orphan its owner rolls back at its first
 * barrier), and no notice of writes carried past a barrier is open (each is written by the restored writer
 * that holds it as its task starts, or given up). This writer's own are left to its recovery, which waited
 * for the promised ones at start.
 *
 * <p>Invariant: the wait is bounded by the claim wait, as the start's wait for restored committers is
 * ({@link StartWaits}), and as there extended, by {@link StartWaits#BUSY_COMMITTER_WAIT} at most, only while
 * a committer of this sink in this JVM is inside a commit call ({@link LocalCommitters}); past it, with a
 * warning, the statements run all the same, as an orphan's rows are never visible.
 */
final class EndOfInputWait {

    // The gate's decisions are logged under one name, whatever part of it takes them.
    private static final Logger LOG = LoggerFactory.getLogger(OwnCommitGate.class);

    private final SubtaskContext context;
    /** The task's mailbox, run while the wait lasts. */
    private final MailboxExecutor mailbox;
    /**
     * How long the end of input waits, at most, for the restored committers of other subtasks: the
     * sink's claim wait, which bounds the start's wait for them too ({@link StartWaits}).
     */
    private final Duration restoredCommitWait;

    private final LongSupplier nanoClock;
    private final OwnCommitGate.PreparedListing database;
    private final OwnCommitGate.CarriedListing carried;

    /**
     * @param waiting the gate's mailbox, claim wait and clock
     * @param database lists the sink's prepared transactions in the database
     * @param carried lists the open notices of carried writes
     */
    EndOfInputWait(
            SubtaskContext context,
            OwnCommitGate.Waiting waiting,
            OwnCommitGate.PreparedListing database,
            OwnCommitGate.CarriedListing carried) {
        this.context = context;
        this.mailbox = waiting.mailbox();
        this.restoredCommitWait = waiting.restoredCommitWait();
        this.nanoClock = waiting.nanoClock();
        this.database = database;
        this.carried = carried;
    }

    /** Waits as the class comment says; called once, when the input of a restored run ended before its first barrier. */
    void await() throws IOException {
        long restored = context.restoredCheckpointId().orElseThrow();
        long deadline = nanoClock.getAsLong() + restoredCommitWait.toNanos();
        boolean busyLogged = false;
        try {
            while (true) {
                List<TransactionId> others = new ArrayList<>();
                for (TransactionId id : database.list()) {
                    if (id.checkpointId() <= restored
                            && !RecoveryPlan.isOwner(context.subtask(), context.parallelism(), id.subtask())) {
                        others.add(id);
                    }
                }
                // The writes other restored writers carried, which each writes as its task starts: after a
                // rescale they may touch keys this subtask now owns, and must come before its statements (a
                // statement run first would hold the row lock the carried write then waits for).
                List<CarriedNotice> notices = carried.list();
                if (others.isEmpty() && notices.isEmpty()) {
                    return;
                }
                long past = nanoClock.getAsLong() - deadline;
                if (past > 0
                        && past < StartWaits.BUSY_COMMITTER_WAIT.toNanos()
                        && LocalCommitters.committing(context)) {
                    // As at start: a restored committer of this sink in this JVM still inside its commit call is
                    // slow, not missing; a delete run before its commit ends would miss the rows it makes visible.
                    if (!busyLogged) {
                        busyLogged = true;
                        LOG.info(
                                "{}: the claim wait ({}) passed at the end of input with {} still prepared and {} "
                                        + "carried writes not yet written, and a committer of this sink in this JVM is still "
                                        + "committing: waiting for it, up to {} more, before the held statements run",
                                context,
                                restoredCommitWait,
                                others,
                                notices,
                                StartWaits.BUSY_COMMITTER_WAIT);
                    }
                } else if (past > 0) {
                    LOG.warn(
                            "{}: the input ended before the first checkpoint of the run restored from checkpoint {}, "
                                    + "and after the claim wait ({}) these transactions of other subtasks named at or before it "
                                    + "are still prepared: {}, and these writes carried past a barrier are not yet written: {}. "
                                    + "Restored committers commit what the checkpoint promised, and restored writers write what "
                                    + "they carried, as their tasks start, so these are orphans of another line of history "
                                    + "(or of a state not restored), or a task slower than the claim wait; the statements held "
                                    + "since the start run now",
                            context,
                            restored,
                            restoredCommitWait,
                            others,
                            notices);
                    return;
                }
                if (!mailbox.tryYield()) {
                    Thread.sleep(OwnCommitGate.LOOK_INTERVAL.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(
                    context + ": interrupted while waiting, at the end of input, for the restored "
                            + "committers of other subtasks",
                    e);
        }
    }
}
