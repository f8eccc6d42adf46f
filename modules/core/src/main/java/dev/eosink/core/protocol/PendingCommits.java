package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.CheckpointOutcomes.Outcome;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The transactions one writer prepared and has not seen committed yet, oldest first, each with the
 * checkpoint whose barrier prepared it once the writer snapshotted that checkpoint.
 *
 * <p>A transaction leaves when its commit is known: the committer of the writer's task marked it in
 * {@link CommitSignals}, or {@link CheckpointOutcomes} heard that the committer of the writer's sink
 * and subtask was notified that its checkpoint or a later one completed (a committer that runs apart from the
 * writer commits it then, on its own thread). Another subtask's or sink's notification is not enough: see
 * {@link CheckpointOutcomes}. Commits come in checkpoint order, so a
 * known commit takes every older entry with it. A committer in another JVM signals nothing; {@link
 * #retainOnly} then brings the list in line with what the database says is still prepared.
 *
 * <p>Used by the task thread only.
 */
final class PendingCommits {

    /** One prepared transaction of this writer. */
    static final class Entry {
        final TransactionId id;
        final long preparedAtNanos;
        /** The checkpoint whose barrier prepared it; 0 until the writer snapshots it. */
        long checkpointId;

        Entry(TransactionId id, long preparedAtNanos) {
            this.id = id;
            this.preparedAtNanos = preparedAtNanos;
        }

        OptionalLong checkpoint() {
            return checkpointId == 0 ? OptionalLong.empty() : OptionalLong.of(checkpointId);
        }
    }

    private final String jobId;
    /** The writer's own committer, as {@link CheckpointOutcomes} names it. */
    private final String committer;
    private final Deque<Entry> entries = new ArrayDeque<>();

    PendingCommits(String jobId, String sinkId, int subtask) {
        this.jobId = jobId;
        this.committer = CheckpointOutcomes.committer(sinkId, subtask);
    }

    void prepared(TransactionId id, long nanos) {
        CommitSignals.expect(id);
        entries.addLast(new Entry(id, nanos));
    }

    /** The checkpoint that Flink snapshotted right after the last barrier: the one those entries wait for. */
    void snapshotted(long checkpointId) {
        for (Entry e : entries) {
            if (e.checkpointId == 0) {
                e.checkpointId = checkpointId;
            }
        }
    }

    /** Drops the entries known committed. */
    void refresh() {
        Entry newestCommitted = null;
        for (Entry e : entries) {
            if (isCommitted(e)) {
                newestCommitted = e;
            }
        }
        if (newestCommitted == null) {
            return;
        }
        while (!entries.isEmpty()) {
            Entry e = entries.removeFirst();
            CommitSignals.forget(e.id);
            if (e == newestCommitted) {
                return;
            }
        }
    }

    boolean isCommitted(Entry e) {
        return CommitSignals.isCommitted(e.id) || outcome(e) == Outcome.COMPLETED;
    }

    /** What was heard of the entry's checkpoint. */
    Outcome outcome(Entry e) {
        return e.checkpointId == 0 ? Outcome.UNKNOWN : CheckpointOutcomes.of(jobId, committer, e.checkpointId);
    }

    /** Keeps only the entries the database still lists as prepared. */
    void retainOnly(Collection<TransactionId> stillPrepared) {
        Set<TransactionId> still = new HashSet<>(stillPrepared);
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (!still.contains(e.id)) {
                CommitSignals.forget(e.id);
                it.remove();
            }
        }
    }

    int size() {
        return entries.size();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    Optional<Entry> newest() {
        return Optional.ofNullable(entries.peekLast());
    }

    List<TransactionId> ids() {
        return entries.stream().map(e -> e.id).collect(Collectors.toList());
    }

    /** The checkpoints the entries wait for, for messages. */
    List<String> checkpoints() {
        List<String> checkpoints = new ArrayList<>();
        for (Entry e : entries) {
            checkpoints.add(e.checkpointId == 0 ? "?" : Long.toString(e.checkpointId));
        }
        return checkpoints;
    }

    /** Forgets everything: the writer is closing, nobody waits any more. */
    void clear() {
        for (Entry e : entries) {
            CommitSignals.forget(e.id);
        }
        entries.clear();
    }
}
