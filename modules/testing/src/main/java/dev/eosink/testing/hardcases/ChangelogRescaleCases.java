/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.UpsertRecords;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static dev.eosink.testing.hardcases.TestJobs.awaitStatus;
import static dev.eosink.testing.hardcases.TestJobs.checkpoint;
import static dev.eosink.testing.hardcases.TestJobs.checkpointIdOf;
import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.manualEnv;
import static dev.eosink.testing.hardcases.TestJobs.restoreFrom;
import static dev.eosink.testing.hardcases.TestJobs.savepoint;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rescale cases of a changelog (upserts and deletes by key, {@link KeyedResource}): only a backend with
 * upserts has one, so only the suites of such backends (PostgreSQL, MariaDB through XA) implement this
 * interface, besides {@link RescaleCases}. Nothing is skipped: a suite either runs every case here or none.
 */
public interface ChangelogRescaleCases extends HardCaseSupport {

    /** How many records the changelog jobs write. */
    long CHANGELOG_IDS = 3_000;

    /** Odd: record {@code i >= LAG} of odd index deletes the key record {@code i - LAG} inserted. */
    int CHANGELOG_LAG = 41;

    /** Statements of this many keys: they run within an epoch, not only at barriers. */
    int CHANGELOG_BATCH = 20;

    /** How long every commit takes more than it would (a busy committer, a synchronous standby). */
    Duration SLOW_COMMIT = Duration.ofMillis(700);

    /** The backend's changelog sink; a suite implements this interface only for a backend that has one. */
    default KeyedResource keyedResource() {
        return backend()
                .keyed()
                .orElseThrow(() -> new IllegalStateException(backend().name()
                        + " has no changelog sink (no upserts): its suite must not implement ChangelogRescaleCases"));
    }

    /**
     * A changelog restored at a higher parallelism with slow commits: a savepoint taken at {@code from} once
     * {@code savepointAt} records were written, its transactions still prepared, restored at {@code to}. Keys
     * move between subtasks, so a subtask new to the savepoint gets deletes of keys whose inserts are in a
     * savepoint transaction of another subtask, which that subtask's restored committer commits as its task
     * starts, {@link #SLOW_COMMIT} late. A delete run before that commit would miss its row (PostgreSQL's
     * DELETE does not see a prepared insert), which then survives. The new subtask is told the restored
     * checkpoint all the same, so it holds its statements until its first barrier, which Flink triggers only
     * once every task (the committers' too) runs. With the savepoint 30 records before
     * the end, the restored input ends while the restored commit is still under way. Ends exact: the table is
     * the replay of the input, nothing prepared left.
     */
    @ParameterizedTest(name = "{0} -> {1}, savepoint after {2} records")
    @CsvSource({"1, 2, 1000", "2, 3, 1000", "1, 2, 2970"})
    default void aChangelogRestoredAtAHigherParallelismDeletesOnlyWhatTheRestoredCommitsMadeVisible(
            int from, int to, long savepointAt, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir)
            throws Exception {
        backend().dropTarget(target());
        keyedResource().createKeyedTarget(target());
        String valve = sinkId();
        IdValve.reset(valve);

        IdValve.openTo(valve, 400);
        StreamExecutionEnvironment first = manualEnv(from);
        changelog(first, valve);
        JobClient job = first.executeAsync("changelog at " + from);
        await(() -> ProtocolTrace.written(sinkId()) >= 400, "400 records written");
        long c = checkpoint(client, job.getJobID());
        await(() -> preparedLeft().isEmpty(), "checkpoint " + c + " committed");
        IdValve.openTo(valve, savepointAt);
        await(() -> ProtocolTrace.written(sinkId()) >= savepointAt, savepointAt + " records written");
        String savepoint = savepoint(job, dir);
        long s = checkpointIdOf(savepoint);
        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        awaitSessionsClosed();
        List<TransactionId> ofSavepoint = prepared();
        assertThat(ofSavepoint)
                .as("the savepoint's transactions, still prepared")
                .isNotEmpty()
                .extracting(TransactionId::checkpointId)
                .containsOnly(s);

        Faults.lag(sinkId(), Faults.Point.BEFORE_COMMIT, SLOW_COMMIT);
        IdValve.openFully(valve);
        StreamExecutionEnvironment restored = env(to, 200, restoreFrom(savepoint));
        changelog(restored, valve);
        restored.execute("changelog restored at " + to);

        assertThat(markedGids())
                .as("the savepoint's transactions, committed")
                .containsAll(ofSavepoint.stream().map(TransactionId::toString).toList());
        assertThat(preparedLeft())
                .as("prepared transactions of sink %s left", sinkId())
                .isEmpty();
        Map<Long, Long> expected =
                UpsertRecords.replay(CHANGELOG_IDS, ChangelogRescaleCases::key, ChangelogRescaleCases::kind);
        Map<Long, Long> actual = keyedResource().rowsByKey(target());
        Map<Long, Long> survivors = new HashMap<>(actual);
        survivors.keySet().removeAll(expected.keySet());
        assertThat(survivors)
                .as("rows of deleted keys left in %s: a delete ran before the commit of its insert", target())
                .isEmpty();
        assertThat(actual)
                .as("rows by key in %s: the replay of the input", target())
                .isEqualTo(expected);
        for (int subtask = from; subtask < to; subtask++) {
            assertThat(Faults.writerRestoredCheckpoints(sinkId(), subtask))
                    .as("the restored checkpoint Flink told writer %s, new to the savepoint", subtask)
                    .containsExactly(OptionalLong.of(s));
        }
    }

    /**
     * Ids 0..{@link #CHANGELOG_IDS}-1 through the valve {@code valve} ({@link IdValve}: one source subtask, so
     * that each key's records reach its writer in order through every rescale) into this test's changelog
     * sink (uid "eosink"), which partitions them by key itself.
     */
    private void changelog(StreamExecutionEnvironment env, String valve) {
        ExactlyOnceSink<Long> sink = FaultInjectingDatabase.wrap(ProtocolTrace.wrap(keyedResource()
                .changelogSink(
                        spec().withBatchSize(CHANGELOG_BATCH),
                        ChangelogRescaleCases::key,
                        ChangelogRescaleCases::kind,
                        KeyedResource.Method.STATEMENTS)));
        IdValve.ids(env, valve, CHANGELOG_IDS).sinkTo(sink).uid("eosink").name("eosink");
    }

    /** Record {@code i}'s key: its own, or, for a delete, the key of record {@code i - LAG}. */
    static long key(long i) {
        return deletes(i) ? i - CHANGELOG_LAG : i;
    }

    /** Inserts and UPDATE_AFTERs of new keys; from {@code LAG} on, each odd record deletes (DELETE, UPDATE_BEFORE). */
    static RowKind kind(long i) {
        if (deletes(i)) {
            return i / 2 % 2 == 0 ? RowKind.UPDATE_BEFORE : RowKind.DELETE;
        }
        return i / 2 % 2 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER;
    }

    private static boolean deletes(long i) {
        return i % 2 == 1 && i >= CHANGELOG_LAG;
    }
}
