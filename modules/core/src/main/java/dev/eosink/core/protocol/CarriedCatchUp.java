/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;

import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The writes that restored writers carried past their barriers ({@link dev.eosink.core.spi.HeldWrites#carried()}),
 * at start: written by the writer that restored them, or given up.
 *
 * <p>Invariant: writes that the resource shows as never written ({@link
 * dev.eosink.core.spi.CarriedLedger#openCarried()}) are written by the writer that restored them, after every
 * earlier transaction of the writer that carried them is no longer prepared and before this writer's first record,
 * or given up only when the restore provably supersedes them (it replays their records, or abandons their line
 * of history) or the leftover policy says so; a start that cannot see them is refused like a leftover (they may
 * be the only record of their keys' last state).
 */
final class CarriedCatchUp {

    // The start's decisions are logged under one name, whatever part of it takes them.
    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    private final Recovery session;
    private final CarriedCapability carried;

    CarriedCatchUp(
            SubtaskContext context, SinkSettings settings, String target, Recovery session, CarriedCapability carried) {
        this.context = context;
        this.settings = settings;
        this.target = target;
        this.session = session;
        this.carried = carried;
    }

    /**
     * Catches up on what each restored writer state of this sink carried, once recovery released the adopted
     * guards; refuses a state of another sink id that carries writes: they must follow that sink id's own
     * prepared transactions.
     */
    void catchUp(Collection<WriterState> restored, List<CarriedNotice> notices) throws IOException {
        for (WriterState state : restored) {
            if (state.sinkId().equals(context.sinkId())) {
                catchUp(state, notices);
            } else if (state.carries()) {
                throw new SuppressRestartsException(new SinkException(context + ", " + target + ": the writer state of "
                        + "subtask " + state.subtask() + " in checkpoint " + state.checkpointId()
                        + " carries writes of "
                        + "sink id '" + state.sinkId()
                        + "', which must follow that sink id's own prepared transactions; "
                        + "this sink is '" + context.sinkId() + "'. Refused, and the job fails without restarts (a "
                        + "restart would find the same). Remedy: restore with the sink id that took the checkpoint, and "
                        + "change it only after a checkpoint that carries nothing"));
            }
        }
    }

    /**
     * What the writer that took {@code state} left unwritten: the writes it carried past its barrier (see {@link
     * dev.eosink.core.spi.HeldWrites#carried()}), which must follow the commit of that writer's earlier
     * transactions. So they wait until none of that writer's transactions is prepared any more: the restored committers commit those
     * the checkpoint promised while they initialize (before any checkpoint of this run, so this wait never holds
     * one up), and recovery rolls back the others at start. They are written before this writer's first
     * record and before the run's first checkpoint, so every replayed write of their keys comes after them.
     * When the state carries nothing but the resource still shows writes of its subtask index as carried (a
     * later line of history carried them, which this restore rewinds), those are given up: the restored
     * sources replay their records.
     */
    private void catchUp(WriterState state, List<CarriedNotice> notices) throws IOException {
        boolean noticed = notices.stream().anyMatch(n -> n.subtask() == state.subtask());
        if (!state.carries() && !noticed) {
            return;
        }
        String origin = "the writer state of subtask " + state.subtask() + " in checkpoint " + state.checkpointId();
        if (state.run().isEmpty()) {
            throw new SuppressRestartsException(new SinkException(context + ", " + target + ": " + origin
                    + " carries writes but no run token; it cannot be restored by this release"));
        }
        awaitCommitted(state, origin);
        if (state.carries()) {
            byte[] writes = state.carried();
            carried.applyCarried(writes, state.subtask(), context + ", " + target + ", " + origin);
            LOG.info(
                    "{}: wrote and committed the writes that {} carried ({} bytes) before the first record",
                    context,
                    origin,
                    writes.length);
            return;
        }
        List<CarriedNotice> still = carried.openCarried().stream()
                .filter(n -> n.subtask() == state.subtask())
                .collect(Collectors.toList());
        if (!still.isEmpty()) {
            carried.closeCarried(state.subtask());
            LOG.warn(
                    "{}: gave up {}: {} carries nothing, so they belong to a later line of history that this restore "
                            + "rewinds; the restored sources replay their records",
                    context,
                    still,
                    origin);
        }
    }

    /** Waits, up to claimWait, until no transaction of the writer that took {@code state} is prepared. */
    private void awaitCommitted(WriterState state, String origin) throws IOException {
        String run = state.run().get();
        long deadline = System.nanoTime() + settings.claimWait().toNanos();
        List<TransactionId> before = earlierOf(state, run, session.listPrepared());
        while (!before.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                throw new SinkException(context + ", " + target + ": " + origin + " carries writes that must follow "
                        + "the commit of " + StartupRecovery.names(before) + ", still prepared after "
                        + settings.claimWait()
                        + ". The restored committers commit them as they start; see their log for a failed commit. "
                        + "The task fails over and tries again.");
            }
            StartWaits.pause(context, "waiting for " + StartupRecovery.names(before));
            before = earlierOf(state, run, session.listPrepared());
        }
    }

    /** The prepared transactions of the writer that took {@code state}: its subtask index and run. */
    private List<TransactionId> earlierOf(WriterState state, String run, List<TransactionId> prepared) {
        return prepared.stream()
                .filter(id -> id.sinkId().equals(context.sinkId())
                        && id.subtask() == state.subtask()
                        && id.run().equals(run))
                .collect(Collectors.toList());
    }

    /**
     * Of {@code notices}, the carried writes this subtask must see and cannot: those of the subtask indices it
     * owns, when no writer state of this sink was restored to it. Whoever restored the state that holds them
     * writes them ({@link #catchUp}); if that is nobody, this start would go on without them.
     */
    List<CarriedNotice> unseen(RecoveryPlan plan, Collection<WriterState> restored, List<CarriedNotice> notices) {
        if (plan.restoredCheckpoint().sinkStateRestored()) {
            return List.of();
        }
        return notices.stream()
                .filter(n -> RecoveryPlan.isOwner(context.subtask(), context.parallelism(), n.subtask()))
                .collect(Collectors.toList());
    }

    /** The carried writes the resource shows as never written, of every subtask index of the sink id. */
    List<CarriedNotice> open() throws IOException {
        return carried.openCarried();
    }

    /** Of {@code unseen}, those the resource still shows after the wait: whoever restored the others wrote them. */
    List<CarriedNotice> stillOpen(List<CarriedNotice> unseen) throws IOException {
        if (unseen.isEmpty()) {
            return unseen;
        }
        Set<Integer> open =
                carried.openCarried().stream().map(CarriedNotice::subtask).collect(Collectors.toSet());
        return unseen.stream().filter(n -> open.contains(n.subtask())).collect(Collectors.toList());
    }

    /**
     * Gives up the carried writes this start cannot see, under leftoverPolicy ROLLBACK: the writer state that
     * holds them was not restored.
     */
    void giveUp(List<CarriedNotice> unseen, RecoveryPlan plan) throws IOException {
        for (int index : unseen.stream().map(CarriedNotice::subtask).collect(Collectors.toCollection(TreeSet::new))) {
            List<CarriedNotice> given =
                    unseen.stream().filter(n -> n.subtask() == index).collect(Collectors.toList());
            carried.closeCarried(index);
            LOG.warn(
                    "{}: gave up {} under leftoverPolicy ROLLBACK: this job started {}, so the writer state that holds "
                            + "them is not here; if the sources resumed after the snapshot that holds it, those keys keep an "
                            + "older value",
                    context,
                    given,
                    StartupRecovery.startedHow(plan, context));
        }
    }

    /**
     * Gives up carried writes of subtask indices that the restored line of history never had: the restored
     * checkpoint was taken at a smaller parallelism, so no writer state of it holds them; they belong to a line
     * of history this restore abandons, whose records the restored sources replay. Done by the one writer that
     * restored the state of subtask index 0: after a rescale up, the owners of such indices got no state and
     * cannot tell them from writes a restored writer elsewhere will write (they wait for them to go).
     */
    void closeSuperseded(RecoveryPlan plan, Collection<WriterState> restored, List<CarriedNotice> notices)
            throws IOException {
        OptionalInt restoredParallelism = plan.restoredCheckpoint().parallelism();
        boolean holdsIndexZero = restored.stream()
                .anyMatch(st -> st.sinkId().equals(context.sinkId())
                        && st.subtask() == 0
                        && st.run().isPresent());
        if (restoredParallelism.isEmpty() || !holdsIndexZero) {
            return;
        }
        SortedSet<Integer> superseded = notices.stream()
                .map(CarriedNotice::subtask)
                .filter(k -> k >= restoredParallelism.getAsInt())
                .collect(Collectors.toCollection(TreeSet::new));
        for (int index : superseded) {
            carried.closeCarried(index);
            LOG.warn(
                    "{}: gave up the writes that subtask {} of another run carried past a barrier: restored "
                            + "checkpoint {} was taken at parallelism {}, so it has no subtask {} and this restore abandons that "
                            + "line of history; the restored sources replay its records",
                    context,
                    index,
                    StartupRecovery.restoredIdText(context),
                    restoredParallelism.getAsInt(),
                    index);
        }
    }
}
