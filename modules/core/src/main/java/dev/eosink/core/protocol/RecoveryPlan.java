/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;

import org.apache.flink.annotation.Internal;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Decides, at writer start, what becomes of each prepared transaction of the sink found in the
 * database. This is the one place where the sink decides to destroy prepared work, so its rules are
 * strict, and each transaction gets exactly one {@link Verdict}:
 *
 * <ol>
 *   <li><b>Ownership.</b> A transaction prepared by subtask {@code s} is owned by the subtask {@code s
 *       mod parallelism} of the new run. Every old index has exactly one owner, whatever the old and
 *       new parallelism (rescale up, down, or an upscale that failed and went back), and no two
 *       subtasks ever commit or roll back the same transaction. One exception, which destroys nothing:
 *       the subtask that got the writer state of an index it does not own (Flink distributes state in
 *       contiguous blocks on a rescale, not by this rule) also judges what that state proves promised
 *       ({@link Verdict#RESTORED_COMMITTER}), and refuses the start if no restored committer commits it,
 *       since the owner, without that state, could not tell it from an orphan. Transactions of other sink
 *       ids are never looked at.
 *   <li><b>Restored run, named after the restored checkpoint N</b>: its checkpoint did not complete
 *       before N (see {@link TransactionId}'s naming invariant) and the restored sources replay its
 *       records: rolled back at start ({@link Verdict#AFTER_RESTORED}).
 *   <li><b>Restored run, named at or before N</b>: a restored committer may hold it, and commits it
 *       before any checkpoint of the new run; or it belongs to another line of history of the sink (a
 *       run restored from an older snapshot, or a fresh run, that died before its checkpoint
 *       completed), and then nothing will ever commit it. The restored writer state tells which, when
 *       it can: every committable of checkpoint N's committer state was prepared by the writer
 *       instance that snapshotted N on the same subtask index (restored committables are committed
 *       before a run takes its first checkpoint, so none is carried over from an earlier run). So a
 *       transaction whose subtask's restored state names another run token, whose subtask index did
 *       not exist at N, or whose execution is not the one that took N, is an {@link Verdict#ORPHAN},
 *       rolled back at start: left alone it would hold its locks, and a replay that needs them would
 *       wait for ever. When the state of its subtask index went to another subtask (after a rescale), it
 *       is {@link Verdict#UNLESS_COMMITTED}: the restored committer that holds it commits it while its
 *       task initializes, at the same time as this writer starts, which waits for that. Only what is
 *       still prepared after the wait is left to the first checkpoint: Flink triggers one only once every
 *       task runs, that is after every restored committer committed what it holds, so what is still
 *       prepared then is an orphan (of another line of history of the execution that took N) and is
 *       rolled back.
 *   <li><b>No state of this sink restored</b>, yet leftovers of this sink id from another execution (another
 *       job, or another submission of this job under the same job id): a fresh start, or a restore that
 *       did not give this sink its state (a changed sink uid with {@code --allowNonRestoredState}). The sink cannot tell whether a completed checkpoint or savepoint
 *       promised such a transaction (a savepoint does not notify the sink: its transactions stay
 *       prepared until a later checkpoint completes) while the restored sources resume after it, in
 *       which case it is the only copy of its records. So the user's {@link
 *       dev.eosink.core.LeftoverPolicy} decides ({@link Verdict#LEFTOVER}); never the sink alone. When
 *       this subtask got no state but the run restored a checkpoint, another subtask's restored
 *       committer may still hold it ({@link Verdict#LEFTOVER_UNLESS_COMMITTED}): the policy decides what
 *       is still prepared after the same wait as above.
 *   <li><b>No state of this sink restored, this execution's own transaction</b>: a failover before this
 *       execution completed any checkpoint restarts without state, and finds what its earlier attempt
 *       prepared. No checkpoint of this execution promised it: rolled back at start ({@link
 *       Verdict#OWN_ATTEMPT}), whatever the policy. "This execution" is provable: the transaction's name
 *       carries the {@linkplain TransactionId#executionTag() execution tag}, which no other submission of
 *       the job graph has, even under the same job id.
 * </ol>
 */
@Internal
public final class RecoveryPlan {

    /** What becomes of one transaction this subtask judges. */
    public enum Verdict {
        /** Named after the restored checkpoint: rolled back at start. */
        AFTER_RESTORED,
        /** Named at or before the restored checkpoint, proven to be of another line of history: rolled back at start. */
        ORPHAN,
        /** Prepared by an earlier attempt of this execution, which has completed no checkpoint: rolled back at start. */
        OWN_ATTEMPT,
        /**
         * Promised by the restored checkpoint, as the writer state of its subtask index restored to this subtask
         * proves: held by a restored committer, which commits it as it starts. Never rolled back; waited for at
         * start, and the start is refused if it is still prepared then. Also given by a subtask that does not
         * own the transaction but got the state that proves it (see {@link RecoveryPlan}, ownership).
         */
        RESTORED_COMMITTER,
        /**
         * Maybe held by the restored committer of another subtask, which commits it as it starts: waited for at
         * start, and rolled back if still prepared at the first checkpoint.
         */
        UNLESS_COMMITTED,
        /** Another execution's, and no state of this sink was restored: the leftover policy decides at start. */
        LEFTOVER,
        /**
         * Another execution's, no state of this sink was restored to this subtask, but another subtask's
         * restored committer may hold it: waited for at start, and left to the leftover policy if it is still
         * prepared after the wait.
         */
        LEFTOVER_UNLESS_COMMITTED
    }

    /** Rolled back before the writer writes anything. */
    private static final Set<Verdict> AT_START =
            EnumSet.of(Verdict.AFTER_RESTORED, Verdict.ORPHAN, Verdict.OWN_ATTEMPT);

    private static final Comparator<TransactionId> BY_CHECKPOINT =
            Comparator.comparingLong(TransactionId::checkpointId).thenComparing(TransactionId::toString);

    private final Map<TransactionId, Verdict> verdicts;
    private final Map<TransactionId, String> reasons;
    private final boolean freshStart;
    private final RestoredCheckpoint restoredCheckpoint;

    private RecoveryPlan(
            Map<TransactionId, Verdict> verdicts,
            Map<TransactionId, String> reasons,
            boolean freshStart,
            RestoredCheckpoint restoredCheckpoint) {
        this.verdicts = Collections.unmodifiableMap(verdicts);
        this.reasons = Collections.unmodifiableMap(reasons);
        this.freshStart = freshStart;
        this.restoredCheckpoint = restoredCheckpoint;
    }

    /**
     * @param prepared the sink's prepared transactions found in the database (any subtask, any run)
     * @param context who decides: sink id, subtask, parallelism, job, restored checkpoint
     * @param restored the writer state Flink restored to this subtask (empty on a fresh start, and on
     *     a restore that gave this subtask none)
     */
    public static RecoveryPlan decide(
            Collection<TransactionId> prepared, SubtaskContext context, Collection<WriterState> restored) {
        int subtask = context.subtask();
        int parallelism = context.parallelism();
        if (subtask < 0 || parallelism <= 0 || subtask >= parallelism) {
            throw new IllegalArgumentException("subtask " + subtask + " of parallelism " + parallelism);
        }
        String ownExecution = context.execution();
        boolean fresh = context.restoredCheckpointId().isEmpty();
        RestoredCheckpoint restoredCheckpoint = fresh
                ? RestoredCheckpoint.NONE
                : RestoredCheckpoint.of(
                        context.sinkId(), context.restoredCheckpointId().getAsLong(), restored);
        Map<TransactionId, Verdict> verdicts = new HashMap<>();
        Map<TransactionId, String> reasons = new HashMap<>();
        for (TransactionId id : prepared) {
            if (!id.sinkId().equals(context.sinkId())) {
                continue;
            }
            if (!isOwner(subtask, parallelism, id.subtask())) {
                // Flink hands an old index's writer state to whichever subtask it likes (contiguous blocks on
                // a rescale), rarely its owner; the owner then cannot tell this transaction promised. The
                // subtask that got the state can: it waits for the restored committers like the owner, and
                // refuses if none committed it, before any checkpoint lets the owner roll it back.
                if (!fresh
                        && id.checkpointId() <= context.restoredCheckpointId().getAsLong()
                        && restoredCheckpoint.provesHeld(id)) {
                    verdicts.put(id, Verdict.RESTORED_COMMITTER);
                }
                continue;
            }
            if (fresh) {
                verdicts.put(id, id.executionTag().equals(ownExecution) ? Verdict.OWN_ATTEMPT : Verdict.LEFTOVER);
                continue;
            }
            long restoredId = context.restoredCheckpointId().getAsLong();
            if (id.checkpointId() > restoredId) {
                verdicts.put(id, Verdict.AFTER_RESTORED);
                continue;
            }
            Optional<String> orphanBecause = restoredCheckpoint.provesOrphan(id);
            if (orphanBecause.isPresent()) {
                verdicts.put(id, Verdict.ORPHAN);
                reasons.put(id, orphanBecause.get());
            } else if (restoredCheckpoint.provesHeld(id)) {
                verdicts.put(id, Verdict.RESTORED_COMMITTER);
            } else if (restoredCheckpoint.sinkStateRestored()
                    || id.executionTag().equals(ownExecution)) {
                // This job's own transaction at or before a checkpoint of this job: that checkpoint holds
                // the sink's state, this subtask just got none of it (a rescale).
                verdicts.put(id, Verdict.UNLESS_COMMITTED);
            } else {
                verdicts.put(id, Verdict.LEFTOVER_UNLESS_COMMITTED);
            }
        }
        return new RecoveryPlan(verdicts, reasons, fresh, restoredCheckpoint);
    }

    /**
     * Whether checkpoint (or savepoint) {@code checkpointId}, whose writer states of the transaction's
     * sink are {@code states}, promised transaction {@code id}: a job restored from it would leave
     * {@code id} to its restored committers ({@link Verdict#RESTORED_COMMITTER}), which commit it. That
     * is: {@code id} is named at or before the checkpoint, and the checkpoint's writer state of its
     * subtask index names its run. Every other transaction of the sink is not promised: a restored job
     * would roll it back ({@link Verdict#AFTER_RESTORED}, {@link Verdict#ORPHAN}). State of the first
     * layout (no lineage) proves nothing, so nothing is promised by it. For operators' tools that finish
     * a dead job's transactions by hand; {@link #decide} applies the same rule at writer start.
     */
    public static boolean promises(long checkpointId, Collection<WriterState> states, TransactionId id) {
        return id.checkpointId() <= checkpointId
                && RestoredCheckpoint.of(id.sinkId(), checkpointId, states).provesHeld(id);
    }

    /** Whether the new subtask {@code subtask} of {@code parallelism} owns old subtask index {@code oldSubtask}. */
    public static boolean isOwner(int subtask, int parallelism, int oldSubtask) {
        return oldSubtask % parallelism == subtask;
    }

    /** The owned transactions with this verdict, oldest checkpoint first. */
    public List<TransactionId> with(Verdict verdict) {
        return select(id -> verdicts.get(id) == verdict);
    }

    public Verdict verdictOf(TransactionId id) {
        return verdicts.get(id);
    }

    /** Why an {@link Verdict#ORPHAN} is one, for the log; empty for other verdicts. */
    public Optional<String> reason(TransactionId id) {
        return Optional.ofNullable(reasons.get(id));
    }

    /** Everything rolled back at start, whatever the policy: oldest checkpoint first. */
    public List<TransactionId> rollBackAtStart() {
        return select(id -> AT_START.contains(verdicts.get(id)));
    }

    /**
     * Of the {@link Verdict#UNLESS_COMMITTED} transactions, those still prepared once a checkpoint of this run
     * has begun (so every restored committer committed what it holds): orphans. Oldest first. What the
     * restored writer state proves held ({@link Verdict#RESTORED_COMMITTER}) is never among them: its
     * committer commits it before this task runs, or fails the task.
     */
    public List<TransactionId> orphansStillPrepared(Collection<TransactionId> stillPrepared) {
        Set<TransactionId> still = new HashSet<>(stillPrepared);
        return select(id -> verdicts.get(id) == Verdict.UNLESS_COMMITTED && still.contains(id));
    }

    /** What the restored writer state said about the restored checkpoint, for messages. */
    public RestoredCheckpoint restoredCheckpoint() {
        return restoredCheckpoint;
    }

    public boolean freshStart() {
        return freshStart;
    }

    /**
     * The old subtask indices other than {@code subtask} among {@code ids}: indices this subtask adopted
     * from a larger earlier parallelism, whose ownership guards it must hold while it rolls them back.
     */
    public static SortedSet<Integer> adoptedSubtasks(Collection<TransactionId> ids, int subtask) {
        SortedSet<Integer> adopted = new TreeSet<>();
        for (TransactionId id : ids) {
            if (id.subtask() != subtask) {
                adopted.add(id.subtask());
            }
        }
        return Collections.unmodifiableSortedSet(adopted);
    }

    private List<TransactionId> select(java.util.function.Predicate<TransactionId> filter) {
        return verdicts.keySet().stream().filter(filter).sorted(BY_CHECKPOINT).collect(Collectors.toList());
    }

    /**
     * What the writer state restored to this subtask says about the restored checkpoint N: which run
     * token each subtask index's writer had at N, the parallelism at N and the job that took N.
     */
    public static final class RestoredCheckpoint {

        static final RestoredCheckpoint NONE =
                new RestoredCheckpoint(false, Map.of(), OptionalInt.empty(), Optional.empty());

        private final boolean sinkStateRestored;
        private final Map<Integer, String> runBySubtask;
        private final OptionalInt parallelism;
        /** The tag of the execution that took the checkpoint. */
        private final Optional<String> executionTag;

        private RestoredCheckpoint(
                boolean sinkStateRestored,
                Map<Integer, String> runBySubtask,
                OptionalInt parallelism,
                Optional<String> executionTag) {
            this.sinkStateRestored = sinkStateRestored;
            this.runBySubtask = runBySubtask;
            this.parallelism = parallelism;
            this.executionTag = executionTag;
        }

        static RestoredCheckpoint of(String sinkId, long restoredCheckpointId, Collection<WriterState> restored) {
            List<WriterState> ours =
                    restored.stream().filter(s -> s.sinkId().equals(sinkId)).collect(Collectors.toList());
            Map<Integer, String> runs = new HashMap<>();
            OptionalInt parallelism = OptionalInt.empty();
            Optional<String> executionTag = Optional.empty();
            for (WriterState s : ours) {
                // Only state of the restored checkpoint itself, and with a lineage, can prove anything.
                if (s.checkpointId() != restoredCheckpointId || s.lineage().isEmpty()) {
                    continue;
                }
                WriterState.Lineage lineage = s.lineage().get();
                runs.put(s.subtask(), lineage.run());
                parallelism = OptionalInt.of(lineage.parallelism());
                executionTag = Optional.of(TransactionId.tagOf(lineage.run()));
            }
            return new RestoredCheckpoint(
                    !ours.isEmpty(), Collections.unmodifiableMap(runs), parallelism, executionTag);
        }

        /** Whether Flink restored this sink's writer state (to this subtask): it was part of the checkpoint. */
        public boolean sinkStateRestored() {
            return sinkStateRestored;
        }

        /** The sink's parallelism when the restored checkpoint was taken; empty when no state with lineage says. */
        public OptionalInt parallelism() {
            return parallelism;
        }

        boolean provesHeld(TransactionId id) {
            return id.run().equals(runBySubtask.get(id.subtask()));
        }

        Optional<String> provesOrphan(TransactionId id) {
            String run = runBySubtask.get(id.subtask());
            if (run != null) {
                return run.equals(id.run())
                        ? Optional.empty()
                        : Optional.of("the restored writer state of subtask " + id.subtask() + " names run " + run
                                + ", and only that run's transactions can be in the restored committer state");
            }
            if (parallelism.isPresent() && id.subtask() >= parallelism.getAsInt()) {
                return Optional.of("the restored checkpoint was taken at parallelism " + parallelism.getAsInt()
                        + ", so no subtask " + id.subtask() + " took part in it");
            }
            if (executionTag.isPresent() && !executionTag.get().equals(id.executionTag())) {
                return Optional.of("it was prepared by another execution (tag " + id.executionTag() + ") than the one "
                        + "that took the restored checkpoint (tag " + executionTag.get() + ")");
            }
            return Optional.empty();
        }

        @Override
        public String toString() {
            if (!sinkStateRestored) {
                return "no writer state of this sink restored";
            }
            if (runBySubtask.isEmpty()) {
                return "writer state without lineage";
            }
            return "runs " + new java.util.TreeMap<>(runBySubtask) + " at parallelism "
                    + (parallelism.isPresent() ? parallelism.getAsInt() : "?");
        }
    }
}
