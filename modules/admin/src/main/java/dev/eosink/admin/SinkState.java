/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.RecoveryPlan;
import dev.eosink.core.protocol.WriterState;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * What one checkpoint (or savepoint) holds of one sink id: its writers' states and, when the tool
 * could read it, its committers' committables.
 *
 * @param sinkId the sink id
 * @param checkpointId the checkpoint's id
 * @param writerStates every writer subtask's state, by subtask
 * @param committables the committer state's committables, oldest first; empty if the committer's
 *     state was not found or could not be read (see {@code committerNote})
 * @param committerNote why the committables are missing, empty when they were read
 */
record SinkState(
        String sinkId,
        long checkpointId,
        List<WriterState> writerStates,
        List<PreparedTransaction> committables,
        Optional<String> committerNote) {

    SinkState {
        writerStates = writerStates.stream()
                .sorted(Comparator.comparingInt(WriterState::subtask))
                .toList();
        committables = committables.stream()
                .sorted(Comparator.comparingLong((PreparedTransaction p) -> p.id().checkpointId())
                        .thenComparingInt(p -> p.id().subtask()))
                .toList();
    }

    /**
     * What a job restored from this checkpoint would commit: the rule of {@link RecoveryPlan#promises}.
     * Writer state without lineage (eosink's first layout) proves nothing; a job restored from it
     * commits what its committers hold and rolls back the rest at its first checkpoint, so then the
     * committer state's committables are the promise ({@link #decidable} says whether it was read).
     */
    boolean promises(TransactionId id) {
        if (!id.sinkId().equals(sinkId)) {
            return false;
        }
        if (!withLineage()) {
            return committables.stream().anyMatch(c -> c.id().equals(id));
        }
        return RecoveryPlan.promises(checkpointId, writerStates, id);
    }

    /**
     * Whether there are writer states and every one carries a run token (lineage): the rule can be applied to the
     * writer states.
     */
    boolean withLineage() {
        return !writerStates.isEmpty()
                && writerStates.stream().allMatch(s -> s.lineage().isPresent());
    }

    /**
     * Whether the sink's writers had all finished before this checkpoint (the end of a bounded input): Flink records
     * a finished operator with no state at all, so only the committer state names the sink. Its committables are
     * then the whole promise: a job restored from this checkpoint runs no writer (it neither prepares nor rolls back
     * anything); its committers commit what they hold. Such a state is made only from committables that were read.
     */
    boolean writersFinished() {
        return writerStates.isEmpty();
    }

    /** Whether {@link #promises} can decide: by the writer states, or by committer state that was read. */
    boolean decidable() {
        return withLineage() || committerNote.isEmpty();
    }

    /** Why {@code id} is promised or not, for the plan's lines. */
    String why(TransactionId id) {
        Optional<WriterState> state =
                writerStates.stream().filter(s -> s.subtask() == id.subtask()).findFirst();
        if (writersFinished()) {
            return promises(id)
                    ? "promised: a committable of the committer state (the sink's writers had finished before checkpoint "
                            + checkpointId + ": its committables are all it promised)"
                    : "not promised: not a committable of the committer state, and the sink's writers had finished "
                            + "before checkpoint " + checkpointId
                            + " (the end of the input), so it promised nothing else";
        }
        if (!withLineage()) {
            return promises(id)
                    ? "promised: a committable of the committer state (writer state without run tokens)"
                    : "not promised: not a committable of the committer state (writer state without run tokens)";
        }
        if (promises(id)) {
            return "promised: the writer state of subtask " + id.subtask() + " names run " + id.run()
                    + ", and checkpoint " + id.checkpointId() + " <= " + checkpointId;
        }
        if (id.checkpointId() > checkpointId) {
            // All this checkpoint can tell: a plain savepoint taken after it notifies no sink, so its
            // transactions stay prepared, and a job restored from it would commit them.
            return "not promised by checkpoint " + checkpointId + ": prepared for checkpoint " + id.checkpointId()
                    + ", after it. A job restored from checkpoint " + checkpointId
                    + " rolls it back; a later savepoint "
                    + "or checkpoint, if one was taken, may have promised it (a plain savepoint does not notify the sink, "
                    + "so its transactions stay prepared until a job restored from it commits them)";
        }
        if (state.isEmpty()) {
            return "not promised: the checkpoint holds no writer state of subtask " + id.subtask()
                    + parallelism().stream()
                            .mapToObj(p -> " (it was taken at parallelism " + p + ")")
                            .findFirst()
                            .orElse("");
        }
        if (state.get().run().isEmpty()) {
            return "not promised: the writer state of subtask " + id.subtask() + " has no run token (state of "
                    + "eosink's first release), so it proves nothing";
        }
        return "not promised: the writer state of subtask " + id.subtask() + " names run "
                + state.get().run().get() + ", not " + id.run();
    }

    OptionalInt parallelism() {
        return writerStates.stream()
                .map(WriterState::parallelism)
                .filter(OptionalInt::isPresent)
                .findFirst()
                .orElse(OptionalInt.empty());
    }

    /** The committables named by this checkpoint's committer state that the rule does not promise: never expected. */
    List<TransactionId> committablesNotPromised() {
        if (!withLineage()) {
            return List.of();
        }
        return committables.stream()
                .map(PreparedTransaction::id)
                .filter(id -> !promises(id))
                .collect(Collectors.toList());
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof SinkState other
                        && sinkId.equals(other.sinkId)
                        && checkpointId == other.checkpointId
                        && writerStates.equals(other.writerStates)
                        && committables.equals(other.committables)
                        && committerNote.equals(other.committerNote);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(sinkId, checkpointId, writerStates, committables, committerNote);
    }

    @Override
    public String toString() {
        return "SinkState[" + sinkId + " at checkpoint " + checkpointId + ", " + writerStates.size()
                + " writer states, " + committables.size() + " committables]";
    }
}
