/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
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
 * <p>A transaction leaves when its commit is known: the committer of the writer's subtask marked it in
 * {@link CommitSignals} after the commit returned (whether it runs in the writer's task or, chaining
 * disabled, in a task of its own in this JVM), or the database no longer lists it as prepared ({@link
 * #retainOnly}: a committer in another JVM signals nothing). A completion heard by {@link
 * CheckpointOutcomes} is no proof: the committer may not have committed yet. Commits come in checkpoint
 * order, so a known commit takes every older entry with it.
 *
 * <p>Used by the task thread only, except {@link #stillPrepared()}: every change publishes an immutable
 * copy of the entries, which the metrics reporter's thread reads.
 */
final class PendingCommits {

    /** One prepared transaction of this writer. */
    static final class Entry {
        final TransactionId id;
        final long preparedAtNanos;
        /** The checkpoint whose barrier prepared it; 0 until the writer snapshots it. */
        long checkpointId;
        /** Whether the writer warned that it stays prepared too long: once per transaction. */
        boolean warnedAboutAge;

        Entry(TransactionId id, long preparedAtNanos) {
            this.id = id;
            this.preparedAtNanos = preparedAtNanos;
        }

        OptionalLong checkpoint() {
            return checkpointId == 0 ? OptionalLong.empty() : OptionalLong.of(checkpointId);
        }
    }

    /** The writer's execution: {@link CheckpointOutcomes} are kept per execution. */
    private final String execution;
    /** The writer's own committer, as {@link CheckpointOutcomes} names it. */
    private final String committer;

    private final Deque<Entry> entries = new ArrayDeque<>();

    /** What {@link #stillPrepared()} reads: the entries as of the last change, oldest first. */
    private volatile Published[] published = new Published[0];

    /** An entry as published for other threads: immutable. */
    private record Published(TransactionId id, long preparedAtNanos, long checkpointId) {
        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Published other
                            && id.equals(other.id)
                            && preparedAtNanos == other.preparedAtNanos
                            && checkpointId == other.checkpointId;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(id, preparedAtNanos, checkpointId);
        }

        @Override
        public String toString() {
            return "Published{" + id + ", checkpoint " + checkpointId + "}";
        }
    }

    /**
     * How many of the entries are not known committed, and when the oldest of those was prepared:
     * for the gauges, from any thread.
     *
     * @param count 0 when none
     * @param oldestPreparedAtNanos on the writer's clock; meaningless when {@code count} is 0
     */
    record Snapshot(int count, long oldestPreparedAtNanos) {
        static final Snapshot NONE = new Snapshot(0, 0);

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Snapshot other
                            && count == other.count
                            && oldestPreparedAtNanos == other.oldestPreparedAtNanos;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(count, oldestPreparedAtNanos);
        }

        @Override
        public String toString() {
            return "Snapshot{" + count + " prepared, oldest at " + oldestPreparedAtNanos + "}";
        }
    }

    PendingCommits(String execution, String sinkId, int subtask) {
        this.execution = execution;
        this.committer = CheckpointOutcomes.committer(sinkId, subtask);
    }

    void prepared(TransactionId id, long nanos) {
        CommitSignals.expect(id);
        entries.addLast(new Entry(id, nanos));
        publish();
    }

    /** The checkpoint that Flink snapshotted right after the last barrier: the one those entries wait for. */
    void snapshotted(long checkpointId) {
        for (Entry e : entries) {
            if (e.checkpointId == 0) {
                e.checkpointId = checkpointId;
            }
        }
        publish();
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
        List<TransactionId> committed = new ArrayList<>();
        while (!entries.isEmpty()) {
            Entry e = entries.removeFirst();
            committed.add(e.id);
            if (e == newestCommitted) {
                break;
            }
        }
        // Published before the signals go: a reader finds them gone, or finds them committed; only one that
        // took the old copy just before and asks just after counts them once more, for that one reading.
        publish();
        committed.forEach(CommitSignals::forget);
    }

    /** Whether the writer's committer signalled the entry committed: a completion heard is not enough. */
    boolean isCommitted(Entry e) {
        return CommitSignals.isCommitted(e.id);
    }

    /** What was heard of the entry's checkpoint: a completion is a cue to look, an abort is final. */
    Outcome outcome(Entry e) {
        return e.checkpointId == 0 ? Outcome.UNKNOWN : CheckpointOutcomes.of(execution, committer, e.checkpointId);
    }

    /** Whether this JVM hears the outcomes of the writer's checkpoints: its outcome operator runs here. */
    boolean hearsOutcomes() {
        return CheckpointOutcomes.hears(execution, committer);
    }

    /** Keeps only the entries the database still lists as prepared. */
    void retainOnly(Collection<TransactionId> stillPrepared) {
        Set<TransactionId> still = new HashSet<>(stillPrepared);
        List<TransactionId> gone = new ArrayList<>();
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (!still.contains(e.id)) {
                gone.add(e.id);
                it.remove();
            }
        }
        publish();
        gone.forEach(CommitSignals::forget);
    }

    /** The entries, oldest first, for the writer's checks; not to be changed. */
    Iterable<Entry> entries() {
        return entries;
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
        List<Entry> all = new ArrayList<>(entries);
        entries.clear();
        publish();
        for (Entry e : all) {
            CommitSignals.forget(e.id);
        }
    }

    private void publish() {
        Published[] copy = new Published[entries.size()];
        int i = 0;
        for (Entry e : entries) {
            copy[i++] = new Published(e.id, e.preparedAtNanos, e.checkpointId);
        }
        published = copy;
    }

    /**
     * The entries of the last change that are still not known committed: safe from any thread, and
     * cheap (a handful of entries, a map lookup each). Between two of the writer's own checks a commit
     * may be heard that the writer has not acted on yet; this asks, as {@link #refresh} would, and for
     * the gauges also takes a completion heard as a commit (it is one, done or under way): a committer
     * in another JVM signals nothing, and its transactions would otherwise stay in the gauges until the
     * writer next asks the database.
     */
    Snapshot stillPrepared() {
        Published[] all = published;
        int newestCommitted = -1;
        for (int i = all.length - 1; i >= 0 && newestCommitted < 0; i--) {
            Published p = all[i];
            if (CommitSignals.isCommitted(p.id)
                    || p.checkpointId != 0
                            && CheckpointOutcomes.of(execution, committer, p.checkpointId) == Outcome.COMPLETED) {
                newestCommitted = i;
            }
        }
        int first = newestCommitted + 1;
        return first >= all.length ? Snapshot.NONE : new Snapshot(all.length - first, all[first].preparedAtNanos);
    }
}
