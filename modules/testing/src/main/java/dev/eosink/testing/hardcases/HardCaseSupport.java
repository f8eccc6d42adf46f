/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.FaultInjectingDatabase;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every hard case stands on: the test's backend, its sink id and target (fresh for each test),
 * the sink under test, and what the resource shows, asked through the backend: the ids the target
 * holds, the sink's prepared transactions and what its markers prove committed. {@link
 * ResourceHardCases} implements the three accessors; the case groups use the rest. The cases that
 * need SQL stand on {@link JdbcHardCaseSupport}.
 */
public interface HardCaseSupport {

    /** The resource the test runs against: its sinks and what it shows. */
    ResourceBackend backend();

    /** This test's sink id: unique, short enough for every database's session names. */
    String sinkId();

    /** This test's target (a table {@code (id, payload)}, a directory), empty at the start. */
    String target();

    // ---------------------------------------------------------------- the sink

    /** The suite's options for this test's sink and table. */
    default SinkSpec spec() {
        return SinkSpec.of(sinkId(), target());
    }

    /** This test's sink, traced ({@link ProtocolTrace}) and with faults injectable at every point. */
    default ExactlyOnceSink<Long> sink() {
        return sink(spec());
    }

    /** A sink as {@code spec} says, traced and with faults injectable at every point. */
    default ExactlyOnceSink<Long> sink(SinkSpec spec) {
        return sink(backend(), spec);
    }

    /** A sink of {@code backend} (another server of the test's own) as {@code spec} says, traced and with faults. */
    default ExactlyOnceSink<Long> sink(ResourceBackend backend, SinkSpec spec) {
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(backend.sink(spec)));
    }

    /**
     * Source, rebalance, sink (uid "eosink"): the one topology of the tests that restore, so that any
     * run can restore any other run's savepoint at any parallelism.
     */
    default void pipeline(StreamExecutionEnvironment env, long offset, long n, double perSecond) {
        TestJobs.rebalancedIds(env, offset, n, perSecond)
                .sinkTo(sink())
                .uid("eosink")
                .name("eosink");
    }

    /** {@link #pipeline(StreamExecutionEnvironment, long, long, double)} from id 0. */
    default void pipeline(StreamExecutionEnvironment env, long n, double perSecond) {
        pipeline(env, 0, n, perSecond);
    }

    /**
     * Source, rebalance, [a stateful map chained to the sink,] the given sink under the given uid: for
     * runs that change the sink (its uid, its options) while the sources keep theirs.
     */
    default void pipeline(
            StreamExecutionEnvironment env,
            long n,
            double perSecond,
            ExactlyOnceSink<Long> sink,
            String sinkUid,
            boolean statefulMap) {
        DataStream<Long> in = TestJobs.rebalancedIds(env, 0, n, perSecond);
        if (statefulMap) {
            in = in.map(new TestJobs.CountingMap()).uid("counting");
        }
        in.sinkTo(sink).uid(sinkUid).name("eosink");
    }

    // ---------------------------------------------------------------- what the resource shows

    /** How many rows the target holds, duplicates included. */
    default long rows() {
        return backend().rows(target());
    }

    /** How many distinct ids the target holds. */
    default long distinctRows() {
        return idCounts().size();
    }

    /** id -> how many times the target holds it. */
    default Map<Long, Long> idCounts() {
        return backend().idCounts(target());
    }

    /** The names of this sink's prepared transactions, sorted. */
    default List<String> preparedLeft() {
        return prepared().stream().map(TransactionId::toString).sorted().collect(Collectors.toList());
    }

    /** This sink's prepared transactions, as the resource lists them. */
    default List<TransactionId> prepared() {
        return backend().prepared(sinkId());
    }

    /** The markers of transaction {@code gid}: 1 once it committed, else 0. */
    default long markers(String gid) {
        return markedGids().contains(gid) ? 1 : 0;
    }

    /** The names of the transactions of this sink that committed, by their markers. */
    default Set<String> markedGids() {
        return backend().committed(sinkId()).keySet().stream()
                .map(TransactionId::toString)
                .collect(Collectors.toSet());
    }

    /** The rows this sink's committed transactions wrote, by their markers. */
    default long markedRows() {
        return backend().committed(sinkId()).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    /** The rows of this sink's committed transactions named after a checkpoint up to {@code checkpointId}, by their markers. */
    default long markedRowsUpTo(long checkpointId) {
        return backend().committed(sinkId()).entrySet().stream()
                .filter(e -> e.getKey().checkpointId() <= checkpointId)
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** How many ids in {@code from..to-1} the target holds (each counted once). */
    default long distinctIdsIn(long from, long to) {
        return idCounts().keySet().stream().filter(id -> id >= from && id < to).count();
    }

    /** What {@link CheckpointDecliner} observes of this test's sink and target. */
    default CheckpointDecliner.DatabaseView databaseView() {
        return new CheckpointDecliner.DatabaseView() {
            @Override
            public List<String> prepared() {
                return preparedLeft();
            }

            @Override
            public long markers(String gid) {
                return HardCaseSupport.this.markers(gid);
            }

            @Override
            public long rowsBetween(long minId, long maxId) {
                return idCounts().entrySet().stream()
                        .filter(e -> e.getKey() >= minId && e.getKey() <= maxId)
                        .mapToLong(Map.Entry::getValue)
                        .sum();
            }

            @Override
            public long rows() {
                return HardCaseSupport.this.rows();
            }
        };
    }

    // ---------------------------------------------------------------- waiting for the job

    /** Waits until {@code writers} writer subtasks hold rows in their open transaction. */
    default void awaitOpenTransactions(int writers) throws InterruptedException {
        await(
                () -> ProtocolTrace.writersWithOpenRows(sinkId()) >= writers,
                writers + " writers of " + sinkId() + " with an open transaction");
    }

    /** Waits until {@code count} transactions named after checkpoint {@code checkpointId} are prepared. */
    default void awaitPrepared(long checkpointId, int count) throws InterruptedException {
        await(
                () -> prepared().stream()
                                .filter(id -> id.checkpointId() == checkpointId)
                                .count()
                        >= count,
                count + " prepared transactions of checkpoint " + checkpointId);
    }

    /** Waits until the server shows no session of this sink: after a cancel, every writer has gone. */
    default void awaitSessionsClosed() throws InterruptedException {
        await(() -> backend().openSessions(sinkId()) == 0, "the sessions of " + sinkId() + " to close");
    }

    /** Waits until the table shows at least {@code n} committed rows. */
    default void awaitRows(long n) throws InterruptedException {
        await(() -> rows() >= n, n + " rows in " + target());
    }

    // ---------------------------------------------------------------- the verdict

    /**
     * The end of every exactly-once case: exactly ids 0..n-1 in the table, each once (no duplicate,
     * none missing), and no prepared transaction of the sink left in the database.
     */
    default void assertExactlyOnce(long n) {
        assertExactlyOnce(backend(), n);
    }

    /** {@link #assertExactlyOnce(long)} on {@code db}: another server of the test's own. */
    default void assertExactlyOnce(ResourceBackend db, long n) {
        assertThat(db.prepared(sinkId()))
                .as("prepared transactions of sink %s left on %s", sinkId(), db.name())
                .isEmpty();
        assertEachIdOnce(db, n);
    }

    /**
     * What {@link #assertExactlyOnce(long)} asserts of the target, the sink's prepared transactions aside:
     * exactly ids 0..n-1, each once. For a case that shows a transaction left prepared, then resolves it.
     */
    default void assertEachIdOnce(long n) {
        assertEachIdOnce(backend(), n);
    }

    /** {@link #assertEachIdOnce(long)} on {@code db}. */
    default void assertEachIdOnce(ResourceBackend db, long n) {
        Map<Long, Long> counts = db.idCounts(target());
        long rows = counts.values().stream().mapToLong(Long::longValue).sum();
        long distinct = counts.size();
        long inRange = counts.keySet().stream().filter(id -> id >= 0 && id < n).count();
        assertThat(rows - distinct)
                .as("duplicate rows in %s on %s", target(), db.name())
                .isZero();
        assertThat(n - inRange)
                .as(
                        "missing ids in %s on %s (the first of them: %s)",
                        target(),
                        db.name(),
                        LongStream.range(0, n)
                                .filter(id -> !counts.containsKey(id))
                                .limit(20)
                                .boxed()
                                .collect(Collectors.toList()))
                .isZero();
        assertThat(rows).as("rows in %s on %s", target(), db.name()).isEqualTo(n);
    }

    /**
     * The end of a rewind to a snapshot S: every id S accounts for ({@code beforeS}) once, every later id
     * twice (once from the first run, once from the replay), none missing, none more than twice, and
     * no prepared transaction left.
     */
    default void assertOnceBeforeTwiceAfter(long n, Set<Long> beforeS) {
        assertThat(preparedLeft())
                .as(
                        "prepared transactions of sink %s left on %s",
                        sinkId(), backend().name())
                .isEmpty();
        Map<Long, Long> expected = new HashMap<>();
        for (long id = 0; id < n; id++) {
            expected.put(id, beforeS.contains(id) ? 1L : 2L);
        }
        Map<Long, Long> actual = idCounts();
        assertThat(actual.values()).as("no id more than twice").allMatch(count -> count <= 2);
        assertThat(actual.keySet()).as("ids present").isEqualTo(expected.keySet());
        assertThat(rows()).isEqualTo(n + (n - beforeS.size()));
        assertThat(actual).as("before the snapshot once, after it twice").isEqualTo(expected);
    }

    /**
     * The ids of this sink's committed transactions named after a checkpoint up to {@code checkpointId}:
     * what a snapshot with that id accounts for. A writer names a transaction with the last checkpoint
     * it snapshotted + 1, and every writer snapshots every checkpoint (a savepoint too): a transaction
     * prepared after the snapshot's barrier carries a larger number, one prepared at or before it a
     * number up to it. The ids come from the trace, the commit from the marker row.
     */
    default Set<Long> idsCommittedUpTo(long checkpointId) {
        Set<String> committed = markedGids();
        Set<Long> ids = new HashSet<>();
        for (ProtocolTrace.Event e : ProtocolTrace.events(sinkId(), ProtocolTrace.Kind.PREPARED)) {
            if (e.checkpointOfGid() <= checkpointId && committed.contains(e.gid)) {
                for (long id : e.ids()) {
                    ids.add(id);
                }
            }
        }
        return ids;
    }
}
