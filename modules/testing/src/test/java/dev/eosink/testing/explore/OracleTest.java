/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.ProtocolTrace.Kind;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;

import static dev.eosink.testing.hardcases.TraceEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The changelog oracle's allowance for a rewind across lines of history, on made-up histories: run 0 commits T0
 * (records 0..199) at its stop savepoint S0 (checkpoint 1); run 1, a fresh start, commits T1 (records 0..149,
 * among them record 100, the insert of key 1100); run 2 restores S0 with the sink's state and commits the rest.
 * Key 1100's last record is 181, a delete, in T0: run 1 wrote the key again after run 0 deleted it, and run 2
 * never writes it again.
 */
class OracleTest {

    private static final String T0 = "eos1/s/0/1/aaaaaaaa0001";
    private static final String T1 = "eos1/s/0/1/bbbbbbbb0001";
    private static final String T2 = "eos1/s/0/2/cccccccc0001";

    @Test
    void theKeysAnotherLineWroteAfterTheFinalLinesLastWriteMayKeepItsValue() {
        assertThat(ChangelogIds.key(100)).isEqualTo(ChangelogIds.key(181)).isEqualTo(1100L);
        assertThat(ChangelogIds.writes(100)).isTrue();
        assertThat(ChangelogIds.writes(181)).isFalse();
        assertThat(Oracle.violations(history(true, false, 100L))).isEmpty();
    }

    /** Without the other line's commit, the same table is a lost delete. */
    @Test
    void withoutAnotherLinesCommitTheKeyIsALostDelete() {
        assertThat(Oracle.violations(history(false, false, 100L)))
                .singleElement()
                .asString()
                .startsWith("NOT THE REPLAY")
                .contains("key 1100 = 100");
    }

    /**
     * A writer carried writes past S0's barrier, so run 2 may have written key 1100's delete as it started, after
     * run 1's commit: the key keeping run 1's value may be that write lost, and is reported.
     */
    @Test
    void aDeleteTheFinalLineMayHaveCarriedPastTheBarrierGetsNoAllowance() {
        assertThat(Oracle.violations(history(true, true, 100L)))
                .singleElement()
                .asString()
                .startsWith("NOT THE REPLAY")
                .contains("key 1100 = 100");
    }

    /** A value no record of another line's committed transactions wrote is reported, allowance or not. */
    @Test
    void aValueNoOtherLineWroteIsReported() {
        assertThat(Oracle.violations(history(true, false, 99L)))
                .singleElement()
                .asString()
                .startsWith("NOT THE REPLAY")
                .contains("key 1100 = 99");
    }

    private static History history(boolean otherLine, boolean carried, long key1100) {
        History h = new History(WriteMode.CHANGELOG);
        History.Run run0 = run(0, Step.Origin.FRESH, null, false, 0, 10, History.End.STOPPED);
        run0.markersAfter = Set.of(T0);
        History.Snapshot s0 = new History.Snapshot(0, "file:/s0", 1, run0, "stop savepoint", false);
        s0.takenSeq = 10;
        run0.snapshots.add(s0);
        h.runs.add(run0);
        h.snapshots.add(s0);
        List<ProtocolTrace.Event> trace = new ArrayList<>();
        trace.add(event(1, Kind.PREPARED, T0, null, ids(0, 200)));
        if (carried) {
            trace.add(event(2, Kind.CARRIED, T0, "40"));
        }
        Map<TransactionId, Long> committed = new HashMap<>();
        committed.put(id(T0), 200L);
        Set<String> beforeRun2 = Set.of(T0);
        if (otherLine) {
            History.Run run1 = run(1, Step.Origin.FRESH, null, false, 10, 20, History.End.STOPPED);
            run1.markersBefore = Set.of(T0);
            run1.markersAfter = Set.of(T0, T1);
            h.runs.add(run1);
            trace.add(event(11, Kind.PREPARED, T1, null, ids(0, 150)));
            committed.put(id(T1), 150L);
            beforeRun2 = Set.of(T0, T1);
        }
        History.Run run2 = run(h.runs.size(), Step.Origin.PICKED, s0, true, 20, 40, History.End.FINISHED);
        run2.markersBefore = beforeRun2;
        Set<String> after = new java.util.HashSet<>(beforeRun2);
        after.add(T2);
        run2.markersAfter = after;
        h.runs.add(run2);
        if (carried) {
            trace.add(event(21, Kind.CARRIED_WRITTEN, null, "S0"));
        }
        trace.add(event(22, Kind.PREPARED, T2, null, ids(200, Scenario.IDS)));
        committed.put(id(T2), Scenario.IDS - 200L);
        h.trace(trace);
        h.committed = committed;
        Map<Long, Long> table = new HashMap<>(ChangelogIds.expected());
        assertThat(table).doesNotContainKey(1100L);
        table.put(1100L, key1100);
        h.rowsByKey = table;
        return h;
    }

    private static History.Run run(
            int index,
            Step.Origin origin,
            History.Snapshot from,
            boolean stateRestored,
            long firstSeq,
            long lastSeq,
            History.End end) {
        History.Run run = new History.Run(
                index,
                new Step.Start(
                        origin, 0, true, false, 1, Step.Chaining.ON, true, LeftoverPolicy.ROLLBACK, RewindPolicy.WARN),
                from,
                "eosink",
                stateRestored,
                false);
        run.firstSeq = firstSeq;
        run.lastSeq = lastSeq;
        run.end = end;
        return run;
    }

    private static long[] ids(long from, long to) {
        return LongStream.range(from, to).toArray();
    }

    private static TransactionId id(String gid) {
        return TransactionId.parse(gid).orElseThrow();
    }
}
