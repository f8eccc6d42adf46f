package dev.eosink.core.protocol;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.RecoveryPlan.Verdict;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.Wording;

import org.apache.flink.runtime.execution.SuppressRestartsException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
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
 * <p>Invariants:
 *
 * <ul>
 *   <li>A transaction that a completed checkpoint or savepoint may have promised is never rolled back by
 *       the sink's own judgement. Only the user's {@link LeftoverPolicy} may do that.
 *   <li>Writes a writer carried past a barrier ({@link dev.eosink.core.spi.HeldWrites#carried()}) that the
 *       resource shows as never written ({@link dev.eosink.core.spi.CarriedLedger#openCarried()}) are written by
 *       the writer that restored them, or given up only when the restore provably supersedes them; a start that cannot see them is refused
 *       like a leftover (they may be the only record of their keys' last state).
 *   <li>Every refusal happens at start, before this writer wrote anything and before any checkpoint of the run
 *       can begin (this task is not running yet), and fails the job without restarts ({@link
 *       SuppressRestartsException}: a restart would find the same), so that the reason is the job's failure, not
 *       one entry among thousands of identical restarts. Before it refuses, it rolls back whatever this
 *       execution prepared after the restored checkpoint, on every subtask index: none of it can ever be
 *       committed, and left prepared it would look like a leftover to the next start.
 *   <li>Whatever the plan leaves to the restored committers of other subtasks is waited for at start (they
 *       commit while their tasks initialize), so the replay does not meet their locks; only what is still
 *       prepared after {@link SinkSettings#claimWait()} is left to the first checkpoint.
 * </ul>
 */
final class StartupRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    /** The resource's words: where the messages send an operator to resolve by hand, what a prepared transaction holds. */
    private final Wording words;
    /** The session's recovery role: the guards, and the prepared transactions. */
    private final Recovery session;
    /** The session's carried writes, or what their absence means. */
    private final CarriedCapability carried;
    /** Counts every rollback: {@code transactionsRolledBack}, and {@code orphansRolledBack} of those. */
    private final WriterMetrics metrics;

    /** How often a writer waiting at start looks at the database again. */
    private static final long POLL_MILLIS = 50;

    /** How often a writer waiting at start says what it waits for. */
    private static final long LOG_EVERY_NANOS = 5_000_000_000L;

    /**
     * How much longer than the claim wait a restored writer waits for what restored committers may commit,
     * while a committer of the sink in this JVM is inside a commit call. Bounded even so. A commit call ends
     * by its own retries and network timeout: usually within seconds (a COMMIT PREPARED still running
     * elsewhere fails fast as busy), at worst, with the defaults, in about 15 minutes per transaction (six
     * attempts of a pool wait and a network timeout each); past this bound the writer refuses, and a
     * restore of the same checkpoint loses nothing.
     */
    static final Duration BUSY_COMMITTER_WAIT = Duration.ofMinutes(10);

    /**
     * The plan while some of its transactions wait for the first checkpoint of the run; null before
     * {@link #atStart}, when nothing waits, and once the first checkpoint resolved them.
     */
    private RecoveryPlan awaitingFirstCheckpoint;

    /** Those transactions, for the message of an epoch that fails before the first checkpoint. */
    private List<TransactionId> unresolved = List.of();

    StartupRecovery(
            SubtaskContext context,
            SinkSettings settings,
            String target,
            Wording words,
            Recovery session,
            CarriedCapability carried,
            WriterMetrics metrics) {
        this.context = context;
        this.settings = settings;
        this.target = target;
        this.words = words;
        this.session = session;
        this.carried = carried;
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
        List<CarriedNotice> notices;
        try {
            notices = atStart(restored, listUnderGuards(adopted), adopted);
        } finally {
            for (int index : adopted) {
                session.release(index);
            }
        }
        for (WriterState state : restored) {
            if (state.sinkId().equals(context.sinkId())) {
                catchUp(state, notices);
            } else if (state.carries()) {
                throw new SuppressRestartsException(new SinkException(context + ", " + target + ": the writer state of "
                        + "subtask " + state.subtask() + " in checkpoint " + state.checkpointId() + " carries writes of "
                        + "sink id '" + state.sinkId() + "', which must follow that sink id's own prepared transactions; "
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
            LOG.info("{}: wrote and committed the writes that {} carried ({} bytes) before the first record",
                    context, origin, writes.length);
            return;
        }
        List<CarriedNotice> still = carried.openCarried().stream()
                .filter(n -> n.subtask() == state.subtask()).collect(Collectors.toList());
        if (!still.isEmpty()) {
            carried.closeCarried(state.subtask());
            LOG.warn("{}: gave up {}: {} carries nothing, so they belong to a later line of history that this restore "
                    + "rewinds; the restored sources replay their records", context, still, origin);
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
                        + "the commit of " + names(before) + ", still prepared after " + settings.claimWait()
                        + ". The restored committers commit them as they start; see their log for a failed commit. "
                        + "The task fails over and tries again.");
            }
            pause("waiting for " + names(before));
            before = earlierOf(state, run, session.listPrepared());
        }
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

    /**
     * Decides and acts, under the guards of {@code guarded}, on the transactions found at start, in an order that
     * keeps a refusal clean: first the rewind check (a refused rewind touches nothing), then what the plan rolls
     * back whatever else is found, then a wait for what restored committers may still commit, then the leftovers
     * and carried writes that the leftover policy decides. Returns the carried writes the resource shows, for
     * {@link #catchUp}.
     */
    private List<CarriedNotice> atStart(Collection<WriterState> restored, List<TransactionId> prepared,
            SortedSet<Integer> guarded) throws IOException {
        RecoveryPlan plan = RecoveryPlan.decide(prepared, context, restored);
        // Before anything this start writes, rolls back or gives up: a refused rewind must leave everything as
        // it found it, the transactions of a later snapshot too (restoring that snapshot is its remedy).
        checkRewind(restored);
        awaitRewindCheckElsewhere(restored, plan);
        rollBack(plan.rollBackAtStart(), guarded, id -> plan.verdictOf(id) == Verdict.ORPHAN,
                id -> logRollbackAtStart(plan, id));

        List<TransactionId> held = plan.with(Verdict.RESTORED_COMMITTER);
        if (!held.isEmpty()) {
            LOG.info("{}: left {} prepared transaction(s) to the restored committer, which commits them: {}",
                    context, held.size(), names(held));
        }
        List<CarriedNotice> notices = carried.openCarried();
        List<CarriedNotice> unseen = unseenCarried(plan, restored, notices);
        List<TransactionId> stillPrepared = awaitRestoredCommitters(plan, unseen);
        if (!unseen.isEmpty()) {
            Set<Integer> open = carried.openCarried().stream().map(CarriedNotice::subtask).collect(Collectors.toSet());
            unseen = unseen.stream().filter(n -> open.contains(n.subtask())).collect(Collectors.toList());
        }

        List<TransactionId> uncommitted = plan.with(Verdict.RESTORED_COMMITTER).stream().filter(stillPrepared::contains)
                .collect(Collectors.toList());
        if (!uncommitted.isEmpty()) {
            throw refuse(refuseUncommitted(uncommitted));
        }
        List<TransactionId> leftovers = new ArrayList<>(plan.with(Verdict.LEFTOVER));
        plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED).stream().filter(stillPrepared::contains).forEach(leftovers::add);
        if ((!leftovers.isEmpty() || !unseen.isEmpty()) && settings.leftoverPolicy() == LeftoverPolicy.FAIL) {
            throw refuse(refuseLeftovers(leftovers, unseen, plan));
        }
        rollBack(leftovers, guarded, id -> true, id -> logLeftoverRolledBack(id, plan));
        for (int index : unseen.stream().map(CarriedNotice::subtask).collect(Collectors.toCollection(TreeSet::new))) {
            List<CarriedNotice> given = unseen.stream().filter(n -> n.subtask() == index).collect(Collectors.toList());
            carried.closeCarried(index);
            LOG.warn("{}: gave up {} under leftoverPolicy ROLLBACK: this job started {}, so the writer state that holds "
                    + "them is not here; if the sources resumed after the snapshot that holds it, those keys keep an "
                    + "older value", context, given, startedHow(plan));
        }
        closeSupersededCarried(plan, restored, notices);

        List<TransactionId> open = plan.with(Verdict.UNLESS_COMMITTED).stream().filter(stillPrepared::contains)
                .collect(Collectors.toList());
        if (!open.isEmpty()) {
            LOG.warn("{}: {} prepared transaction(s) named at or before restored checkpoint {} by the execution that took "
                            + "it are still prepared after {}, although a restored committer of another subtask would "
                            + "have committed them as it started ({}): {}. Either such a committer is still starting, or "
                            + "they are orphans of another line of history of that execution (it failed over to an older "
                            + "checkpoint after this snapshot was taken). Those still prepared at the first checkpoint of "
                            + "this run, once every restored committer has surely committed, are rolled back then; until "
                            + "then each holds {}.",
                    context, open.size(), restoredIdText(), settings.claimWait(), plan.restoredCheckpoint(),
                    names(open), words.preparedHolds());
            awaitingFirstCheckpoint = plan;
            unresolved = open;
        }
        return notices;
    }

    /**
     * Of {@code notices}, the carried writes this subtask must see and cannot: those of the subtask indices it
     * owns, when no writer state of this sink was restored to it. Whoever restored the state that holds them
     * writes them ({@link #catchUp}); if that is nobody, this start would go on without them.
     */
    private List<CarriedNotice> unseenCarried(RecoveryPlan plan, Collection<WriterState> restored,
            List<CarriedNotice> notices) {
        if (plan.restoredCheckpoint().sinkStateRestored()) {
            return List.of();
        }
        return notices.stream()
                .filter(n -> RecoveryPlan.isOwner(context.subtask(), context.parallelism(), n.subtask()))
                .collect(Collectors.toList());
    }

    /**
     * Gives up carried writes of subtask indices that the restored line of history never had: the restored
     * checkpoint was taken at a smaller parallelism, so no writer state of it holds them; they belong to a line
     * of history this restore abandons, whose records the restored sources replay. Done by the one writer that
     * restored the state of subtask index 0: after a rescale up, the owners of such indices got no state and
     * cannot tell them from writes a restored writer elsewhere will write (they wait for them to go).
     */
    private void closeSupersededCarried(RecoveryPlan plan, Collection<WriterState> restored, List<CarriedNotice> notices)
            throws IOException {
        OptionalInt restoredParallelism = plan.restoredCheckpoint().parallelism();
        boolean holdsIndexZero = restored.stream()
                .anyMatch(st -> st.sinkId().equals(context.sinkId()) && st.subtask() == 0 && st.run().isPresent());
        if (restoredParallelism.isEmpty() || !holdsIndexZero) {
            return;
        }
        SortedSet<Integer> superseded = notices.stream()
                .map(CarriedNotice::subtask)
                .filter(k -> k >= restoredParallelism.getAsInt())
                .collect(Collectors.toCollection(TreeSet::new));
        for (int index : superseded) {
            carried.closeCarried(index);
            LOG.warn("{}: gave up the writes that subtask {} of another run carried past a barrier: restored "
                    + "checkpoint {} was taken at parallelism {}, so it has no subtask {} and this restore abandons that "
                    + "line of history; the restored sources replay its records", context, index, restoredIdText(),
                    restoredParallelism.getAsInt(), index);
        }
    }

    /**
     * Waits, up to {@link SinkSettings#claimWait()}, until the transactions that a restored committer of another
     * subtask may hold are no longer prepared, and the carried writes in {@code notices} are written by whoever
     * restored them: those committers commit while their tasks initialize, and those writers while theirs start,
     * at the same time as this one. Past the claim wait, waits on, up to {@link #BUSY_COMMITTER_WAIT} more, while a
     * committer of this sink and execution in this JVM is inside a commit call ({@link LocalCommitters}): with
     * chaining disabled, a restored committer slower than the claim wait is still committing, not missing.
     * Returns what is still prepared of those transactions then.
     */
    private List<TransactionId> awaitRestoredCommitters(RecoveryPlan plan, List<CarriedNotice> notices)
            throws IOException {
        Set<TransactionId> awaited = new HashSet<>(plan.with(Verdict.UNLESS_COMMITTED));
        awaited.addAll(plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED));
        awaited.addAll(plan.with(Verdict.RESTORED_COMMITTER));
        if (context.restoredCheckpointId().isEmpty() || awaited.isEmpty() && notices.isEmpty()) {
            return List.of();
        }
        Set<Integer> noticed = notices.stream().map(CarriedNotice::subtask).collect(Collectors.toSet());
        long start = System.nanoTime();
        long deadline = start + settings.claimWait().toNanos();
        long nextLog = start + LOG_EVERY_NANOS;
        boolean committerBusyLogged = false;
        while (true) {
            // Before the listing: a commit call that ends while the listing travels leaves a stale list, and
            // must still count as a committer at work.
            boolean committing = LocalCommitters.committing(context);
            List<TransactionId> still = session.listPrepared().stream().filter(awaited::contains)
                    .sorted(Comparator.comparingLong(TransactionId::checkpointId)).collect(Collectors.toList());
            if (!noticed.isEmpty()) {
                noticed.retainAll(
                        carried.openCarried().stream().map(CarriedNotice::subtask).collect(Collectors.toSet()));
            }
            if (still.isEmpty() && noticed.isEmpty()) {
                return still;
            }
            if (System.nanoTime() - deadline > 0) {
                if (!committing || System.nanoTime() - deadline > BUSY_COMMITTER_WAIT.toNanos()) {
                    return still;
                }
                if (!committerBusyLogged) {
                    committerBusyLogged = true;
                    LOG.info("{}: {} passed with {} still prepared, and a committer of this sink in this JVM is still "
                            + "committing (chaining disabled: the restored committer is a task of its own): waiting "
                            + "for it, up to {} more", context, settings.claimWait(), names(still), BUSY_COMMITTER_WAIT);
                }
            }
            if (System.nanoTime() - nextLog > 0) {
                nextLog += LOG_EVERY_NANOS;
                LOG.info("{}: waiting up to {} for the restored committers of other subtasks to commit {}{}", context,
                        committerBusyLogged ? BUSY_COMMITTER_WAIT + " past " + settings.claimWait() : settings.claimWait(),
                        names(still), noticed.isEmpty() ? ""
                                : ", and for the writes carried by subtask(s) " + noticed + " to be written");
            }
            pause("waiting for the restored committers");
        }
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
        rollBack(plan.orphansStillPrepared(session.listPrepared()), Set.of(), id -> true, id -> LOG.warn(
                "{}: rolled back prepared transaction {} of checkpoint {}: it is named at or before restored checkpoint "
                        + "{}, yet no restored committer committed it before checkpoint {} began, so it belongs to "
                        + "another line of history of sink id '{}' (a run of the execution that took the restored "
                        + "checkpoint, restored from an older one) that this restore abandons",
                context, id, id.checkpointId(), restoredIdText(), checkpointId, context.sinkId()));
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
                + "restored checkpoint " + restoredIdText() + " by the execution that took it, yet no restored committer "
                + "committed them within " + settings.claimWait() + "; this run rolls them back at its first checkpoint, "
                + "which cannot come while this writer waits. Until then each holds " + words.preparedHolds()
                + ". If this failure waited on one of them, it is an orphan of another line of history of that "
                + "execution: roll it back by hand (" + words.manualResolution() + "), and the next attempt goes on.");
    }

    /**
     * The refusal of leftovers and of carried writes this start cannot see. Nothing of this job became visible:
     * this writer has written nothing yet, and {@link #refuse} rolls back what this execution prepared elsewhere.
     */
    private SinkException refuseLeftovers(List<TransactionId> leftovers, List<CarriedNotice> unseen, RecoveryPlan plan) {
        StringBuilder m = new StringBuilder(context + ", " + target + ": this job started " + startedHow(plan) + ", ");
        if (!leftovers.isEmpty()) {
            String tags = leftovers.stream().map(TransactionId::executionTag).distinct().sorted()
                    .collect(Collectors.joining(", "));
            m.append("and found ").append(leftovers.size()).append(" prepared transaction(s) of sink id '")
                    .append(context.sinkId()).append("' left by other job(s) or other submissions of this job ")
                    .append("(execution tag ").append(tags).append("): ").append(names(leftovers))
                    .append(". The sink cannot tell whether a completed checkpoint or savepoint promised them. If the ")
                    .append("sources resumed after such a snapshot (restored with a changed sink uid and ")
                    .append("--allowNonRestoredState, say), they are the only copy of their records, and rolling them ")
                    .append("back would lose them.");
            if (!plan.freshStart()) {
                // A subtask index the restored snapshot did not have (a rescale up) gets no writer state even
                // when the sink's state was restored, and cannot tell which of the two starts this is.
                m.append(" If this job did restore this sink's state, at a higher parallelism than the snapshot's ")
                        .append("(a rescale up), subtask ").append(context.subtask()).append(" is new to it: the ")
                        .append("snapshot promised nothing on this index, and these transactions belong to another ")
                        .append("run that this restore abandons (one restored from the same snapshot without the ")
                        .append("sink's state, say): roll them back (eosink-admin resolve against the snapshot you ")
                        .append("restore does exactly that) and restore it again.");
            }
        }
        if (!unseen.isEmpty()) {
            m.append(leftovers.isEmpty() ? "and " : " It also ").append("found that ")
                    .append(unseen.stream().map(CarriedNotice::toString).collect(Collectors.joining("; ")))
                    .append(": an upsert writer held them past that barrier (they had to follow a commit that came only ")
                    .append("with a later checkpoint), and they are in that checkpoint's or savepoint's writer state only, ")
                    .append("never written. Going on without them would leave those keys at an older value.");
        }
        m.append(" Refused (leftoverPolicy FAIL, the default), and the job fails without restarts (a restart would find ")
                .append("the same); nothing of this job became visible. Remedy: restore the job from the checkpoint or ")
                .append("savepoint that holds this sink's state (same sink uid)")
                .append(leftovers.isEmpty() ? "" : ", whose committers commit those transactions")
                .append(unseen.isEmpty() ? "" : (leftovers.isEmpty() ? ", " : " and ") + "whose writers write the carried writes");
        if (!leftovers.isEmpty()) {
            m.append("; or decide by hand (").append(words.manualResolution()).append("): commit the transactions if ")
                    .append("their snapshot completed and the sources resume after it, roll them back otherwise");
        }
        if (!unseen.isEmpty()) {
            m.append("; or write the carried writes by hand from that snapshot (eosink-admin carried shows them, and ")
                    .append("writes them with --apply)");
        }
        m.append("; or, if the sources replay everything this job needs (a fresh start from the beginning), set ")
                .append("leftoverPolicy(ROLLBACK).");
        return new SinkException(m.toString());
    }

    /**
     * The refusal of transactions the restored checkpoint promised (the restored writer state proves them its
     * committers') that no restored committer committed within claimWait, while no committer of the sink in this
     * JVM was inside a commit call. Every restored committer commits what it holds while its task initializes:
     * chained to this writer, before this writer's task can run; unchained, meanwhile, and in this JVM under
     * Flink's default slot sharing, where this writer waits for it as long as it commits. So no committer holds
     * them: the committers' state was not restored while the writers' was (the committer's operator id changed,
     * and --allowNonRestoredState dropped its state). Left alone they would stay prepared for ever, and their
     * records, which the restored sources do not replay, would never become visible. The one case this cannot
     * tell apart: chaining disabled, and the committer in another JVM, or its task not started within claimWait;
     * the message says so, and restoring the same checkpoint again loses nothing.
     */
    private SinkException refuseUncommitted(List<TransactionId> uncommitted) {
        return new SinkException(context + ", " + target + ": restored checkpoint " + restoredIdText() + " promised "
                + names(uncommitted) + " (the restored writer state names the run that prepared them), yet no restored "
                + "committer committed them within " + settings.claimWait() + " (and no committer of this sink in this "
                + "JVM is still committing), although every restored committer commits what it holds as its task "
                + "initializes: the committers' state was not restored "
                + "(the sink's committer has another operator id than in the job that took the checkpoint: give the "
                + "sink a uid, and restore without --allowNonRestoredState dropping the committer's state). The restored "
                + "sources resume after that checkpoint, so these transactions are the only copy of their records. "
                + "Refused, and the job fails without restarts; nothing of this job became visible. Remedy: restore "
                + "with the committer's state, or commit them by hand (eosink-admin resolve against the same "
                + "checkpoint commits exactly what it promised) and start again. Only if chaining is disabled and the "
                + "committer runs in another JVM than this writer, or its task started later than claimWait, may "
                + "the state be there after all: restore the same checkpoint again, with a longer claimWait.");
    }

    /**
     * Turns a refusal into the job's failure without restarts, after rolling back every transaction this
     * execution prepared after the restored checkpoint (all of them on a fresh start), on every subtask index.
     * None of them can ever be committed: no checkpoint completes while this writer has not started, and the
     * job fails now; left prepared, they would hold their locks and look like another job's leftovers to the
     * next start. They are not this subtask's to guard: only writers of this same execution prepare them.
     */
    private SuppressRestartsException refuse(SinkException refusal) {
        List<String> notRolledBack = new ArrayList<>();
        try {
            long after = context.restoredCheckpointId().orElse(0L);
            for (TransactionId id : session.listPrepared()) {
                if (id.executionTag().equals(context.execution()) && id.checkpointId() > after) {
                    try {
                        session.rollbackPrepared(id);
                        LOG.info("{}: rolled back prepared transaction {} of this execution before refusing to start",
                                context, id);
                    } catch (IOException | RuntimeException e) {
                        notRolledBack.add(id.toString());
                        refusal.addSuppressed(e);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            notRolledBack.add("(the list of prepared transactions could not be read)");
            refusal.addSuppressed(e);
        }
        String never = " Any transaction of this job (execution tag " + context.execution() + ": its run token starts "
                + "with it) that is still prepared, or that another subtask prepares while the job fails, was never "
                + "promised: never commit it, roll it back.";
        if (!notRolledBack.isEmpty()) {
            never = " These transactions of this job could not be rolled back: " + notRolledBack + "." + never;
        }
        SinkException whole = new SinkException(refusal.getMessage() + never);
        for (Throwable t : refusal.getSuppressed()) {
            whole.addSuppressed(t);
        }
        return new SuppressRestartsException(whole);
    }

    private String startedHow(RecoveryPlan plan) {
        return plan.freshStart() ? "without restored state"
                : "from checkpoint " + restoredIdText() + " but without this sink's writer state";
    }

    private void logRollbackAtStart(RecoveryPlan plan, TransactionId id) {
        switch (plan.verdictOf(id)) {
            case AFTER_RESTORED:
                LOG.info("{}: rolled back prepared transaction {}: it is named for checkpoint {}, after restored "
                                + "checkpoint {}, so no restored committer holds it and the restored sources replay its records",
                        context, id, id.checkpointId(), restoredIdText());
                break;
            case ORPHAN:
                LOG.warn("{}: rolled back prepared transaction {} of checkpoint {}: it is named at or before restored "
                                + "checkpoint {}, but {}; it belongs to another line of history of sink id '{}' (a run "
                                + "restored from another snapshot, or a fresh run) that this restore abandons",
                        context, id, id.checkpointId(), restoredIdText(), plan.reason(id).orElse("no restored committer holds it"),
                        context.sinkId());
                break;
            case OWN_ATTEMPT:
                LOG.info("{}: rolled back prepared transaction {}: an earlier attempt of this execution of the job "
                                + "prepared it, and this execution has completed no checkpoint yet (it restarts without "
                                + "state), so no checkpoint promised it and its records are replayed", context, id);
                break;
            default:
                throw new IllegalStateException("not rolled back at start: " + plan.verdictOf(id));
        }
    }

    private void logLeftoverRolledBack(TransactionId id, RecoveryPlan plan) {
        LOG.warn("{}: rolled back prepared transaction {} of checkpoint {}, left by another job or another submission "
                        + "of this job (execution tag {}), under leftoverPolicy ROLLBACK: this job started {}, so whether "
                        + "a completed checkpoint or savepoint promised it is unknown; if the sources resumed after such "
                        + "a snapshot, its records are lost",
                context, id, id.checkpointId(), id.executionTag(), startedHow(plan));
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
    private void checkRewind(Collection<WriterState> restored) throws IOException {
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
        Optional<Committed> after = session.committedAfter(restoredId.getAsLong(), takenAt.getAsLong(),
                WriterState.takenBy(ofRestored));
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
            throw refuse(new SinkException(message + " Refused (rewindPolicy FAIL), and the job "
                    + "fails without restarts (a restart would find the same); nothing of this job became visible. "
                    + "Remedy: restore the latest checkpoint or savepoint instead, or set rewindPolicy(WARN) if the "
                    + "replay is intended."));
        }
        if (context.subtask() == 0) {
            LOG.warn("{} Restore the latest checkpoint unless the replay is intended (rewindPolicy(FAIL) refuses such "
                    + "restores).", message);
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
    private void awaitRewindCheckElsewhere(Collection<WriterState> restored, RecoveryPlan plan) throws IOException {
        OptionalLong restoredId = context.restoredCheckpointId();
        if (settings.rewindPolicy() != RewindPolicy.FAIL || restoredId.isEmpty()
                || restored.stream().anyMatch(s -> s.sinkId().equals(context.sinkId())
                        && s.checkpointId() == restoredId.getAsLong() && s.snapshotAtMillis().isPresent())) {
            return;
        }
        List<TransactionId> later = plan.rollBackAtStart().stream()
                .filter(id -> plan.verdictOf(id) == Verdict.AFTER_RESTORED
                        && !id.executionTag().equals(context.execution()))
                .collect(Collectors.toList());
        if (later.isEmpty()) {
            return;
        }
        LOG.info("{}: no writer state of restored checkpoint {} came to this subtask, so it cannot check the rewind "
                + "(rewindPolicy FAIL) itself; waiting {} for the subtasks that can, before rolling back {}, of other "
                + "executions, which a later snapshot may have promised", context, restoredIdText(), settings.claimWait(),
                names(later));
        long deadline = System.nanoTime() + settings.claimWait().toNanos();
        while (System.nanoTime() - deadline < 0) {
            pause("waiting for the rewind check of the subtasks with writer state");
        }
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

    private String restoredIdText() {
        OptionalLong id = context.restoredCheckpointId();
        return id.isPresent() ? Long.toString(id.getAsLong()) : "none";
    }

    /** Sleeps between two looks at the database while this writer waits at start. */
    private void pause(String what) throws SinkException {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while " + what, e);
        }
    }

    static String names(List<TransactionId> ids) {
        return ids.stream().map(TransactionId::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
