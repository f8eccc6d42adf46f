package dev.eosink.core.protocol;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.RecoveryPlan.Verdict;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.runtime.execution.SuppressRestartsException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
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
 * plan leaves open until every restored committer has committed, at the first checkpoint of the run.
 * The transactions are listed, and every rollback happens, under the ownership guard of each subtask
 * index concerned; every decision is logged with its reason. The writer calls {@link #atStart} from
 * its constructor and {@link #atCheckpoint} from every snapshot, and otherwise knows nothing of
 * recovery: the plan decides, this class acts, the writer runs epochs.
 *
 * <p>Invariant: a transaction that a completed checkpoint or savepoint may have promised is never
 * rolled back by the sink's own judgement. Only the user's {@link LeftoverPolicy} may do that.
 *
 * <p>Refusals that a restart would only repeat (the leftover policy, the rewind policy) fail the job
 * without restarts ({@link SuppressRestartsException}), so that the reason is the job's failure, not
 * one entry among thousands of identical restarts.
 */
final class StartupRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    /** The resource's words: where the messages send an operator to resolve by hand, what a prepared transaction holds. */
    private final Wording words;
    private final WriterSession<?> session;
    /** Counts every rollback: {@code transactionsRolledBack}, and {@code orphansRolledBack} of those. */
    private final WriterMetrics metrics;

    /**
     * The plan while some of its transactions wait for the first checkpoint of the run; null before
     * {@link #atStart}, when nothing waits, and once the first checkpoint resolved them.
     */
    private RecoveryPlan awaitingFirstCheckpoint;

    StartupRecovery(
            SubtaskContext context,
            SinkSettings settings,
            String target,
            Wording words,
            WriterSession<?> session,
            WriterMetrics metrics) {
        this.context = context;
        this.settings = settings;
        this.target = target;
        this.words = words;
        this.session = session;
        this.metrics = metrics;
    }

    /**
     * Claims this subtask's guard and acts on every transaction the plan decides at start. Runs once,
     * before the writer's first record.
     */
    void atStart(Collection<WriterState> restored) throws IOException {
        warnOnSinkIdChange(restored);
        session.claim(context.subtask(), settings.claimWait().toMillis());
        SortedSet<Integer> adopted = new TreeSet<>();
        try {
            atStart(restored, listUnderGuards(adopted), adopted);
        } finally {
            for (int index : adopted) {
                session.release(index);
            }
        }
        for (WriterState state : restored) {
            if (state.carries()) {
                applyCarried(state);
            }
        }
    }

    /**
     * Writes what the writer that took {@code state} carried past its barrier (see {@link
     * WriterSession#carried()}): writes that had to follow the commit of that writer's earlier
     * transactions. So they wait until none of that writer's transactions is prepared any more: the
     * restored committers commit those the checkpoint promised while they initialize (before any
     * checkpoint of this run, so this wait never holds one up), and recovery rolls back the others at
     * start. They are written before this writer's first record and before the run's first
     * checkpoint, so every replayed write of their keys comes after them.
     */
    private void applyCarried(WriterState state) throws IOException {
        String origin = "the writer state of subtask " + state.subtask() + " in checkpoint " + state.checkpointId();
        if (!state.sinkId().equals(context.sinkId()) || state.run().isEmpty()) {
            throw new SuppressRestartsException(new SinkException(context + ", " + target + ": " + origin
                    + " carries writes of sink id '" + state.sinkId() + "', which must follow that sink id's own prepared "
                    + "transactions; this sink is '" + context.sinkId() + "'. Remedy: restore with the sink id that took "
                    + "the checkpoint, and change it only after a checkpoint that carries nothing"));
        }
        String run = state.run().get();
        long deadline = System.nanoTime() + settings.claimWait().toNanos();
        List<TransactionId> before = earlierOf(state, run, session.listPrepared());
        while (!before.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                throw new SinkException(context + ", " + target + ": " + origin + " carries writes that must follow "
                        + "the commit of " + names(before) + ", still prepared after " + settings.claimWait()
                        + ". The restored committers commit them as they start; see their log for a failed commit. "
                        + "The task fails over and tries again.");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SinkException(context + ": interrupted while waiting for " + names(before), e);
            }
            before = earlierOf(state, run, session.listPrepared());
        }
        byte[] carried = state.carried();
        session.applyCarried(carried, context + ", " + target + ", " + origin);
        LOG.info("{}: wrote and committed the writes that {} carried ({} bytes) before the first record",
                context, origin, carried.length);
    }

    /** The prepared transactions of the writer that took {@code state}: its subtask index and run. */
    private List<TransactionId> earlierOf(WriterState state, String run, List<TransactionId> prepared) {
        return prepared.stream()
                .filter(id -> id.sinkId().equals(context.sinkId()) && id.subtask() == state.subtask() && id.run().equals(run))
                .collect(Collectors.toList());
    }

    private void warnOnSinkIdChange(Collection<WriterState> restored) {
        List<String> otherIds = restored.stream()
                .map(WriterState::sinkId)
                .filter(id -> !id.equals(context.sinkId()))
                .distinct()
                .collect(Collectors.toList());
        if (!otherIds.isEmpty()) {
            LOG.warn("{}: restored state was written by sink id(s) {}. Prepared transactions of those ids are no longer "
                    + "managed by this job; list and resolve them by hand ({}).",
                    context, otherIds, words.manualResolution());
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
                if (id.sinkId().equals(context.sinkId()) && id.subtask() != context.subtask()
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

    private void atStart(Collection<WriterState> restored, List<TransactionId> prepared, SortedSet<Integer> guarded)
            throws IOException {
        RecoveryPlan plan = RecoveryPlan.decide(prepared, context, restored);

        List<TransactionId> leftovers = plan.with(Verdict.LEFTOVER);
        if (!leftovers.isEmpty() && settings.leftoverPolicy() == LeftoverPolicy.FAIL) {
            throw new SuppressRestartsException(refuseLeftovers(leftovers, plan, "at start"));
        }
        rollBack(plan.rollBackAtStart(), guarded, id -> plan.verdictOf(id) == Verdict.ORPHAN,
                id -> logRollbackAtStart(plan, id));
        rollBack(leftovers, guarded, id -> true, id -> logLeftoverRolledBack(id, plan));

        List<TransactionId> held = plan.with(Verdict.RESTORED_COMMITTER);
        if (!held.isEmpty()) {
            LOG.info("{}: left {} prepared transaction(s) to the restored committer, which commits them: {}",
                    context, held.size(), names(held));
        }
        List<TransactionId> open = plan.with(Verdict.UNLESS_COMMITTED);
        if (!open.isEmpty()) {
            LOG.info("{}: {} prepared transaction(s) named at or before restored checkpoint {} may be held by the "
                            + "restored committer of another subtask ({}); those still prepared at the first checkpoint "
                            + "are rolled back then: {}",
                    context, open.size(), restoredId(), plan.restoredCheckpoint(), names(open));
        }
        List<TransactionId> unknown = plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED);
        if (!unknown.isEmpty()) {
            LOG.warn("{}: found {} prepared transaction(s) of sink id '{}' from other jobs at or before restored "
                            + "checkpoint {}, and no writer state of this sink was restored to this subtask ({}). Another "
                            + "subtask's restored committer may hold them; those still prepared at the first checkpoint "
                            + "are left to leftoverPolicy {}: {}",
                    context, unknown.size(), context.sinkId(), restoredId(), plan.restoredCheckpoint(), settings.leftoverPolicy(),
                    names(unknown));
        }
        checkRewind(restored);
        if (plan.awaitsFirstCheckpoint()) {
            awaitingFirstCheckpoint = plan;
        }
    }

    /**
     * At every checkpoint the writer snapshots (never from prepareCommit, which also runs at end of
     * input, possibly before every task restored); acts at the first of the run only, and later ones
     * find nothing left to do. Flink triggers a checkpoint only once every task runs, so every
     * restored committer has committed what it holds by now.
     */
    void atCheckpoint(long checkpointId) throws IOException {
        RecoveryPlan plan = awaitingFirstCheckpoint;
        if (plan == null) {
            return;
        }
        List<TransactionId> still = session.listPrepared();
        List<TransactionId> leftovers = plan.leftoversStillPrepared(still);
        if (!leftovers.isEmpty() && settings.leftoverPolicy() == LeftoverPolicy.FAIL) {
            throw new SuppressRestartsException(refuseLeftovers(leftovers, plan, "at checkpoint " + checkpointId
                    + ", the first of this run, once every restored committer had committed what it holds"));
        }
        rollBack(plan.orphansStillPrepared(still), Set.of(), id -> true, id -> LOG.warn(
                "{}: rolled back prepared transaction {} of checkpoint {}: it is named at or before restored checkpoint "
                        + "{}, yet no restored committer committed it before checkpoint {} began, so it belongs to "
                        + "another line of history of sink id '{}' (a run restored from another snapshot, or a fresh run) "
                        + "that this restore abandons",
                context, id, id.checkpointId(), restoredId(), checkpointId, context.sinkId()));
        rollBack(leftovers, Set.of(), id -> true, id -> logLeftoverRolledBack(id, plan));
        awaitingFirstCheckpoint = null;
    }

    /**
     * For the message of an epoch that failed before the first checkpoint: the prepared transactions
     * whose fate still waits for it. They hold their row locks, and a write that needs one of them
     * waits for it until the lock timeout.
     */
    Optional<String> unresolved() {
        RecoveryPlan plan = awaitingFirstCheckpoint;
        if (plan == null) {
            return Optional.empty();
        }
        List<TransactionId> ids = plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED);
        if (ids.isEmpty()) {
            ids = plan.with(Verdict.UNLESS_COMMITTED);
        }
        if (ids.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("Prepared transaction(s) " + names(ids) + " found at start are not resolved until the "
                + "first checkpoint of this run; until then each holds " + words.preparedHolds() + ". If this failure "
                + "waited on one of them, resolve them by hand (" + words.manualResolution() + "), or restore the job "
                + "with this sink's state.");
    }

    private SinkException refuseLeftovers(List<TransactionId> leftovers, RecoveryPlan plan, String when) {
        String jobs = leftovers.stream().map(TransactionId::executionTag).distinct().sorted().collect(Collectors.joining(", "));
        return new SinkException(context + ", " + target + ": found " + leftovers.size() + " prepared transaction(s) "
                + "of sink id '" + context.sinkId() + "' left by other job(s) (job tag " + jobs + "): " + names(leftovers)
                + ". This job started " + (plan.freshStart() ? "without restored state" : "from checkpoint "
                + restoredId() + " but without this sink's writer state")
                + ", so the sink cannot tell whether a completed checkpoint or savepoint promised them. If the sources "
                + "resumed after such a snapshot (restored with a changed sink uid and --allowNonRestoredState, say), "
                + "they are the only copy of their records, and rolling them back would lose them. Refused " + when
                + " (leftoverPolicy FAIL, the default), and the job fails without restarts (a restart would find the "
                + "same); nothing of this job became visible. Remedy: restore the job "
                + "from the checkpoint or savepoint that holds this sink's state (same sink uid), whose committer "
                + "commits them; or decide by hand (" + words.manualResolution() + "): commit them if their "
                + "snapshot completed and the sources resume after it, roll them back otherwise; or, if the sources "
                + "replay everything this job needs (a fresh start from the beginning), set leftoverPolicy(ROLLBACK).");
    }

    private void logRollbackAtStart(RecoveryPlan plan, TransactionId id) {
        switch (plan.verdictOf(id)) {
            case AFTER_RESTORED:
                LOG.info("{}: rolled back prepared transaction {}: it is named for checkpoint {}, after restored "
                                + "checkpoint {}, so no restored committer holds it and the restored sources replay its records",
                        context, id, id.checkpointId(), restoredId());
                break;
            case ORPHAN:
                LOG.warn("{}: rolled back prepared transaction {} of checkpoint {}: it is named at or before restored "
                                + "checkpoint {}, but {}; it belongs to another line of history of sink id '{}' (a run "
                                + "restored from another snapshot, or a fresh run) that this restore abandons",
                        context, id, id.checkpointId(), restoredId(), plan.reason(id).orElse("no restored committer holds it"),
                        context.sinkId());
                break;
            case OWN_ATTEMPT:
                LOG.info("{}: rolled back prepared transaction {}: an earlier attempt of this job prepared it, and this "
                                + "job has completed no checkpoint yet (it restarts without state), so no checkpoint "
                                + "promised it and its records are replayed", context, id);
                break;
            default:
                throw new IllegalStateException("not rolled back at start: " + plan.verdictOf(id));
        }
    }

    private void logLeftoverRolledBack(TransactionId id, RecoveryPlan plan) {
        LOG.warn("{}: rolled back prepared transaction {} of checkpoint {}, left by another job (tag {}), under "
                        + "leftoverPolicy ROLLBACK: this job started {}, so whether a completed checkpoint or savepoint "
                        + "promised it is unknown; if the sources resumed after such a snapshot, its records are lost",
                context, id, id.checkpointId(), id.executionTag(),
                plan.freshStart() ? "without restored state" : "without this sink's writer state");
    }

    /**
     * Subtask 0 asks the marker table whether the sink committed checkpoints after the restored one
     * since it was taken: then the job is being rewound, and every record after it is written again.
     */
    private void checkRewind(Collection<WriterState> restored) throws IOException {
        OptionalLong restoredId = context.restoredCheckpointId();
        if (context.subtask() != 0 || restoredId.isEmpty()) {
            return;
        }
        OptionalLong takenAt = restored.stream()
                .filter(s -> s.sinkId().equals(context.sinkId()) && s.checkpointId() == restoredId.getAsLong())
                .map(WriterState::snapshotAtMillis)
                .filter(OptionalLong::isPresent)
                .mapToLong(OptionalLong::getAsLong)
                .min();
        if (takenAt.isEmpty()) {
            return;
        }
        Optional<Committed> after = session.committedAfter(restoredId.getAsLong(), takenAt.getAsLong());
        if (after.isEmpty() || after.get().transactions() == 0) {
            return;
        }
        Committed c = after.get();
        String message = context + ", " + target + ": this job is restored from checkpoint " + restoredId.getAsLong()
                + ", but since that checkpoint was taken (" + java.time.Instant.ofEpochMilli(takenAt.getAsLong())
                + ") the sink committed " + c + ". Every record after the restored checkpoint is written again: rows "
                + "committed after it stay, so an append table gets them twice (an upsert table converges).";
        if (settings.rewindPolicy() == RewindPolicy.FAIL) {
            throw new SuppressRestartsException(new SinkException(message + " Refused (rewindPolicy FAIL), and the job "
                    + "fails without restarts (a restart would find the same); nothing of this job became visible. "
                    + "Remedy: restore the latest checkpoint or savepoint instead, or set rewindPolicy(WARN) if the "
                    + "replay is intended."));
        }
        LOG.warn("{} Restore the latest checkpoint unless the replay is intended (rewindPolicy(FAIL) refuses such "
                + "restores).", message);
    }

    /**
     * Rolls back prepared transactions this subtask owns, under the ownership guard of every other
     * subtask index among them ({@code guarded}: those already held). Adopted indices come from a larger
     * earlier parallelism. If a live session still guards one, a second job with this sink id is
     * running: claim() refuses rather than destroy its work. {@code orphan} tells the ones the metrics
     * count as orphans (of another line of history, or left by another job).
     */
    private void rollBack(List<TransactionId> ids, Set<Integer> guarded, Predicate<TransactionId> orphan,
            Consumer<TransactionId> log) throws IOException {
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

    private String restoredId() {
        OptionalLong id = context.restoredCheckpointId();
        return id.isPresent() ? Long.toString(id.getAsLong()) : "none";
    }

    static String names(List<TransactionId> ids) {
        return ids.stream().map(TransactionId::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
