/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.LogCapture;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.HeldPastTheBarrier;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;
import dev.eosink.testing.records.CheckpointPacedIds;
import dev.eosink.testing.records.UpsertRecords;
import dev.eosink.testing.records.UpsertRecords.KeyFunction;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.failureOf;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.hardcases.TestJobs.messages;
import static dev.eosink.testing.hardcases.TestJobs.noRestarts;
import static dev.eosink.testing.records.UpsertRecords.replay;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Upserts and deletes by key through XA on a real MariaDB: the last record of each key wins, exactly,
 * through failures, a declined checkpoint and a savepoint that carries held statements, and no
 * statement waits for a row lock of the writer's own prepared branch (the lock timeout is short: such
 * a wait would fail the job). One shared MariaDB (the fixture) and MiniCluster; small data. The cases
 * of a declined checkpoint feed the records through a valve ({@link IdValve}) and trigger each
 * checkpoint themselves, so that the order of records, barriers, decline and commits is forced.
 */
class XaMariaDbUpsertITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final MariaDbFixture db = MariaDbFixture.get();
    private final XaMariaDbBackend backend = new XaMariaDbBackend();
    private String table;
    private String sinkId;
    private HeldPastTheBarrier held;

    @BeforeEach
    void setUp() {
        table = "xa_upsert_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        sinkId = table.replace('_', '-');
        Faults.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        IdValve.reset(sinkId);
        held = new HeldPastTheBarrier(sinkId);
    }

    @AfterEach
    void tearDown() {
        backend.rollbackAllPrepared(sinkId);
        Faults.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        IdValve.reset(sinkId);
    }

    /** (k, v, note): the sink user may update and delete, as an upsert sink needs. */
    private void createKv(String key) {
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL, v BIGINT NOT NULL, note VARCHAR(40)"
                + (key == null ? "" : ", " + key) + ") ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER
                + "'@'%'");
    }

    private XaSinkBuilder<Long> kvSink(KeyFunction key) {
        return XaSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(MariaDbFixture.SINK_USER)
                .password(MariaDbFixture.SINK_PASSWORD)
                .sinkId(sinkId)
                .table(table)
                .columns("k", "v", "note")
                .rows(i -> new Object[] {key.of(i), i, i % 5 == 0 ? null : "n" + i})
                .upsert("k")
                .batchSize(50)
                // A statement waiting for a row lock of the writer's own prepared branch would fail the job.
                .lockTimeout(Duration.ofSeconds(5))
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50));
    }

    /** 300 hot keys, each written about every 300 records. */
    static long hotKey(long i) {
        return (i * 7919) % 300;
    }

    /** Exact: every key's row is its last record's, no other row, notes included, nothing left prepared. */
    private void assertKv(Map<Long, Long> expected) throws SQLException {
        Map<Long, Long> actual = new HashMap<>();
        long badNotes = 0;
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v, note FROM " + table)) {
            while (rs.next()) {
                long v = rs.getLong(2);
                assertThat(actual.put(rs.getLong(1), v))
                        .as("key %d twice", rs.getLong(1))
                        .isNull();
                String note = rs.getString(3);
                if (!java.util.Objects.equals(note, v % 5 == 0 ? null : "n" + v)) {
                    badNotes++;
                }
            }
        }
        Map<Long, Long> missing = new HashMap<>(expected);
        missing.keySet().removeAll(actual.keySet());
        Map<Long, Long> extra = new HashMap<>(actual);
        extra.keySet().removeAll(expected.keySet());
        assertThat(missing).as("missing keys").isEmpty();
        assertThat(extra)
                .as("keys that should not be there (duplicates or missed deletes)")
                .isEmpty();
        assertThat(actual).as("each key's last record").isEqualTo(expected);
        assertThat(badNotes).as("rows whose note is not their record's").isZero();
        assertThat(backend.prepared(sinkId)).as("prepared branches left").isEmpty();
    }

    /**
     * Hot keys with deletes at parallelism 2, failures injected after a prepare and before a commit:
     * statements of each epoch rewrite the keys of the previous one, whose branch is prepared and
     * locks them, so they run only after its commit (batches of 50 run mid-epoch, waiting for it).
     */
    @Test
    void hotKeysWithDeletesUnderFailuresAtParallelism2AreExact() throws Exception {
        createKv("PRIMARY KEY (k)");
        long n = 8_000;
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 4);
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 9);
        StreamExecutionEnvironment env = env(2, 150);
        ExactlyOnceSink<Long> built = kvSink(XaMariaDbUpsertITCase::hotKey)
                .changelog(UpsertRecords::hotKind)
                .build();
        // Paced by checkpoints: at least eight epochs with records, so the fourth PREPARE and the ninth commit come.
        CheckpointPacedIds.orderedIds(env, n, 500)
                .keyBy(XaMariaDbUpsertITCase::hotKey, Types.LONG)
                .sinkTo(FaultInjectingDatabase.wrap(built));
        env.execute("xa upsert hot keys");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertKv(replay(n, XaMariaDbUpsertITCase::hotKey, UpsertRecords::hotKind));
    }

    /**
     * Checkpoint 2 is declined once both writers (parallelism 2) prepared it, and the job goes on: that
     * branch commits only with the next completed checkpoint, so the statements of the epoch after it
     * (hot keys) are held past checkpoint 3's barrier, carried in its state, and run after its commit.
     * No failover (restarts are off), no lock wait; exact.
     */
    @Test
    void aDeclinedCheckpointHoldsTheStatementsPastTheBarrier(@InjectClusterClient ClusterClient<?> client)
            throws Exception {
        createKv("UNIQUE KEY (k)");
        long n = 4 * HeldPastTheBarrier.EPOCH;
        LogCapture log = LogCapture.attach();
        try {
            JobClient job = held.declineThenFeedAnEpoch(
                    client, "xa upsert: a declined checkpoint", env -> valvedJob(env, n, held.decliner()));
            try {
                assertThat(TestJobs.checkpoint(client, job.getJobID()))
                        .as("checkpoint 3, which commits 2 and 3")
                        .isEqualTo(3);
                IdValve.openFully(sinkId);
                TestJobs.checkpointUntilFinished(client, job);
            } finally {
                TestJobs.cancelUnlessDone(job);
            }
        } finally {
            log.detach();
        }
        held.assertHeldPastTheBarrierOf(3, log.text());
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN))
                .as("carried statements written by a restore")
                .isEmpty();
        assertKv(replay(n, XaMariaDbUpsertITCase::hotKey, UpsertRecords::hotKind));
    }

    /**
     * As above, but instead of checkpoint 3 the job is stopped with a savepoint while both writers hold
     * statements for the declined branch's commit: they are carried in the savepoint's state (the stop
     * commits both branches, no failover). A new job restored from it at parallelism 2 writes them in
     * a local transaction before its first record, then the rest of the records; exact.
     */
    @Test
    void aStopAfterADeclinedCheckpointCarriesHeldStatementsIntoTheSavepoint(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        createKv("PRIMARY KEY (k)");
        long n = 4 * HeldPastTheBarrier.EPOCH;
        LogCapture log = LogCapture.attach();
        try {
            JobClient job = held.declineThenFeedAnEpoch(
                    client, "xa upsert: a declined checkpoint", env -> valvedJob(env, n, held.decliner()));
            String savepoint;
            try {
                savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                TestJobs.cancelUnlessDone(job);
            }
            assertThat(TestJobs.checkpointIdOf(savepoint))
                    .as("the savepoint's checkpoint")
                    .isEqualTo(3);
            held.assertHeldPastTheBarrierOf(3, log.text());
            assertThat(backend.prepared(sinkId)).as("prepared after the stop").isEmpty();

            IdValve.openFully(sinkId);
            StreamExecutionEnvironment second = env(2, 200, TestJobs.restoreFrom(savepoint));
            valvedJob(
                    second,
                    n,
                    new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE));
            second.execute("xa upsert: restored from the savepoint");
        } finally {
            log.detach();
        }
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN))
                .as("restored writers that wrote carried statements")
                .extracting(e -> e.subtask)
                .containsExactlyInAnyOrder(0, 1);
        assertThat(log.text())
                .as("a restored writer wrote what the savepoint carried")
                .contains("carried by");
        assertKv(replay(n, XaMariaDbUpsertITCase::hotKey, UpsertRecords::hotKind));
    }

    /** Valved ids through a decliner (in the source's task) into the traced upsert sink, each with a uid for the restore. */
    private void valvedJob(StreamExecutionEnvironment env, long n, CheckpointDecliner decliner) {
        ExactlyOnceSink<Long> built = kvSink(XaMariaDbUpsertITCase::hotKey)
                .changelog(UpsertRecords::hotKind)
                .build();
        IdValve.ids(env, sinkId, n)
                .map(decliner)
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(ProtocolTrace.wrap(built))
                .uid("sink");
    }

    /**
     * A row the database refuses inside a statement of many rows (a value too long for {@code note}) fails
     * the job naming the sink, subtask, table, checkpoint, XA branch and the epoch's records the
     * statement held, says it fails the same way after every restart, and never shows the password;
     * nothing of the epoch is visible, nothing is left prepared. A null key is refused naming its record.
     */
    @Test
    void aRefusedUpsertAndANullKeyFailNamingWhereAndWhy() throws Exception {
        createKv("PRIMARY KEY (k)");
        StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
        ids(env, 120, 5_000)
                .sinkTo(kvSink(i -> i)
                        .rows(i -> new Object[] {i, i, i == 77 ? "x".repeat(41) : "n" + i})
                        .build());
        String refused = messages(failureOf(() -> env.execute("a refused upsert")));
        assertThat(refused)
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("epoch of checkpoint 1")
                .contains("XA branch e1/")
                .contains("in the upserts and deletes of records #50 to #99 of the epoch")
                .contains("Data too long for column")
                .contains("the job will fail the same way after every restart")
                .doesNotContain(MariaDbFixture.SINK_PASSWORD);

        StreamExecutionEnvironment second = env(1, 60_000, noRestarts());
        ids(second, 120, 5_000)
                .sinkTo(kvSink(i -> i)
                        .rows(i -> new Object[] {i == 33 ? null : i, i, "n" + i})
                        .build());
        assertThat(messages(failureOf(() -> second.execute("a null key"))))
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("at record #33 of the epoch (counting from 0) [33]")
                .contains("the upsert key column k is null")
                .doesNotContain(MariaDbFixture.SINK_PASSWORD);
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isZero();
        assertThat(backend.prepared(sinkId)).as("prepared branches left").isEmpty();
    }

    /**
     * Without a unique key on exactly the upsert columns, the sink refuses at start, naming what to add, and
     * the job fails without restarts under Flink's default restart strategy (which would restart it for ever):
     * its writer started once.
     */
    @Test
    void noUniqueKeyOnTheUpsertColumnsIsRefusedAtStart() throws Exception {
        createKv("UNIQUE KEY (k, v)");
        StreamExecutionEnvironment env = TestJobs.envWithDefaultRestarts(1, 200);
        ids(env, 10, 1_000).sinkTo(FaultInjectingDatabase.wrap(kvSink(i -> i).build()));
        Throwable failure = TestJobs.failureWithin(env.executeAsync("no unique key"), TestJobs.TIMEOUT);
        assertThat(Faults.writerStarts(sinkId, 0))
                .as("writer starts: no restart")
                .containsExactly(0);
        assertThat(messages(failure))
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("no PRIMARY KEY or UNIQUE key on exactly the upsert key columns [k]")
                .contains("[k, v]")
                .contains("ADD UNIQUE KEY (`k`)")
                .doesNotContain(MariaDbFixture.SINK_PASSWORD);
    }
}
