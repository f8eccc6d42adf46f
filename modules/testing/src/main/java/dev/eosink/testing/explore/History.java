/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.hardcases.ProtocolTrace;

import org.apache.flink.api.common.JobID;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What happened when a {@link ScenarioRunner} ran a scenario: the jobs it started ({@link Run}), the
 * snapshots it took ({@link Snapshot}), what the database showed around each job, and at the end; the
 * {@link Oracle} judges it. Everything here is observed, none of it predicted.
 */
public final class History {

    /** How a job ended. */
    public enum End {
        /** It reached the end of its input and its last checkpoint. */
        FINISHED,
        /** Stopped with a savepoint. */
        STOPPED,
        /**
         * Cancelled, without a savepoint: its newest retained checkpoint, when newer than its savepoints, becomes a
         * snapshot.
         */
        CANCELED,
        /** The sink refused it at start (a refusal the docs describe: leftovers, a rewind). */
        REFUSED,
        /**
         * Flink would not start it: a snapshot taken with {@code --drain} marks its operators finished,
         * and Flink refuses a restore that chains a finished operator with a running one ("mixed operator
         * finished state"), a limit of Flink's on changing a job's chaining, not the sink's.
         */
        NOT_STARTED,
        /** It failed for any other reason. */
        FAILED
    }

    /** One submitted job. */
    public static final class Run {
        /** The run's place in the history, from 0. */
        public final int index;
        /** The step that submitted it. */
        public final Step.Start start;
        /** The snapshot it was restored from; null for a fresh start. */
        public final Snapshot origin;

        /** The sink's uid in this run: a new one when the step dropped the sink's state. */
        public final String sinkUid;
        /** Whether the sink's state was restored (a snapshot, and the sink's uid unchanged). */
        public final boolean sinkStateRestored;
        /** Whether this run is the one the runner added to close the scenario. */
        public final boolean closing;

        JobID jobId;
        /** Trace events with a sequence number in (firstSeq, lastSeq] are this run's. */
        long firstSeq;

        long lastSeq = Long.MAX_VALUE;
        Set<String> markersBefore = Set.of();
        Set<String> markersAfter = Set.of();
        Set<String> preparedBefore = Set.of();
        Set<String> preparedAfter = Set.of();
        End end;
        String failure = "";
        final List<Snapshot> snapshots = new ArrayList<>();

        Run(int index, Step.Start start, Snapshot origin, String sinkUid, boolean sinkStateRestored, boolean closing) {
            this.index = index;
            this.start = start;
            this.origin = origin;
            this.sinkUid = sinkUid;
            this.sinkStateRestored = sinkStateRestored;
            this.closing = closing;
        }

        /** Whether the trace event belongs to this run. */
        boolean owns(ProtocolTrace.Event e) {
            return e.seq > firstSeq && e.seq <= lastSeq;
        }

        @Override
        public String toString() {
            return "run " + index + (closing ? " (closing)" : "") + ": " + start + ", "
                    + (origin == null ? "fresh" : "from " + origin) + ", sink uid " + sinkUid
                    + (sinkStateRestored ? " (state restored)" : origin == null ? "" : " (state not restored)")
                    + " -> " + end + (failure.isEmpty() ? "" : ": " + failure);
        }
    }

    /** A savepoint, or a retained checkpoint of a cancelled job. */
    public static final class Snapshot {
        /** The snapshot's place in the history, from 0: what a step's snapshot number counts. */
        public final int index;
        /** Where Flink wrote it. */
        public final String path;
        /** The id of the checkpoint it holds, whose transactions it promised. */
        public final long checkpointId;
        /** The run that took it. */
        public final Run run;
        /**
         * How it was taken, for messages: {@code savepoint}, {@code stop savepoint}, {@code stop --drain savepoint} or
         * {@code retained checkpoint}.
         */
        public final String kind;
        /** Taken by a stop with {@code --drain}: its operators are recorded finished. */
        public final boolean drained;
        /** Transactions it promised were rolled back since: restoring it would report them LOST. */
        boolean unusable;
        /** The last trace event's sequence number when it was taken. */
        long takenSeq;

        Snapshot(int index, String path, long checkpointId, Run run, String kind, boolean drained) {
            this.index = index;
            this.path = path;
            this.checkpointId = checkpointId;
            this.run = run;
            this.kind = kind;
            this.drained = drained;
        }

        @Override
        public String toString() {
            return "snapshot#" + index + " (" + kind + " of run " + run.index + ", checkpoint " + checkpointId + ")";
        }
    }

    /** An operator's {@code eosink-admin resolve --apply} on a dead job ({@link Step.Resolve}). */
    public static final class Resolution {
        /** The job it finished, which ran last. */
        public final Run run;
        /** The snapshot it was given: the newest of that job. */
        public final Snapshot snapshot;

        /** The tool's exit code: 0 when it resolved every transaction. */
        public final int exitCode;
        /** Everything the tool printed, for the report of a violation. */
        public final String printed;

        Resolution(Run run, Snapshot snapshot, int exitCode, String printed) {
            this.run = run;
            this.snapshot = snapshot;
            this.exitCode = exitCode;
            this.printed = printed;
        }

        @Override
        public String toString() {
            return "eosink-admin resolve " + snapshot + " after run " + run.index + " -> exit " + exitCode;
        }
    }

    /** How the scenario's jobs wrote: which of {@link #idCounts} and {@link #rowsByKey} its target held. */
    final WriteMode mode;

    final List<Run> runs = new ArrayList<>();
    final List<Snapshot> snapshots = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    final List<Resolution> resolutions = new ArrayList<>();
    private List<ProtocolTrace.Event> trace = List.of();
    private Map<String, ProtocolTrace.Event> prepared;
    /** {@link WriteMode#INSERT}: what the target held once the scenario closed, id -> how many times. */
    Map<Long, Long> idCounts = Map.of();
    /** {@link WriteMode#CHANGELOG}: what the target held once the scenario closed, key -> value. */
    Map<Long, Long> rowsByKey = Map.of();

    Map<TransactionId, Long> committed = Map.of();
    /** The sink's prepared transactions once the scenario closed, before any remedy. */
    Set<String> preparedAtEnd = Set.of();
    /** Why the runner could not run the scenario to its end (a job that never ended); empty if it did. */
    String unfinished = "";

    History(WriteMode mode) {
        this.mode = mode;
    }

    /** The jobs submitted, in order, the closing run last; each with its start, origin and end. */
    public List<Run> runs() {
        return runs;
    }

    /**
     * What the runner noted while running: steps it skipped and why, transactions left prepared by abandoned lines of
     * history.
     */
    public List<String> notes() {
        return notes;
    }

    /** The transactions {@code run} prepared, by name, in the order of the trace. */
    Map<String, ProtocolTrace.Event> preparedBy(Run run) {
        Map<String, ProtocolTrace.Event> own = new java.util.LinkedHashMap<>();
        preparedByName().forEach((gid, e) -> {
            if (run.owns(e)) {
                own.put(gid, e);
            }
        });
        return own;
    }

    /** Every transaction the trace saw prepared, by name, in the order of the trace (read once). */
    Map<String, ProtocolTrace.Event> preparedByName() {
        if (prepared == null) {
            prepared = new java.util.LinkedHashMap<>();
            for (ProtocolTrace.Event e : trace) {
                if (e.kind == ProtocolTrace.Kind.PREPARED) {
                    prepared.put(e.gid, e);
                }
            }
        }
        return prepared;
    }

    /**
     * The transactions the writers of {@code run} prepared or tried to prepare: its execution's own, whether
     * or not the prepare's answer came back.
     */
    Set<String> ownedBy(Run run) {
        Set<String> own = new java.util.LinkedHashSet<>(preparedBy(run).keySet());
        for (ProtocolTrace.Event e : trace) {
            if (e.kind == ProtocolTrace.Kind.PREPARE_FAILED && run.owns(e)) {
                own.add(e.gid);
            }
        }
        return own;
    }

    /**
     * The transactions of {@code run} at whose barrier its writer carried writes past the barrier ({@link
     * ProtocolTrace.Kind#CARRIED}): some of their epoch's records were written after the barrier, perhaps by a
     * later run that restored the writer's state.
     */
    Set<String> carriedPast(Run run) {
        Set<String> carried = new HashSet<>();
        for (ProtocolTrace.Event e : trace) {
            if (e.kind == ProtocolTrace.Kind.CARRIED && e.gid != null && run.owns(e)) {
                carried.add(e.gid);
            }
        }
        return carried;
    }

    /** The transactions the sink of {@code run} rolled back by name (the writers' rollbacks of prepared ones). */
    Set<String> rolledBackBy(Run run) {
        Set<String> rolledBack = new java.util.LinkedHashSet<>();
        for (ProtocolTrace.Event e : trace) {
            if (e.kind == ProtocolTrace.Kind.ROLLED_BACK && run.owns(e)) {
                rolledBack.add(e.gid);
            }
        }
        return rolledBack;
    }

    /** The scenario's trace, once it closed. */
    void trace(List<ProtocolTrace.Event> events) {
        trace = List.copyOf(events);
        prepared = null;
    }

    static Set<String> names(List<TransactionId> ids) {
        Set<String> names = new HashSet<>();
        ids.forEach(id -> names.add(id.toString()));
        return names;
    }

    /** The runs, one per line, and the notes. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        runs.forEach(r -> text.append("  ").append(r).append('\n'));
        resolutions.forEach(r -> text.append("  ").append(r).append('\n'));
        notes.forEach(n -> text.append("  note: ").append(n).append('\n'));
        return text.toString();
    }
}
