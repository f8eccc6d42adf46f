/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.RecoveryPlan.Verdict;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.Wording;

import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Carries out a writer's {@link RecoveryPlan}: at start, before the first record, and, for what the
 * plan leaves open until every restored committer has surely committed, at the first checkpoint of the
 * run. The transactions are listed, and every rollback happens, under the ownership guard of each
 * subtask index concerned; every decision is logged with its reason. The writer calls {@link #atStart}
 * from its constructor and {@link #atCheckpoint} from every snapshot, and otherwise knows nothing of
 * recovery: the plan decides, this class acts, the writer runs epochs.
 *
 * <p>It orders the start and leaves each job to one class: {@link RewindCheck} (whether the restore rewinds
 * what the sink committed), {@link StartWaits} (the wait for the restored committers and writers of other
 * subtasks), {@link CarriedCatchUp} (the writes restored writers carried past their barriers) and {@link
 * StartRefusal} (a refusal, and what it rolls back first).
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A transaction that a completed checkpoint or savepoint may have promised is never rolled back by
 *       the sink's own judgement. Only the user's {@link LeftoverPolicy} may do that.
 *   <li>Writes a writer carried past a barrier that the resource shows as never written are written by the
 *       writer that restored them, or given up only when the restore provably supersedes them; a start that
 *       cannot see them is refused like a leftover ({@link CarriedCatchUp}).
 *   <li>Every refusal happens at start, before this writer wrote anything and before any checkpoint of the run
 *       can begin (this task is not running yet), and fails the job without restarts ({@link
 *       SuppressRestartsException}), after rolling back whatever this execution prepared after the restored
 *       checkpoint ({@link StartRefusal}). The rewind check comes first: a refused rewind touches nothing.
 *   <li>Whatever the plan leaves to the restored committers of other subtasks is waited for at start (they
 *       commit while their tasks initialize), so the replay does not meet their locks; only what is still
 *       prepared after {@link SinkSettings#claimWait()} is left to the first checkpoint.
 * </ul>
 */
final class StartupRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    /** The resource's words: where the messages send an operator to resolve by hand, what a prepared transaction holds. */
    private final Wording words;
    /** The session's recovery role: the guards, and the prepared transactions. */
    private final Recovery session;
    /** Counts every rollback: {@code transactionsRolledBack}, and {@code orphansRolledBack} of those. */
    private final WriterMetrics metrics;

    private final StartRefusal refusal;
    private final RewindCheck rewind;
    private final StartWaits waits;
    private final CarriedCatchUp carried;

    /**
     * The plan while some of its transactions wait for the first checkpoint of the run; null before
     * {@link #atStart}, when nothing waits, and once the first checkpoint resolved them.
     */
    private RecoveryPlan awaitingFirstCheckpoint;

    /** Those transactions, for the message of an epoch that fails before the first checkpoint. */
    private List<TransactionId> unresolved = List.of();

    StartupRecovery(SinkSubtask sink, Recovery session, CarriedCapability carried, WriterMetrics metrics) {
        SubtaskContext context = sink.context();
        SinkSettings settings = sink.settings();
        String target = sink.target();
        this.context = context;
        this.settings = settings;
        this.words = sink.words();
        this.session = session;
        this.metrics = metrics;
        this.refusal = new StartRefusal(sink, session);
        this.rewind = new RewindCheck(context, settings, target, session, refusal);
        this.waits = new StartWaits(context, settings, session, carried);
        this.carried = new CarriedCatchUp(context, settings, target, session, carried);
    }

    /**
     * Claims this subtask's guard and acts on every transaction the plan decides at start. Runs once,
     * before the writer's first record.
     */
    void atStart(Collection<WriterState> restored) throws IOException {
        warnOnSinkIdChange(restored);
        session.claim(context.subtask(), settings.claimWait().toMillis());
        SortedSet<Integer> adopted = new TreeSet<>();
        List<CarriedNotice> notices;
        try {
            notices = atStart(restored, listUnderGuards(adopted), adopted);
        } finally {
            for (int index : adopted) {
                session.release(index);
            }
        }
        carried.catchUp(restored, notices);
    }

    private void warnOnSinkIdChange(Collection<WriterState> restored) {
        List<String> otherIds = restored.stream()
                .map(WriterState::sinkId)
                .filter(id -> !id.equals(context.sinkId()))
                .distinct()
                .collect(Collectors.toList());
        if (!otherIds.isEmpty()) {
            LOG.warn(
                    "{}: restored state was written by sink id(s) {}. Prepared transactions of those ids are no longer "
                            + "managed by this job; list and resolve them by hand ({}).",
                    context,
                    otherIds,
                    words.manualResolution());
        }
    }

    /**
     * The sink's prepared transactions, listed while this subtask holds the guard of every subtask
     * index it owns among them. A guard is released only when its holder's session ends, so a writer
     * of an adopted index (a larger earlier parallelism) that was still executing a PREPARE has
     * finished it by then, and what it prepared is in the list. Claims found indices and lists again,
     * a few rounds at most; {@code adopted} gets the indices claimed, for the caller to release.
     */
    private List<TransactionId> listUnderGuards(SortedSet<Integer> adopted) throws IOException {
        List<TransactionId> prepared = session.listPrepared();
        for (int round = 0; round < 3; round++) {
            SortedSet<Integer> found = new TreeSet<>();
            for (TransactionId id : prepared) {
                if (id.sinkId().equals(context.sinkId())
                        && id.subtask() != context.subtask()
                        && RecoveryPlan.isOwner(context.subtask(), context.parallelism(), id.subtask())
                        && !adopted.contains(id.subtask())) {
                    found.add(id.subtask());
                }
            }
            if (found.isEmpty()) {
                return prepared;
            }
            for (int index : found) {
                session.claim(index, settings.claimWait().toMillis());
                adopted.add(index);
            }
            prepared = session.listPrepared();
        }
        return prepared;
    }

    /**
     * Decides and acts, under the guards of {@code guarded}, on the transactions found at start, in an order that
     * keeps a refusal clean: first the rewind check (a refused rewind touches nothing), then what the plan rolls
     * back whatever else is found, then a wait for what restored committers may still commit, then the leftovers
     * and carried writes that the leftover policy decides. Returns the carried writes the resource shows, for
     * {@link CarriedCatchUp#catchUp}.
     */
    private List<CarriedNotice> atStart(
            Collection<WriterState> restored, List<TransactionId> prepared, SortedSet<Integer> guarded)
            throws IOException {
        RecoveryPlan plan = RecoveryPlan.decide(prepared, context, restored);
        // Before anything this start writes, rolls back or gives up: a refused rewind must leave everything as
        // it found it, the transactions of a later snapshot too (restoring that snapshot is its remedy).
        rewind.check(restored);
        rewind.awaitCheckElsewhere(restored, plan);
        rollBack(
                plan.rollBackAtStart(),
                guarded,
                id -> plan.verdictOf(id) == Verdict.ORPHAN,
                id -> logRollbackAtStart(plan, id));

        List<TransactionId> held = plan.with(Verdict.RESTORED_COMMITTER);
        if (!held.isEmpty()) {
            LOG.info(
                    "{}: left {} prepared transaction(s) to the restored committer, which commits them: {}",
                    context,
                    held.size(),
                    names(held));
        }
        List<CarriedNotice> notices = carried.open();
        List<CarriedNotice> unseen = carried.unseen(plan, restored, notices);
        List<TransactionId> stillPrepared = waits.awaitRestoredCommitters(plan, unseen);
        unseen = carried.stillOpen(unseen);

        List<TransactionId> uncommitted = plan.with(Verdict.RESTORED_COMMITTER).stream()
                .filter(stillPrepared::contains)
                .collect(Collectors.toList());
        if (!uncommitted.isEmpty()) {
            throw refusal.refuse(refusal.uncommitted(uncommitted));
        }
        List<TransactionId> leftovers = new ArrayList<>(plan.with(Verdict.LEFTOVER));
        plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED).stream()
                .filter(stillPrepared::contains)
                .forEach(leftovers::add);
        if ((!leftovers.isEmpty() || !unseen.isEmpty()) && settings.leftoverPolicy() == LeftoverPolicy.FAIL) {
            throw refusal.refuse(refusal.leftovers(leftovers, unseen, plan));
        }
        rollBack(leftovers, guarded, id -> true, id -> logLeftoverRolledBack(id, plan));
        carried.giveUp(unseen, plan);
        carried.closeSuperseded(plan, restored, notices);

        List<TransactionId> open = plan.with(Verdict.UNLESS_COMMITTED).stream()
                .filter(stillPrepared::contains)
                .collect(Collectors.toList());
        if (!open.isEmpty()) {
            LOG.warn(
                    "{}: {} prepared transaction(s) named at or before restored checkpoint {} by the execution that took "
                            + "it are still prepared after {}, although a restored committer of another subtask would "
                            + "have committed them as it started ({}): {}. Either such a committer is still starting, or "
                            + "they are orphans of another line of history of that execution (it failed over to an older "
                            + "checkpoint after this snapshot was taken). Those still prepared at the first checkpoint of "
                            + "this run, once every restored committer has surely committed, are rolled back then; until "
                            + "then each holds {}.",
                    context,
                    open.size(),
                    restoredIdText(context),
                    settings.claimWait(),
                    plan.restoredCheckpoint(),
                    names(open),
                    words.preparedHolds());
            awaitingFirstCheckpoint = plan;
            unresolved = open;
        }
        return notices;
    }

    /**
     * At every checkpoint the writer snapshots (never from prepareCommit, which also runs at end of input,
     * possibly before every task restored); acts at the first of the run only, and later ones find nothing
     * left to do. Flink triggers a checkpoint only once every task runs, so every restored committer has
     * committed what it holds by now: what the plan left to them and is still prepared is an orphan of another
     * line of history, and is rolled back.
     */
    void atCheckpoint(long checkpointId) throws IOException {
        RecoveryPlan plan = awaitingFirstCheckpoint;
        if (plan == null) {
            return;
        }
        rollBack(
                plan.orphansStillPrepared(session.listPrepared()),
                Set.of(),
                id -> true,
                id -> LOG.warn(
                        "{}: rolled back prepared transaction {} of checkpoint {}: it is named at or before restored checkpoint "
                                + "{}, yet no restored committer committed it before checkpoint {} began, so it belongs to "
                                + "another line of history of sink id '{}' (a run of the execution that took the restored "
                                + "checkpoint, restored from an older one) that this restore abandons",
                        context,
                        id,
                        id.checkpointId(),
                        restoredIdText(context),
                        checkpointId,
                        context.sinkId()));
        awaitingFirstCheckpoint = null;
        unresolved = List.of();
    }

    /**
     * For the message of an epoch that failed before the first checkpoint: the prepared transactions whose fate
     * still waits for it. They hold their locks, and a write that needs one of them waits until the lock
     * timeout, on every attempt: only an operator can end that.
     */
    Optional<String> unresolved() {
        if (unresolved.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("Prepared transaction(s) " + names(unresolved) + " found at start are named at or before "
                + "restored checkpoint " + restoredIdText(context)
                + " by the execution that took it, yet no restored committer "
                + "committed them within " + settings.claimWait()
                + "; this run rolls them back at its first checkpoint, "
                + "which cannot come while this writer waits. Until then each holds " + words.preparedHolds()
                + ". If this failure waited on one of them, it is an orphan of another line of history of that "
                + "execution: roll it back by hand (" + words.manualResolution() + "), and the next attempt goes on.");
    }

    private void logRollbackAtStart(RecoveryPlan plan, TransactionId id) {
        switch (plan.verdictOf(id)) {
            case AFTER_RESTORED:
                LOG.info(
                        "{}: rolled back prepared transaction {}: it is named for checkpoint {}, after restored "
                                + "checkpoint {}, so no restored committer holds it and the restored sources replay its records",
                        context,
                        id,
                        id.checkpointId(),
                        restoredIdText(context));
                break;
            case ORPHAN:
                LOG.warn(
                        "{}: rolled back prepared transaction {} of checkpoint {}: it is named at or before restored "
                                + "checkpoint {}, but {}; it belongs to another line of history of sink id '{}' (a run "
                                + "restored from another snapshot, or a fresh run) that this restore abandons",
                        context,
                        id,
                        id.checkpointId(),
                        restoredIdText(context),
                        plan.reason(id).orElse("no restored committer holds it"),
                        context.sinkId());
                break;
            case OWN_ATTEMPT:
                LOG.info(
                        "{}: rolled back prepared transaction {}: an earlier attempt of this execution of the job "
                                + "prepared it, and this execution has completed no checkpoint yet (it restarts without "
                                + "state), so no checkpoint promised it and its records are replayed",
                        context,
                        id);
                break;
            default:
                throw new IllegalStateException("not rolled back at start: " + plan.verdictOf(id));
        }
    }

    private void logLeftoverRolledBack(TransactionId id, RecoveryPlan plan) {
        LOG.warn(
                "{}: rolled back prepared transaction {} of checkpoint {}, left by another job or another submission "
                        + "of this job (execution tag {}), under leftoverPolicy ROLLBACK: this job started {}, so whether "
                        + "a completed checkpoint or savepoint promised it is unknown; if the sources resumed after such "
                        + "a snapshot, its records are lost",
                context,
                id,
                id.checkpointId(),
                id.executionTag(),
                startedHow(plan, context));
    }

    /**
     * Rolls back prepared transactions this subtask owns, under the ownership guard of every other
     * subtask index among them ({@code guarded}: those already held). Adopted indices come from a larger
     * earlier parallelism. If a live session still guards one, a second job with this sink id is
     * running: claim() refuses rather than destroy its work. {@code orphan} tells the ones the metrics
     * count as orphans (of another line of history, or left by another job).
     */
    private void rollBack(
            List<TransactionId> ids, Set<Integer> guarded, Predicate<TransactionId> orphan, Consumer<TransactionId> log)
            throws IOException {
        SortedSet<Integer> adopted = new TreeSet<>(RecoveryPlan.adoptedSubtasks(ids, context.subtask()));
        adopted.removeAll(guarded);
        for (int index : adopted) {
            session.claim(index, settings.claimWait().toMillis());
        }
        for (TransactionId id : ids) {
            session.rollbackPrepared(id);
            metrics.rolledBack(orphan.test(id));
            log.accept(id);
        }
        for (int index : adopted) {
            session.release(index);
        }
    }

    /** How this job started, for messages: "without restored state", or from which checkpoint. */
    static String startedHow(RecoveryPlan plan, SubtaskContext context) {
        return plan.freshStart()
                ? "without restored state"
                : "from checkpoint " + restoredIdText(context) + " but without this sink's writer state";
    }

    /** The checkpoint this run restored from, for messages; "none" on a fresh start. */
    static String restoredIdText(SubtaskContext context) {
        OptionalLong id = context.restoredCheckpointId();
        return id.isPresent() ? Long.toString(id.getAsLong()) : "none";
    }

    static String names(List<TransactionId> ids) {
        return ids.stream().map(TransactionId::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
