package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Decides, at writer start, which prepared transactions found in the database this subtask rolls
 * back. This is the one place where the sink destroys prepared work, so its rules are strict:
 *
 * <ol>
 *   <li><b>Ownership.</b> A transaction prepared by subtask {@code s} is owned by the subtask
 *       {@code s mod parallelism} of the new run. Every old index has exactly one owner, whatever
 *       the old and new parallelism (rescale up, down, or an upscale that failed and went back), and
 *       no two subtasks ever act on the same transaction.
 *   <li><b>Restored run: roll back only what no committer will commit.</b> A committable in restored
 *       state belongs to a checkpoint at or before the restored one; a transaction named with a
 *       later checkpoint belongs to a checkpoint that did not complete (see {@link TransactionId}'s
 *       naming invariant). So at start exactly the owned transactions with {@code checkpoint >
 *       restored} are rolled back; the others are left alone, for the restored committer (on
 *       whichever subtask Flink gave the committable to) to commit.
 *   <li><b>Restored run, once the restored commits are done: roll back the orphans.</b> A name at or
 *       before the restored checkpoint does not prove that the restored state holds it: another
 *       lineage of the job (a run restored from an older savepoint, or a fresh run, that died
 *       before its checkpoint completed) numbered its transactions from a lower checkpoint on. Flink
 *       triggers a checkpoint only when every task is running, that is after every restored
 *       committer committed what it holds (or failed its task). So when the first checkpoint of the
 *       restored run reaches the writer, an owned transaction from {@link #leftForCommitter()} that
 *       is still prepared is held by no committer: {@link #orphans} rolls it back. Left alone, it
 *       would hold its locks and VACUUM back forever.
 *   <li><b>Fresh run: everything owned is a leftover</b> of an earlier run of the same sink id that
 *       died without committing. There is no committer state that could commit it; what happens is
 *       the user's {@link dev.eosink.core.LeftoverPolicy}.
 * </ol>
 *
 * <p>Leftovers of other sink ids are never looked at: every name carries its sink id.
 */
public final class RecoveryPlan {

    private final List<TransactionId> toRollBack;
    private final List<TransactionId> leftForCommitter;
    private final boolean freshStart;

    private RecoveryPlan(
            List<TransactionId> toRollBack,
            List<TransactionId> leftForCommitter,
            boolean freshStart) {
        this.toRollBack = Collections.unmodifiableList(toRollBack);
        this.leftForCommitter = Collections.unmodifiableList(leftForCommitter);
        this.freshStart = freshStart;
    }

    /**
     * @param prepared the sink's prepared transactions found in the database (any subtask, any run)
     * @param restoredCheckpointId the checkpoint the job restored from; empty on a fresh start
     */
    public static RecoveryPlan decide(
            Collection<TransactionId> prepared,
            String sinkId,
            int subtask,
            int parallelism,
            OptionalLong restoredCheckpointId) {
        if (subtask < 0 || parallelism <= 0 || subtask >= parallelism) {
            throw new IllegalArgumentException("subtask " + subtask + " of parallelism " + parallelism);
        }
        List<TransactionId> rollBack = new ArrayList<>();
        List<TransactionId> keep = new ArrayList<>();
        for (TransactionId id : prepared) {
            if (!id.sinkId().equals(sinkId) || !isOwner(subtask, parallelism, id.subtask())) {
                continue;
            }
            boolean newerThanRestored =
                    restoredCheckpointId.isEmpty() || id.checkpointId() > restoredCheckpointId.getAsLong();
            if (newerThanRestored) {
                rollBack.add(id);
            } else {
                keep.add(id);
            }
        }
        rollBack.sort(RecoveryPlan::byCheckpoint);
        keep.sort(RecoveryPlan::byCheckpoint);
        return new RecoveryPlan(rollBack, keep, restoredCheckpointId.isEmpty());
    }

    /**
     * The orphans among {@link #leftForCommitter()}: those still prepared once a checkpoint of the
     * restored run has begun (so every restored committer has committed what it holds), given the
     * sink's prepared transactions listed at that moment. Sorted oldest checkpoint first.
     */
    public List<TransactionId> orphans(Collection<TransactionId> stillPrepared) {
        List<TransactionId> orphans = new ArrayList<>(leftForCommitter);
        orphans.retainAll(new HashSet<>(stillPrepared));
        return orphans;
    }

    /** Whether the new subtask {@code subtask} of {@code parallelism} owns old subtask index {@code oldSubtask}. */
    public static boolean isOwner(int subtask, int parallelism, int oldSubtask) {
        return oldSubtask % parallelism == subtask;
    }

    private static int byCheckpoint(TransactionId a, TransactionId b) {
        int c = Long.compare(a.checkpointId(), b.checkpointId());
        return c != 0 ? c : a.toString().compareTo(b.toString());
    }

    /** Owned transactions to roll back, oldest checkpoint first. */
    public List<TransactionId> toRollBack() {
        return toRollBack;
    }

    /**
     * Owned transactions at or before the restored checkpoint: a restored committer commits those it
     * holds; the others are {@link #orphans}.
     */
    public List<TransactionId> leftForCommitter() {
        return leftForCommitter;
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

    public boolean freshStart() {
        return freshStart;
    }
}
