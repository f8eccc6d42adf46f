/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.RecoveryPlan.Verdict;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * The rewind check of a restored writer: whether the sink committed, since the restored checkpoint was taken,
 * what a restore of it writes again ({@link Recovery#committedAfter}), announced under {@link RewindPolicy#WARN}
 * and refused under {@link RewindPolicy#FAIL}.
 *
 * <p>Invariant: it runs before this start writes, rolls back or gives up anything, so that a refused rewind
 * leaves everything as it found it, the transactions of a later snapshot too (restoring that snapshot is the
 * refusal's remedy).
 */
final class RewindCheck {

    // The start's decisions are logged under one name, whatever part of it takes them.
    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    private final Recovery session;
    private final StartRefusal refusal;

    RewindCheck(SubtaskContext context, SinkSettings settings, String target, Recovery session, StartRefusal refusal) {
        this.context = context;
        this.settings = settings;
        this.target = target;
        this.session = session;
        this.refusal = refusal;
    }

    /**
     * Asks the marker table whether the sink committed checkpoints after the restored one since it was taken,
     * or anything at all by another execution than the one that took it (another line of history: a fresh
     * start of the job numbers its checkpoints from 1 again): then the job is being rewound, and every record
     * after it is written again. Subtask 0 warns (the default,
     * {@link RewindPolicy#WARN}); under {@link RewindPolicy#FAIL} every writer with restored state asks, before it
     * writes or gives up anything, so that no subtask of a refused rewind writes what its state carried while
     * subtask 0 refuses.
     */
    void check(Collection<WriterState> restored) throws IOException {
        OptionalLong restoredId = context.restoredCheckpointId();
        if (restoredId.isEmpty() || context.subtask() != 0 && settings.rewindPolicy() != RewindPolicy.FAIL) {
            return;
        }
        List<WriterState> ofRestored = restored.stream()
                .filter(s -> s.sinkId().equals(context.sinkId()) && s.checkpointId() == restoredId.getAsLong())
                .collect(Collectors.toList());
        OptionalLong takenAt = WriterState.takenAt(ofRestored);
        if (takenAt.isEmpty()) {
            return;
        }
        Optional<Committed> after =
                session.committedAfter(restoredId.getAsLong(), takenAt.getAsLong(), WriterState.takenBy(ofRestored));
        if (after.isEmpty() || after.get().transactions() == 0) {
            return;
        }
        Committed c = after.get();
        String message = context + ", " + target + ": this job is restored from checkpoint " + restoredId.getAsLong()
                + ", but since that checkpoint was taken (" + java.time.Instant.ofEpochMilli(takenAt.getAsLong())
                + ") the sink committed " + c + ". Every record after the restored checkpoint is written again: rows "
                + "committed since stay: an append table gets them twice; an upsert table converges, but for keys that "
                + "another run of the sink id (a fresh start, say) wrote and whose last record comes before the "
                + "restored checkpoint: they keep that run's value.";
        if (settings.rewindPolicy() == RewindPolicy.FAIL) {
            throw refusal.refuse(new SinkException(message + " Refused (rewindPolicy FAIL), and the job "
                    + "fails without restarts (a restart would find the same); nothing of this job became visible. "
                    + "Remedy: restore the latest checkpoint or savepoint instead, or set rewindPolicy(WARN) if the "
                    + "replay is intended."));
        }
        if (context.subtask() == 0) {
            LOG.warn(
                    "{} Restore the latest checkpoint unless the replay is intended (rewindPolicy(FAIL) refuses such "
                            + "restores).",
                    message);
        }
    }

    /**
     * Under {@code rewindPolicy(FAIL)}, a subtask that got no writer state of the restored checkpoint (new to it
     * after a rescale up) cannot check the rewind itself: the check needs the time the checkpoint was taken and
     * the execution that took it, which only the writer state holds. Nor can it rule a rewind out: another run's
     * commits may be numbered at or below the restored checkpoint (a fresh start counts from 1 again). So if it
     * would roll back another execution's transactions named after the restored checkpoint, it first waits up
     * to claimWait, so that a subtask that can check refuses the start before this one rolls back what a later
     * snapshot may have promised (the refusal's remedy is to restore that snapshot). The refusal fails the job,
     * and its cancellation ends this wait. Bounded, not a proof: a subtask that checks and starts later than
     * claimWait after this one still comes too late. The price: such a start that is no rewind waits claimWait.
     */
    void awaitCheckElsewhere(Collection<WriterState> restored, RecoveryPlan plan) throws IOException {
        OptionalLong restoredId = context.restoredCheckpointId();
        if (settings.rewindPolicy() != RewindPolicy.FAIL
                || restoredId.isEmpty()
                || restored.stream()
                        .anyMatch(s -> s.sinkId().equals(context.sinkId())
                                && s.checkpointId() == restoredId.getAsLong()
                                && s.snapshotAtMillis().isPresent())) {
            return;
        }
        List<TransactionId> later = plan.rollBackAtStart().stream()
                .filter(id -> plan.verdictOf(id) == Verdict.AFTER_RESTORED
                        && !id.executionTag().equals(context.execution()))
                .collect(Collectors.toList());
        if (later.isEmpty()) {
            return;
        }
        LOG.info(
                "{}: no writer state of restored checkpoint {} came to this subtask, so it cannot check the rewind "
                        + "(rewindPolicy FAIL) itself; waiting {} for the subtasks that can, before rolling back {}, of other "
                        + "executions, which a later snapshot may have promised",
                context,
                StartupRecovery.restoredIdText(context),
                settings.claimWait(),
                StartupRecovery.names(later));
        long deadline = System.nanoTime() + settings.claimWait().toNanos();
        while (System.nanoTime() - deadline < 0) {
            StartWaits.pause(context, "waiting for the rewind check of the subtasks with writer state");
        }
    }
}
