/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableRoute;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.Faults.Point;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Truncates routed to a table ({@code TableChanges.truncate}): the table's rows go in the epoch's transaction, the
 * changes routed to it before are dropped, those after apply to the emptied table; through failures, and carried
 * past a declined checkpoint in a savepoint's writer state, the tables end exactly as the records say.
 */
class RoutedTablesTruncateITCase extends ExactlyOnceTestBase {

    @AfterEach
    void forgetTheValveAndTrace() {
        IdValve.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
    }

    /**
     * Record i upserts a row of the wiped table (row i % 50; after the last truncate, only the even rows, so that the
     * odd ones stay only if that truncate was lost) and row i % 50 of the kept one; records 420 and 1,170 truncate
     * the first and then upsert a row into it.
     */
    private static final class Wipes implements TableRoute<Long> {
        private static final long serialVersionUID = 1L;

        final String wiped;
        final String kept;

        Wipes(String prefix) {
            this.wiped = "public." + prefix + "_wiped";
            this.kept = "public." + prefix + "_kept";
        }

        static boolean wipes(long i) {
            return i == 420 || i == 1_170;
        }

        static long key(long i) {
            return i < 1_170 ? i % 50 : (i % 25) * 2;
        }

        @Override
        public void route(Long i, TableChanges out) {
            out.upsert(wiped, key(i), "v" + i);
            if (wipes(i)) {
                out.truncate(wiped);
                out.upsert(wiped, (i + 1) % 50, "after " + i); // applies to the emptied table
            }
            out.upsert(kept, i % 50, "v" + i);
        }

        Map<Long, String> replayWiped(long n) {
            Map<Long, String> rows = new TreeMap<>();
            for (long i = 0; i < n; i++) {
                rows.put(key(i), "v" + i);
                if (wipes(i)) {
                    rows.clear();
                    rows.put((i + 1) % 50, "after " + i);
                }
            }
            return rows;
        }

        RoutedTables<Long> tables(String prefix) {
            return RoutedTables.route(this)
                    .table(RoutedTable.of("public", prefix + "_wiped", List.of("id", "v"), List.of("id")))
                    .table(RoutedTable.of("public", prefix + "_kept", List.of("id", "v"), List.of("id")))
                    .build();
        }
    }

    private Wipes create() {
        db.execute("CREATE TABLE " + table + "_wiped (id bigint PRIMARY KEY, v text NOT NULL)");
        db.execute("CREATE TABLE " + table + "_kept (id bigint PRIMARY KEY, v text NOT NULL)");
        return new Wipes(table);
    }

    private ExactlyOnceSink<Long> sink(Wipes wipes) {
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .tables(wipes.tables(table))
                .batchSize(50)
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build()));
    }

    private Map<Long, String> read(String name) throws Exception {
        Map<Long, String> rows = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, v FROM " + name)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getString(2));
            }
        }
        return rows;
    }

    private void assertExact(Wipes wipes, long n) throws Exception {
        assertThat(preparedLeft())
                .as("prepared transactions of sink %s left", sinkId)
                .isEmpty();
        assertThat(read(wipes.wiped)).as("the wiped table, row by row").isEqualTo(wipes.replayWiped(n));
        Map<Long, String> kept = new TreeMap<>();
        for (long i = Math.max(0, n - 50); i < n; i++) {
            kept.put(i % 50, "v" + i);
        }
        assertThat(read(wipes.kept)).as("the kept table, row by row").isEqualTo(kept);
    }

    @Test
    void truncatesEmptyTheTableInTheirEpochThroughFailuresWithChainingOff() throws Exception {
        long n = 2_000;
        Wipes wipes = create();
        Faults.arm(sinkId, Point.WRITE, 425);
        Faults.arm(sinkId, Point.AFTER_PREPARE, 2);
        Faults.arm(sinkId, Point.BEFORE_COMMIT, 4);
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.fixedDelayRestarts(20, Duration.ofMillis(100)));
        env.disableOperatorChaining();
        // 2 s of records: checkpoints enough for both commit faults even on a busy machine.
        TestJobs.ids(env, n, 1_000).sinkTo(sink(wipes));
        env.execute("truncated routed tables through failures");

        assertExact(wipes, n);
        assertThat(Faults.fired(sinkId, Point.WRITE)
                        + Faults.fired(sinkId, Point.AFTER_PREPARE)
                        + Faults.fired(sinkId, Point.BEFORE_COMMIT))
                .as("failures injected")
                .isEqualTo(3);
    }

    /**
     * Checkpoint 2 is declined once prepared; the next records, a truncate among them, wait for its commit and are
     * held; the job stops with a savepoint that carries them, truncate included, and the restored writer empties the
     * table before it writes them, before its first record.
     */
    @Test
    void aTruncateHeldPastADeclinedCheckpointTravelsInTheSavepoint(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        long epoch = 500;
        long n = 4 * epoch;
        Wipes wipes = create();
        String savepoint;
        StreamExecutionEnvironment first = TestJobs.manualEnv(1, TestJobs.noRestarts());
        first.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        job(
                first,
                n,
                wipes,
                new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE_ONCE_SINK_PREPARED));
        JobClient job = first.executeAsync("truncated routed tables, a declined checkpoint");
        try {
            feed(epoch);
            assertThat(TestJobs.checkpoint(client, job.getJobID())).isEqualTo(1);
            feed(2 * epoch);
            assertThat(client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED))
                    .as("checkpoint 2, declined")
                    .failsWithin(TestJobs.TIMEOUT);
            feed(3 * epoch); // record 1,170 truncates, held with the others
            savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            TestJobs.cancelUnlessDone(job);
        }
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED))
                .as("snapshots that carried held changes")
                .anySatisfy(e -> assertThat(e.checkpointOfGid()).isEqualTo(3));

        IdValve.openFully(sinkId);
        StreamExecutionEnvironment second = TestJobs.env(1, 200, TestJobs.restoreFrom(savepoint));
        job(
                second,
                n,
                wipes,
                new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE));
        second.execute("truncated routed tables, restored from the savepoint");

        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN))
                .as("restored writers that wrote carried changes")
                .extracting(e -> e.subtask)
                .containsExactly(0);
        assertExact(wipes, n);
    }

    private void job(StreamExecutionEnvironment env, long n, Wipes wipes, CheckpointDecliner decliner) {
        IdValve.ids(env, sinkId, n)
                .map(decliner)
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(sink(wipes))
                .uid("sink");
    }

    /** Lets the source emit up to {@code records} ids in all, and waits until the writer took them. */
    private void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> ProtocolTrace.written(sinkId) == records, "the writer to take " + records + " records");
    }
}
