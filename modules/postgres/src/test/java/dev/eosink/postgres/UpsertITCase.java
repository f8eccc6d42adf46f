/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.ForwardingEpochWriter;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;
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
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.types.RowKind;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.eosink.testing.records.UpsertRecords.replay;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The upsert mode end to end on a MiniCluster ({@code upsert(key)}, with {@code changelog(...)} for
 * deletes): new keys stream by binary COPY in chunks under savepoints, a chunk that meets a key
 * already in the table is redone as {@code ON CONFLICT} upserts, later writes of a key go as
 * statements after its COPY row, and statements wait for the writer's own previous commit.
 *
 * <p>Every job's records are a pure function of their index, so each test replays the same functions
 * in order to compute the end state, and checks it exactly: the row count, every key's value is its
 * last write (the record's index), no key missing, none unexpected, no prepared transaction left.
 * Where a test is about a path (chunks redone, COPY paused, several chunks per epoch), it also checks
 * from the writers' epoch summaries (their DEBUG line at PREPARE) that the path was taken.
 *
 * <p>At parallelism 2 the stream is keyed by the upsert key before the sink, as a user must do, and
 * the source runs at parallelism 1, so that each key's records reach its writer in index order.
 */
class UpsertITCase extends ExactlyOnceTestBase {

    private static final Logger LOG = LoggerFactory.getLogger(UpsertITCase.class);

    /** A key written before the job keeps this value unless the job writes it. */
    private static final long OLD = -1;

    private String kv;
    private Summaries summaries;
    private HeldPastTheBarrier held;

    @BeforeEach
    void setUp() {
        kv = table + "_kv";
        summaries = Summaries.attach();
        OwnCommitProbe.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        IdValve.reset(sinkId);
        held = new HeldPastTheBarrier(sinkId);
    }

    @AfterEach
    void tearDown() {
        summaries.detach();
        OwnCommitProbe.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        IdValve.reset(sinkId);
    }

    // ------------------------------------------------------------------ records, as functions of the index

    /** Nine records in ten bring a new key (their index); the tenth repeats a key written 1 to 40 records ago. */
    static long recentRepeatKey(long i) {
        if (i % 10 != 9) {
            return i;
        }
        return nonRepeat(i - 1 - (i / 10) % 40);
    }

    /** The nearest index at or before j that brings a new key in {@link #recentRepeatKey} and {@link #spreadKey}. */
    private static long nonRepeat(long j) {
        return j % 10 == 9 ? j - 1 : j;
    }

    /**
     * Nine records in ten bring a new key; the tenth repeats an earlier key at one of four distances:
     * 1 to 100 records back (in the window, often in the same statement batch); 17,000 to 20,000
     * back (around the window's edge: 16,384 new keys are about 18,200 records); 100,000 to 160,000
     * back (one or two epochs earlier at 100,000 records/s and 1 s checkpoints); half way back.
     */
    static long spreadKey(long i) {
        if (i % 10 != 9) {
            return i;
        }
        long d;
        switch ((int) ((i / 10) % 4)) {
            case 0:
                d = 1 + (i / 10) % 100;
                break;
            case 1:
                d = 17_000 + (i / 40) % 3_000;
                break;
            case 2:
                d = 100_000 + (i / 40) % 60_000;
                break;
            default:
                d = i / 2 + 1;
        }
        return i - d < 0 ? i : nonRepeat(i - d);
    }

    /** 600 hot keys, each written about every 600 records. */
    static long hotKey(long i) {
        return (i * 7919) % 600;
    }

    /** The note column: NULL for every fifth record, through COPY and statements alike. */
    static String note(long i) {
        return i % 5 == 0 ? null : "n" + i;
    }

    // ------------------------------------------------------------------ sinks and jobs

    private PostgresSinkBuilder<Long> upsertSink(String target) {
        return PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .table(target)
                .batchSize(500)
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50));
    }

    /** The kv table's sink: (k, v, note) = (key(i), i, note(i)). */
    private PostgresSinkBuilder<Long> kvSink(KeyFunction key) {
        return upsertSink(kv)
                .columns("k", "v", "note")
                .rows(i -> new Object[] {key.of(i), i, note(i)})
                .upsert("k");
    }

    private void createKv(String noteType) {
        db.execute("CREATE TABLE " + kv + " (k bigint PRIMARY KEY, v bigint NOT NULL, note " + noteType + ")");
    }

    /** Rows already in the table before the job: keys {@code keys}, value {@link #OLD}, note 'old'. */
    private void preexisting(List<Long> keys) {
        try (Connection c = db.connect();
                java.sql.PreparedStatement s = c.prepareStatement(
                        "INSERT INTO " + kv + " (k, v, note) SELECT unnest(?::bigint[]), " + OLD + ", 'old'")) {
            s.setArray(1, c.createArrayOf("bigint", keys.toArray()));
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<Long, Long> old(List<Long> keys) {
        Map<Long, Long> m = new HashMap<>();
        keys.forEach(k -> m.put(k, OLD));
        return m;
    }

    /** The kv table equals {@code expected} exactly: values, and notes (note(v), or 'old' for untouched keys). */
    private void assertKv(Map<Long, Long> expected) throws SQLException {
        Map<String, Long> actual = new HashMap<>();
        List<String> wrongNotes = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v, note FROM " + kv)) {
            while (rs.next()) {
                long k = rs.getLong(1);
                long v = rs.getLong(2);
                String note = rs.getString(3);
                actual.put(Long.toString(k), v);
                String expectedNote = v == OLD ? "old" : note(v);
                if (!Objects.equals(note, expectedNote) && wrongNotes.size() < 20) {
                    wrongNotes.add(k + ": " + note + " instead of " + expectedNote);
                }
            }
        }
        Map<String, Long> wanted = new HashMap<>();
        expected.forEach((k, v) -> wanted.put(Long.toString(k), v));
        assertExact(wanted, actual);
        assertThat(wrongNotes)
                .as("rows of %s whose note is not the one of their value", kv)
                .isEmpty();
    }

    /** Exact: no key missing, none unexpected, every value the last write, the same count, nothing prepared. */
    private void assertExact(Map<String, Long> expected, Map<String, Long> actual) {
        List<String> missing = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            Long a = actual.get(e.getKey());
            if (a == null) {
                missing.add(e.getKey());
            } else if (!a.equals(e.getValue())) {
                wrong.add(e.getKey() + "=" + a + " instead of " + e.getValue());
            }
        }
        List<String> unexpected =
                actual.keySet().stream().filter(k -> !expected.containsKey(k)).toList();
        assertThat(preparedLeft())
                .as("prepared transactions of sink %s left", sinkId)
                .isEmpty();
        assertThat(missing).as("keys missing (%d)", missing.size()).isEmpty();
        assertThat(unexpected)
                .as("keys that should not be there (%d)", unexpected.size())
                .isEmpty();
        assertThat(wrong)
                .as("keys whose value is not the last write (%d)", wrong.size())
                .isEmpty();
        assertThat(actual.size()).as("rows").isEqualTo(expected.size());
    }

    // ------------------------------------------------------------------ (a) keys already in the table

    /**
     * Half of the keys are in the table before the job (every even key, written by someone else,
     * with old values), so every COPY chunk meets some of them: each chunk fails on the unique index,
     * is rolled back to its savepoint and redone as upserts, and COPY pauses. Keys the job never
     * writes keep their old value; every other key ends with its last write.
     */
    @Test
    void halfTheKeysAlreadyInTheTableEveryChunkIsRedone() throws Exception {
        createKv("text");
        long n = 50_000;
        List<Long> before = new ArrayList<>();
        for (long k = 0; k < n; k += 2) {
            before.add(k);
        }
        for (long k = 1_000_000; k < 1_000_100; k++) {
            before.add(k); // never written by the job
        }
        preexisting(before);
        StreamExecutionEnvironment env = env(1, 300);
        ids(env, n, 50_000).sinkTo(kvSink(UpsertITCase::recentRepeatKey).build());
        env.execute("half the keys in the table");

        assertKv(replay(old(before), n, UpsertITCase::recentRepeatKey, i -> RowKind.INSERT));
        assertThat(summaries.redoneChunks(sinkId))
                .as("chunks redone: %s", summaries.lines(sinkId))
                .isPositive();
    }

    /**
     * Every key the job writes is in the table before it starts: COPY fails on every chunk, each is
     * redone as upserts, and COPY pauses longer after every failure in a row (chunk size x 2^failures
     * records go to the statements instead). No row is ever stored by COPY; the end state is exact.
     */
    @Test
    void everyKeyAlreadyInTheTableCopyKeepsFailingAndPauses() throws Exception {
        createKv("text");
        long n = 50_000;
        List<Long> before = new ArrayList<>();
        for (long k = 0; k < n; k++) {
            if (k % 10 != 9) {
                before.add(k);
            }
        }
        preexisting(before);
        StreamExecutionEnvironment env = env(1, 300);
        ids(env, n, 50_000).sinkTo(kvSink(UpsertITCase::recentRepeatKey).build());
        env.execute("every key in the table");

        assertKv(replay(old(before), n, UpsertITCase::recentRepeatKey, i -> RowKind.INSERT));
        assertThat(summaries.copiedRows(sinkId))
                .as("rows stored by COPY: %s", summaries.lines(sinkId))
                .isZero();
        assertThat(summaries.redoneChunks(sinkId))
                .as("chunks redone: %s", summaries.lines(sinkId))
                .isGreaterThanOrEqualTo(2);
    }

    /**
     * Only keys 80,000 to 81,999 of 160,000 records are in the table before the job: COPY first
     * succeeds (the first epoch copies and redoes nothing), then a chunk meets those keys and is redone,
     * COPY pauses, then succeeds again: more rows are copied in total than all new keys before
     * 80,000 (chunks take keys in first-write order, so rows copied beyond that came after the failure).
     */
    @Test
    void keysAlreadyInTheTableOnlyInTheMiddleOfTheStream() throws Exception {
        createKv("text");
        long n = 160_000;
        List<Long> before = new ArrayList<>();
        for (long k = 80_000; k < 82_000; k++) {
            if (k % 10 != 9) {
                before.add(k);
            }
        }
        preexisting(before);
        StreamExecutionEnvironment env = env(1, 500);
        // Paced by checkpoints: the first epoch holds at most 20,000 records, none of the keys in the table,
        // and the stream spans at least four epochs.
        CheckpointPacedIds.ids(env, n, 20_000)
                .sinkTo(kvSink(UpsertITCase::recentRepeatKey).build());
        env.execute("keys in the table in the middle");

        assertKv(replay(old(before), n, UpsertITCase::recentRepeatKey, i -> RowKind.INSERT));
        LOG.info("keys in the table in the middle: {}", summaries.lines(sinkId));
        List<long[]> epochs = summaries.epochs(sinkId);
        assertThat(epochs).as("epochs: %s", summaries.lines(sinkId)).hasSizeGreaterThanOrEqualTo(3);
        assertThat(epochs.get(0)[0]).as("rows copied in the first epoch").isPositive();
        assertThat(epochs.get(0)[2]).as("chunks redone in the first epoch").isZero();
        assertThat(summaries.redoneChunks(sinkId)).as("chunks redone").isPositive();
        long newKeysBefore = 80_000 - 8_000;
        assertThat(summaries.copiedRows(sinkId))
                .as("rows copied, vs new keys before the keys in the table: %s", summaries.lines(sinkId))
                .isGreaterThan(newKeysBefore);
    }

    // ------------------------------------------------------------------ (b) hot keys, deletes, failures

    /**
     * Hot keys (600 keys, each written about 50 times) with deletes, re-inserts after deletes and
     * UPDATE_BEFORE records (deletes too, unless a later record of the key wins), keyed by the upsert
     * key at parallelism 2, with 150 ms checkpoints, so that nearly every epoch rewrites keys of the
     * previous one, and usually some of its records arrive while that one is still prepared (logged;
     * they become statements, held back meanwhile). A failure right after a PREPARE and another in the
     * committer before COMMIT PREPARED restart the job; the end state is still the last write of every
     * key, replayed in order.
     *
     * <p>(With 300 keys per writer the statements never gather the quarter chunk that would run them
     * mid-epoch, so they run at the barrier, when the previous commit has long arrived: await() then
     * finds nothing pending. The wait itself is exercised by {@link #declinedCheckpointInUpsertMode}
     * and UpsertWriterITCase.)
     */
    @Test
    void hotKeysDeletesAndReinsertsUnderFailuresAtParallelism2() throws Exception {
        createKv("text");
        long n = 30_000;
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 4);
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 9);
        StreamExecutionEnvironment env = env(2, 150);
        ExactlyOnceSink<Long> built =
                kvSink(UpsertITCase::hotKey).changelog(UpsertRecords::hotKind).build();
        // Paced by checkpoints: at least ten epochs with records, so the fourth PREPARE and the ninth commit come.
        CheckpointPacedIds.orderedIds(env, n, 1_500)
                .keyBy(UpsertITCase::hotKey, Types.LONG)
                .sinkTo(FaultInjectingDatabase.wrap(OwnCommitProbe.wrap(built, sinkId)));
        env.execute("hot keys");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertKv(replay(Map.of(), n, UpsertITCase::hotKey, UpsertRecords::hotKind));
        // How many records arrive while the previous epoch is still prepared depends on timing (none
        // when the commit notification beats the next input, seen once in CI under load): logged, not
        // asserted. The pending path is asserted where it is deterministic: declinedCheckpointInUpsertMode
        // and UpsertWriterITCase.statementsWaitForTheOwnCommitWhileCopyGoesOn.
        LOG.info(
                "hot keys: {}; epochs {}",
                OwnCommitProbe.describe(sinkId),
                summaries.lines(sinkId).size());
    }

    // ------------------------------------------------------------------ (c) many new keys

    /**
     * 200,000 records, nine in ten a new key, the tenth repeating a key 1-100, 17,000-20,000 (around
     * the window's edge), 100,000-160,000 (epochs back) or i/2 records earlier; 1 s checkpoints,
     * so that epochs hold more new keys than the window and several COPY chunks. Exact at
     * parallelism 1 and 2.
     */
    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2})
    void manyNewKeysWithRepeatsAtVaryingDistances(int parallelism) throws Exception {
        createKv("text");
        long n = 200_000;
        StreamExecutionEnvironment env = env(parallelism, 1_000);
        // Paced by checkpoints: 100,000 records per completed checkpoint, so that some epoch holds at least
        // half of them however fast the writer is.
        DataStream<Long> ids = CheckpointPacedIds.orderedIds(env, n, 100_000);
        if (parallelism > 1) {
            ids = ids.keyBy(UpsertITCase::spreadKey, Types.LONG);
        }
        long t0 = System.nanoTime();
        ids.sinkTo(kvSink(UpsertITCase::spreadKey).build());
        env.execute("many new keys");
        LOG.info(
                "many new keys at parallelism {}: {} ms, epochs {}",
                parallelism,
                (System.nanoTime() - t0) / 1_000_000,
                summaries.lines(sinkId));

        assertKv(replay(Map.of(), n, UpsertITCase::spreadKey, i -> RowKind.INSERT));
        assertThat(summaries.copiedRows(sinkId)).as("rows stored by COPY").isGreaterThan(n / 2);
        assertThat(summaries.epochs(sinkId).stream().mapToLong(e -> e[1]).max().orElse(0))
                .as("most COPY chunks in one epoch: %s", summaries.lines(sinkId))
                .isGreaterThanOrEqualTo(2);
    }

    // ------------------------------------------------------------------ (d) a declined checkpoint

    /** Records 2j insert key j; odd records from 301 on delete the key inserted 300 records before. */
    static long insertThenDeleteKey(long i) {
        return i % 2 == 0 ? i / 2 : i >= 301 ? (i - 301) / 2 : 1_000_000 + i;
    }

    static RowKind insertThenDeleteKind(long i) {
        return i % 2 == 1 && i >= 301 ? RowKind.DELETE : RowKind.INSERT;
    }

    /** Records per epoch of the cases whose checkpoints the test triggers. */
    private static final long EPOCH = HeldPastTheBarrier.EPOCH;

    /**
     * Checkpoint 2 is declined once both writers (parallelism 2) prepared it; the next epoch deletes
     * keys that checkpoint 2's transactions inserted (and inserts only new keys, so no statement waits
     * for a lock). A DELETE does not see rows a prepared transaction inserted: run before they commit,
     * it would miss them and the epoch would commit without the deletes. That commit comes only with
     * checkpoint 3, whose barrier the writers must let through first, so they hold the deletes past it
     * (in its state): once it committed, the rows are still there; the writers run the deletes in the
     * epoch after the commit, and once checkpoint 4 committed the table is exactly the replay of four
     * epochs. Without a failover: restarts are off, and the end state is exact.
     */
    @Test
    void deletesOfRowsADeclinedCheckpointInsertedAreNeverMissed(@InjectClusterClient ClusterClient<?> client)
            throws Exception {
        createKv("text");
        long n = 5 * EPOCH;
        KeyFunction key = UpsertITCase::insertThenDeleteKey;
        RowKindFunction<Long> kind = UpsertITCase::insertThenDeleteKind;
        Map<Long, Long> deletedAfterCheckpoint2 = new HashMap<>();
        Map<Long, Long> afterTwoEpochs = replay(Map.of(), 2 * EPOCH, key::of, kind::kindOf);
        for (long i = 2 * EPOCH; i < 3 * EPOCH; i++) {
            if (kind.kindOf(i) == RowKind.DELETE && afterTwoEpochs.containsKey(key.of(i))) {
                deletedAfterCheckpoint2.put(key.of(i), afterTwoEpochs.get(key.of(i)));
            }
        }
        assertThat(deletedAfterCheckpoint2)
                .as("deletes in epoch 3 of rows the declined checkpoint inserted")
                .isNotEmpty();

        holdPastTheBarrierThenRun(
                client,
                n,
                key,
                kind,
                () -> assertThat(kvRows())
                        .as("rows the held deletes remove, still there once checkpoint 3 committed")
                        .containsAllEntriesOf(deletedAfterCheckpoint2));
        assertKv(replay(Map.of(), n, key::of, kind::kindOf));
    }

    /**
     * Checkpoint 2 is declined once both writers (parallelism 2) prepared it, and the job goes on
     * (tolerated): its transactions commit only with checkpoint 3. The next epoch rewrites their keys
     * (hot keys: upserts and deletes), so its statements wait for that commit, which cannot come before
     * the epoch's own barrier is through: each writer hears that checkpoint 2 was aborted and stops
     * waiting at once, holds those statements past checkpoint 3's barrier (once checkpoint 3 committed,
     * the table is still the replay of two epochs), and runs them after that commit (once checkpoint 4
     * committed, it is the replay of four). No statement ever waits for a lock of the writer's own, and
     * the job runs through without a failover (restarts are off); the end state is exact.
     */
    @Test
    void declinedCheckpointInUpsertMode(@InjectClusterClient ClusterClient<?> client) throws Exception {
        createKv("text");
        long n = 5 * EPOCH;
        holdPastTheBarrierThenRun(
                client,
                n,
                UpsertITCase::hotKey,
                UpsertRecords::hotKind,
                () -> assertKv(replay(Map.of(), 2 * EPOCH, UpsertITCase::hotKey, UpsertRecords::hotKind)));
        assertThat(OwnCommitProbe.awaitsWhilePending(sinkId))
                .as("waits that found the own commit pending")
                .isPositive();
        assertKv(replay(Map.of(), n, UpsertITCase::hotKey, UpsertRecords::hotKind));
    }

    /**
     * Checkpoint 2 is declined once both writers (parallelism 2) prepared it, and the job is stopped
     * with a savepoint before any other checkpoint: the statements of the epoch in between (hot keys:
     * upserts and deletes) must follow the declined transaction's commit, which comes only with the
     * savepoint. So both writers carry them into the savepoint's state, and the stop succeeds without a
     * failover (restarts are off). Restored from the savepoint, each writer writes what its state
     * carried before its first record; the job runs to the end and the table equals the replay of every
     * record.
     */
    @Test
    void aStopAfterADeclinedCheckpointCarriesHeldStatementsIntoTheSavepoint(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        createKv("text");
        long n = 4 * EPOCH;
        String savepoint = stopWhileCarrying(client, savepoints, n);

        IdValve.openFully(sinkId);
        StreamExecutionEnvironment second = env(2, 200, TestJobs.restoreFrom(savepoint));
        valvedJob(
                second,
                n,
                UpsertITCase::hotKey,
                UpsertRecords::hotKind,
                new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE));
        second.execute("restored from the savepoint");

        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN))
                .as("restored writers that wrote carried statements")
                .extracting(e -> e.subtask)
                .containsExactlyInAnyOrder(0, 1);
        assertThat(carriedNotices())
                .as("notices of carried statements once they are written")
                .isEmpty();
        assertKv(replay(Map.of(), n, UpsertITCase::hotKey, UpsertRecords::hotKind));
    }

    /**
     * The same stop, then a restore that does not give the sink its state: a changed sink uid with
     * --allowNonRestoredState, as after a topology change without uids, or a changed SQL query. The
     * statements carried into the savepoint are in its writer state only, and the stop committed the
     * transactions they follow, so nothing is prepared that a refusal of leftovers could name. The
     * transaction prepared at the savepoint's barrier recorded them (a notice row in the marker table):
     * the start is refused without restarts, naming them and how to write them, and nothing of it becomes
     * visible. (It used to run, replay the rest, and leave those keys at an older value: silent loss.)
     * Restored with the sink's state instead, the writers write them, and the run ends exact.
     */
    @Test
    void aRestoreWithoutTheSinksStateOfASavepointThatCarriesStatementsIsRefused(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        createKv("text");
        long n = 4 * EPOCH;
        String savepoint = stopWhileCarrying(client, savepoints, n);
        assertThat(carriedNotices())
                .as("notices of the carried statements, one per subtask")
                .containsExactly(0, 1);
        Map<Long, Long> atStop = kvRows();

        IdValve.openFully(sinkId);
        org.apache.flink.configuration.Configuration unmatched = TestJobs.restoreFrom(savepoint);
        unmatched.set(org.apache.flink.configuration.StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        unmatched.addAll(TestJobs.fixedDelayRestarts(50, Duration.ofMillis(100))); // the refusal suppresses them
        StreamExecutionEnvironment renamed = env(2, 200, unmatched);
        valvedJob(
                renamed,
                n,
                UpsertITCase::hotKey,
                UpsertRecords::hotKind,
                new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE),
                "sink-renamed");
        assertThatThrownBy(() -> renamed.execute("restored without the sink's state"))
                .rootCause()
                .hasMessageContaining("carried past the barrier of eos1/" + sinkId + "/")
                .hasMessageContaining("never written")
                .hasMessageContaining("eosink-admin carried")
                .hasMessageContaining("nothing of this job became visible");
        assertThat(Faults.writerAttempts(sinkId, 0))
                .as("no restart after the refusal")
                .containsExactly(0);
        assertThat(kvRows()).as("nothing of the refused run visible").isEqualTo(atStop);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared after the refusal")
                .isEmpty();
        assertThat(carriedNotices())
                .as("the notices stay for the right restore")
                .containsExactly(0, 1);

        StreamExecutionEnvironment remedy = env(2, 200, TestJobs.restoreFrom(savepoint));
        valvedJob(
                remedy,
                n,
                UpsertITCase::hotKey,
                UpsertRecords::hotKind,
                new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE));
        remedy.execute("restored with the sink's state");
        assertThat(carriedNotices()).isEmpty();
        assertKv(replay(Map.of(), n, UpsertITCase::hotKey, UpsertRecords::hotKind));
    }

    /**
     * The savepoint of a stop that carried statements, restored once and run to the end, then restored again
     * under rewindPolicy(FAIL): a rewind (the first restore committed checkpoints after the savepoint since it
     * was taken), which "fails without restarts; nothing of this job became visible" (guarantees.md). Only
     * subtask 0 asks the marker table; subtask 1 starts on its own, here before subtask 0 decides, and writes
     * what its restored state carried, committed at once: the savepoint's values of those keys, over the newer
     * rows the run from it committed. The refused run must leave the table as the finished run left it.
     */
    @Test
    void aRewindRefusedUnderRewindPolicyFailLeavesTheTableAsItWas(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        createKv("text");
        long n = 4 * EPOCH;
        String savepoint = stopWhileCarrying(client, savepoints, n);
        IdValve.openFully(sinkId);
        StreamExecutionEnvironment resumed = env(2, 200, TestJobs.restoreFrom(savepoint));
        valvedJob(
                resumed,
                n,
                UpsertITCase::hotKey,
                UpsertRecords::hotKind,
                new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE));
        resumed.execute("restored from the savepoint, to the end");
        assertKv(replay(Map.of(), n, UpsertITCase::hotKey, UpsertRecords::hotKind));
        Map<Long, Long> atEnd = kvRows();
        long writtenBySubtask1 = carriedWrittenBy(1);

        StreamExecutionEnvironment rewound = env(2, 200, TestJobs.restoreFrom(savepoint));
        ExactlyOnceSink<Long> refusing = kvSink(UpsertITCase::hotKey)
                .changelog(UpsertRecords::hotKind)
                .rewindPolicy(RewindPolicy.FAIL)
                .build()
                .withLifecycleHook(new Subtask0AfterSubtask1WroteCarried(sinkId, writtenBySubtask1));
        IdValve.ids(rewound, sinkId, n)
                .map(new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE))
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(FaultInjectingDatabase.wrap(OwnCommitProbe.wrap(ProtocolTrace.wrap(refusing), sinkId)))
                .uid("sink");
        assertThatThrownBy(() -> rewound.execute("restored from the savepoint again, rewindPolicy FAIL"))
                .rootCause()
                .hasMessageContaining("rewindPolicy FAIL");
        assertThat(kvRows()).as("the table after the refused rewind").isEqualTo(atEnd);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared after the refusal")
                .isEmpty();
    }

    /** How many times a restored writer of subtask {@code subtask} wrote the statements its state carried. */
    private long carriedWrittenBy(int subtask) {
        return ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN).stream()
                .filter(e -> e.subtask == subtask)
                .count();
    }

    /**
     * Holds subtask 0's writer, as it opens, until subtask 1's restored writer has written what its state carried:
     * the order in which two independently starting tasks may run. Gives up after a minute, so that a sink whose
     * subtask 1 writes nothing there does not hold the job for longer; a cancelled task ends the wait.
     */
    private static final class Subtask0AfterSubtask1WroteCarried implements LifecycleHook {
        private static final long serialVersionUID = 1L;
        private final String sinkId;
        private final long writtenBefore;

        Subtask0AfterSubtask1WroteCarried(String sinkId, long writtenBefore) {
            this.sinkId = sinkId;
            this.writtenBefore = writtenBefore;
        }

        @Override
        public void at(Point point, SubtaskContext context, TransactionId transaction) throws IOException {
            if (point != Point.WRITER_OPENED || context.subtask() != 0) {
                return;
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN).stream()
                                    .filter(e -> e.subtask == 1)
                                    .count()
                            <= writtenBefore
                    && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("cancelled while waiting for subtask 1");
                }
            }
        }
    }

    /**
     * Checkpoint 2 declined once both writers prepared it, an epoch of hot keys fed, then stop-with-savepoint:
     * both writers carry the statements that must follow checkpoint 2's commit into the savepoint (checkpoint
     * 3), and nothing is left prepared. Returns the savepoint.
     */
    private String stopWhileCarrying(ClusterClient<?> client, Path savepoints, long n) throws Exception {
        JobClient job = held.declineThenFeedAnEpoch(
                client,
                "a declined checkpoint, upserts",
                env -> valvedJob(env, n, UpsertITCase::hotKey, UpsertRecords::hotKind, held.decliner()));
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
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED))
                .as("snapshots that carried held statements")
                .allSatisfy(e -> assertThat(e.checkpointOfGid()).isEqualTo(3))
                .extracting(e -> e.subtask)
                .containsExactlyInAnyOrder(0, 1);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared after the stop")
                .isEmpty();
        return savepoint;
    }

    /** The subtask indices of the sink's notices of carried writes in the marker table, in order. */
    private List<Integer> carriedNotices() throws SQLException {
        List<Integer> subtasks = new ArrayList<>();
        try (Connection c = db.connect();
                java.sql.PreparedStatement s =
                        c.prepareStatement("SELECT subtask FROM eosink_markers WHERE sink_id = ? ORDER BY subtask")) {
            s.setString(1, dev.eosink.jdbc.sql.CarriedNotices.sinkIdOf(sinkId));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    subtasks.add(rs.getInt(1));
                }
            }
        }
        return subtasks;
    }

    /** What a test checks at one point of its job, while the job waits. */
    @FunctionalInterface
    private interface Check {
        void run() throws Exception;
    }

    /**
     * Drives the declined-checkpoint path through to the end and asserts that it was walked: {@link
     * HeldPastTheBarrier#declineThenFeedAnEpoch}, then checkpoint 3 completes, committing checkpoints 2 and 3, and both
     * writers' snapshots of it carried the statements they held for the declined transactions' commit
     * (their log says they gave up waiting for it); {@code whileHeld} checks the table then. The fourth
     * epoch's records follow and checkpoint 4 completes: nothing is held past its barrier, and once it
     * committed the table is exactly the replay of four epochs, the held statements among them. Then
     * the rest of the {@code n} records, and the job finishes; no restore wrote anything.
     */
    private void holdPastTheBarrierThenRun(
            ClusterClient<?> client, long n, KeyFunction key, RowKindFunction<Long> kind, Check whileHeld)
            throws Exception {
        LogCapture log = LogCapture.attach();
        try {
            JobClient job = held.declineThenFeedAnEpoch(
                    client, "a declined checkpoint, upserts", env -> valvedJob(env, n, key, kind, held.decliner()));
            try {
                assertThat(TestJobs.checkpoint(client, job.getJobID()))
                        .as("checkpoint 3, which commits 2 and 3")
                        .isEqualTo(3);
                held.awaitCommitted(3);
                held.assertHeldPastTheBarrierOf(3, log.text());
                whileHeld.run();

                held.feed(4 * EPOCH);
                assertThat(TestJobs.checkpoint(client, job.getJobID()))
                        .as("checkpoint 4")
                        .isEqualTo(4);
                held.awaitCommitted(4);
                assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED))
                        .as("snapshots that carried statements past a barrier after the commit came")
                        .allSatisfy(e -> assertThat(e.gid)
                                .isNotNull()
                                .satisfies(gid -> assertThat(TransactionId.parse(gid)
                                                .orElseThrow()
                                                .checkpointId())
                                        .isEqualTo(3)));
                assertKv(replay(Map.of(), 4 * EPOCH, key::of, kind::kindOf));

                IdValve.openFully(sinkId);
                TestJobs.checkpointUntilFinished(client, job);
            } finally {
                TestJobs.cancelUnlessDone(job);
            }
        } finally {
            log.detach();
        }
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED_WRITTEN))
                .as("carried statements written by a restore")
                .isEmpty();
    }

    /**
     * Valved ids through a decliner (in the source's task) into the traced upsert sink (probed for its
     * waits on the own commit), each with a uid for the restore.
     */
    private void valvedJob(
            StreamExecutionEnvironment env,
            long n,
            KeyFunction key,
            RowKindFunction<Long> kind,
            CheckpointDecliner decliner) {
        valvedJob(env, n, key, kind, decliner, "sink");
    }

    private void valvedJob(
            StreamExecutionEnvironment env,
            long n,
            KeyFunction key,
            RowKindFunction<Long> kind,
            CheckpointDecliner decliner,
            String sinkUid) {
        ExactlyOnceSink<Long> built = kvSink(key).changelog(kind).build();
        IdValve.ids(env, sinkId, n)
                .map(decliner)
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(FaultInjectingDatabase.wrap(OwnCommitProbe.wrap(ProtocolTrace.wrap(built), sinkId)))
                .uid(sinkUid);
    }

    /** The kv table now: key -> v. */
    private Map<Long, Long> kvRows() throws SQLException {
        Map<Long, Long> rows = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v FROM " + kv)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return rows;
    }

    /**
     * A checkpoint that completes only 35 s after the sink's barrier (its asynchronous part is slow:
     * large state elsewhere, slow checkpoint storage). The next epoch rewrites the keys of the prepared
     * one, so its statements wait for that transaction's commit, which comes when the checkpoint
     * completes. The writer waits as long as that takes (bounded by the checkpoint timeout): a slow
     * checkpoint is neither declined nor aborted. (The writer used to give up after 30 s, as if it had
     * been declined, and fail over on its own prepared transaction's row locks: with checkpoints that
     * slow, at every checkpoint, for ever.)
     *
     * <p>The test triggers the checkpoints and lets records through a valve, so that the slow
     * checkpoint's epoch has records and the records after it arrive only once its barrier is through,
     * whatever the machine's speed.
     */
    @Test
    void aSlowCheckpointIsWaitedForAsLongAsItTakes(@InjectClusterClient ClusterClient<?> client) throws Exception {
        createKv("text");
        long n = 6_000;
        StreamExecutionEnvironment env = TestJobs.manualEnv(1);
        ExactlyOnceSink<Long> built =
                kvSink(UpsertITCase::hotKey).changelog(UpsertRecords::hotKind).build();
        IdValve.ids(env, sinkId, n)
                .map(new CheckpointDecliner(sinkId, 0, 3, CheckpointDecliner.How.SLOW_ASYNC))
                .sinkTo(FaultInjectingDatabase.wrap(OwnCommitProbe.wrap(built, sinkId)));
        long t0 = System.nanoTime();
        JobClient job = env.executeAsync("slow checkpoint, upserts");
        try {
            for (long epochEnd : new long[] {2_000, 4_000}) {
                feed(epochEnd);
                TestJobs.checkpoint(client, job.getJobID());
            }
            feed(5_000);
            client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED); // the slow one: not awaited
            TestJobs.await(() -> CheckpointDecliner.failedCheckpoint(sinkId) == 3, "the slow checkpoint's barrier");
            IdValve.openFully(sinkId); // records that rewrite the keys of the slow checkpoint's epoch
            TestJobs.checkpointUntilFinished(client, job);
        } finally {
            TestJobs.cancelUnlessDone(job);
        }
        LOG.info(
                "slow checkpoint in upsert mode: job took {} ms; {}",
                (System.nanoTime() - t0) / 1_000_000,
                OwnCommitProbe.describe(sinkId));

        assertThat(Faults.writerAttempts(sinkId, 0)).as("no failover").containsExactly(0);
        assertThat(OwnCommitProbe.longestAwaitMillis(sinkId))
                .as("longest wait for the own commit, ms")
                .isGreaterThan(30_000);
        assertKv(replay(Map.of(), n, UpsertITCase::hotKey, UpsertRecords::hotKind));
    }

    /** Lets records through the valve up to {@code records} in all, and waits until the writer has them. */
    private void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> Faults.hits(sinkId, Faults.Point.WRITE) >= records, records + " records at the writer");
    }

    // ------------------------------------------------------------------ (e) bad input

    /** A job of 50 records with restarts off and no checkpoint before the end: the failing epoch is the first. */
    private StreamExecutionEnvironment failingEnv() {
        return env(1, Duration.ofHours(1).toMillis(), noRestarts());
    }

    /**
     * A NULL in a NOT NULL column for a new key goes through COPY (at the end-of-input flush): the
     * job fails with one message naming the sink, subtask, table, epoch and the record's position;
     * nothing is visible, nothing is left prepared.
     */
    @Test
    void nullInANotNullColumnOfANewKeyFailsNamingTheRecord() throws Exception {
        createKv("text NOT NULL");
        StreamExecutionEnvironment env = failingEnv();
        ids(env, 50, 100_000)
                .sinkTo(upsertSink(kv)
                        .columns("k", "v", "note")
                        .rows(i -> new Object[] {i, i, i == 37 ? null : "n" + i})
                        .upsert("k")
                        .build());
        assertThat(refusedEpoch(env, "NULL for a new key"))
                .contains("record #37 of the epoch")
                .contains("violates not-null constraint")
                .contains("SQLSTATE 23502");
    }

    /**
     * The NULL comes with the second write of a new key still held in the window, which replaces the
     * first (good) row there; the row goes by COPY mid-stream, when newer keys push it out. The error
     * must name the record the row came from (#120), not the key's first record (#100).
     */
    @Test
    void nullMergedIntoAHeldRowIsNamedByItsOwnRecord() throws Exception {
        createKv("text NOT NULL");
        StreamExecutionEnvironment env = failingEnv();
        ids(env, 40_000, 1_000_000)
                .sinkTo(upsertSink(kv)
                        .columns("k", "v", "note")
                        .rows(i -> new Object[] {i == 120 ? 100L : i, i, i == 120 ? null : "n" + i})
                        .upsert("k")
                        .build());
        assertThat(refusedEpoch(env, "NULL merged into a held row"))
                .contains("record #120 of the epoch")
                .contains("violates not-null constraint");
    }

    /**
     * Two new keys with the same value in a second UNIQUE column (not the upsert key): the COPY fails
     * with a unique violation, is taken for a key already in the table and redone as upserts, which
     * fail the same way (ON CONFLICT covers the upsert key only). The job fails with a clear message;
     * nothing is visible, nothing is left prepared.
     */
    @Test
    void uniqueViolationOnAnotherConstraintFailsClearly() throws Exception {
        db.execute("CREATE TABLE " + kv + " (k bigint PRIMARY KEY, v bigint NOT NULL, u text NOT NULL, " + "CONSTRAINT "
                + kv + "_u_unique UNIQUE (u))");
        StreamExecutionEnvironment env = failingEnv();
        ids(env, 50, 100_000)
                .sinkTo(upsertSink(kv)
                        .columns("k", "v", "u")
                        .rows(i -> new Object[] {i, i, i == 37 ? "u12" : "u" + i})
                        .upsert("k")
                        .build());
        assertThat(refusedEpoch(env, "second unique constraint"))
                .contains("duplicate key value violates unique constraint \"" + kv + "_u_unique\"")
                .contains("Key (u)=(u12) already exists")
                .contains("SQLSTATE 23505");
    }

    /**
     * Runs a job whose first epoch the database refuses and returns the sink's message, after the
     * checks every such failure must pass: it names the sink, subtask, table and checkpoint; nothing
     * of the epoch is visible; nothing is left prepared.
     */
    private String refusedEpoch(StreamExecutionEnvironment env, String what) {
        Throwable thrown = catchThrowable(() -> env.execute(what));
        String message = WriteMethodsITCase.sinkError(thrown).getMessage();
        LOG.info("(e) {}: {}", what, message);
        assertThat(message)
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table \"" + kv + "\"")
                .contains("epoch of checkpoint 1");
        assertThat(db.count("SELECT count(*) FROM " + kv)).isZero();
        assertThat(preparedLeft()).isEmpty();
        return message;
    }

    private static final Pattern BATCH_RANGE =
            Pattern.compile("in the batch of records #(\\d+) to #(\\d+) of the epoch");

    /**
     * When the upserts that redo a failed COPY chunk fail too, the error names the chunk by the
     * positions of its first and last rows: "the batch of records #a to #b". Rows leave the window in
     * the order of their keys' first writes but carry the position of the key's latest write, so here
     * the chunk's first row (key 0, rewritten by record #49) comes from a later record than all the
     * others. The named batch must still be a range, and hold the refused record (#37, whose u
     * duplicates record #12's).
     *
     * <p>Failed at 9c42193: the message said "in the batch of records #49 to #48" (UpsertWriter's
     * Failure took chunkPositions[0] and chunkPositions[last], not their minimum and maximum).
     */
    @Test
    void redoneChunkFailureNamesARangeThatHoldsTheRecord() throws Exception {
        db.execute("CREATE TABLE " + kv + " (k bigint PRIMARY KEY, v bigint NOT NULL, u text NOT NULL, " + "CONSTRAINT "
                + kv + "_u_unique UNIQUE (u))");
        StreamExecutionEnvironment env = failingEnv();
        ids(env, 50, 100_000)
                .sinkTo(upsertSink(kv)
                        .columns("k", "v", "u")
                        .rows(i -> new Object[] {i == 49 ? 0L : i, i, i == 37 ? "u12" : "u" + i})
                        .upsert("k")
                        .build());
        String message = refusedEpoch(env, "range of a redone chunk");
        assertThat(message).contains("Key (u)=(u12) already exists");
        Matcher range = BATCH_RANGE.matcher(message);
        assertThat(range.find()).as("a batch named in: %s", message).isTrue();
        long first = Long.parseLong(range.group(1));
        long last = Long.parseLong(range.group(2));
        assertThat(first)
                .as("first record of the named batch (%s)", range.group())
                .isLessThanOrEqualTo(37);
        assertThat(last)
                .as("last record of the named batch (%s)", range.group())
                .isGreaterThanOrEqualTo(37);
    }

    // ------------------------------------------------------------------ (f) key types

    /** Composite keys whose parts concatenate alike, ("k1", "7") and ("k", "17"), are different keys. */
    static String[] compositeKey(long i) {
        long m = (i * 31) % 4_000;
        String s = "k" + (m / 2);
        int split = 1 + (int) (m % 2);
        return new String[] {s.substring(0, split), s.substring(split)};
    }

    /**
     * A DELETE (1 in 17) or an UPDATE_BEFORE (1 in 23; it deletes the key too, unless a later record of
     * the key wins), else an INSERT: {@code != INSERT} removes the key.
     */
    static RowKind sometimesDelete(long i) {
        return i % 17 == 16 ? RowKind.DELETE : i % 23 == 22 ? RowKind.UPDATE_BEFORE : RowKind.INSERT;
    }

    /**
     * A two-column key (text, text) with deletes and keys in the table before the job (so that COPY
     * chunks fail and are redone with composite keys too): exact.
     */
    @Test
    void compositeKey() throws Exception {
        db.execute("CREATE TABLE " + kv + " (a text, b text, v bigint NOT NULL, PRIMARY KEY (a, b))");
        Map<String, Long> expected = new HashMap<>();
        for (long m = 0; m < 4_000; m += 10) {
            String s = "k" + (m / 2);
            int split = 1 + (int) (m % 2);
            db.execute("INSERT INTO " + kv + " VALUES ('" + s.substring(0, split) + "', '" + s.substring(split) + "', "
                    + OLD + ")");
            expected.put(s.substring(0, split) + "|" + s.substring(split), OLD);
        }
        long n = 20_000;
        StreamExecutionEnvironment env = env(1, 300);
        ids(env, n, 20_000)
                .sinkTo(upsertSink(kv)
                        .columns("a", "b", "v")
                        .rows(i -> {
                            String[] k = compositeKey(i);
                            return new Object[] {k[0], k[1], i};
                        })
                        .upsert("a", "b")
                        .changelog(UpsertITCase::sometimesDelete)
                        .build());
        env.execute("composite key");

        for (long i = 0; i < n; i++) {
            String[] k = compositeKey(i);
            if (sometimesDelete(i) != RowKind.INSERT) {
                expected.remove(k[0] + "|" + k[1]);
            } else {
                expected.put(k[0] + "|" + k[1], i);
            }
        }
        assertThat(expected).containsKeys("k|17", "k1|7");
        assertExact(expected, load("SELECT a || '|' || b, v FROM " + kv));
    }

    private static final String[] SPECIAL = {
        "",
        " ",
        "NULL",
        "null",
        "a,b",
        "{x}",
        "\"q\"",
        "back\\slash",
        "ünïcödé",
        "Key",
        "key",
        "tab\tin",
        "line\nbreak",
        "(1,2)",
        "'",
        "🙂"
    };

    static String textKey(long i) {
        int m = (int) ((i * 7) % 3_000);
        return m < SPECIAL.length ? SPECIAL[m] : SPECIAL[m % SPECIAL.length] + "#" + m;
    }

    /** A text key with characters that are special in array literals, SQL, JSON or COPY: exact. */
    @Test
    void textKey() throws Exception {
        db.execute("CREATE TABLE " + kv + " (k text PRIMARY KEY, v bigint NOT NULL)");
        Map<String, Long> expected = new HashMap<>();
        try (Connection c = db.connect();
                java.sql.PreparedStatement s = c.prepareStatement("INSERT INTO " + kv + " VALUES (?, ?)")) {
            for (int m = 0; m < 3_000; m += 9) {
                String k = m < SPECIAL.length ? SPECIAL[m] : SPECIAL[m % SPECIAL.length] + "#" + m;
                s.setString(1, k);
                s.setLong(2, OLD);
                s.executeUpdate();
                expected.put(k, OLD);
            }
        }
        long n = 20_000;
        StreamExecutionEnvironment env = env(1, 300);
        ids(env, n, 20_000)
                .sinkTo(upsertSink(kv)
                        .columns("k", "v")
                        .rows(i -> new Object[] {textKey(i), i})
                        .upsert("k")
                        .changelog(UpsertITCase::sometimesDelete)
                        .build());
        env.execute("text key");

        for (long i = 0; i < n; i++) {
            if (sometimesDelete(i) != RowKind.INSERT) {
                expected.remove(textKey(i));
            } else {
                expected.put(textKey(i), i);
            }
        }
        assertThat(expected).containsKeys("NULL", "Key", "key", "");
        assertExact(expected, load("SELECT k, v FROM " + kv));
    }

    /** m / 10 in one of four spellings of the same number: scale 1, 2, 3, or stripped (1E+1 for 10). */
    static BigDecimal numericKey(long i) {
        long m = (i * 7) % 3_000 - 1_000;
        BigDecimal base = BigDecimal.valueOf(m, 1);
        switch ((int) ((i / 3) % 4)) {
            case 0:
                return base;
            case 1:
                return base.setScale(2);
            case 2:
                return base.setScale(3);
            default:
                return base.stripTrailingZeros();
        }
    }

    private static String normalized(BigDecimal d) {
        return d.stripTrailingZeros().toPlainString();
    }

    /**
     * A numeric key written as 1.0, 1.00, 1.000 and 1 (and 1E+1 for 10): one key, whichever spelling
     * comes first (by COPY, kept in the window, or as a statement), with some keys in the table before
     * the job in yet another scale: exact.
     */
    @Test
    void numericKeyInDifferentScalesIsOneKey() throws Exception {
        db.execute("CREATE TABLE " + kv + " (k numeric PRIMARY KEY, v bigint NOT NULL)");
        Map<String, Long> expected = new HashMap<>();
        for (long m = -1_000; m < 2_000; m += 11) {
            BigDecimal k = BigDecimal.valueOf(m, 1).setScale(4);
            db.execute("INSERT INTO " + kv + " VALUES (" + k.toPlainString() + ", " + OLD + ")");
            expected.put(normalized(k), OLD);
        }
        long n = 20_000;
        StreamExecutionEnvironment env = env(1, 300);
        ids(env, n, 20_000)
                .sinkTo(upsertSink(kv)
                        .columns("k", "v")
                        .rows(i -> new Object[] {numericKey(i), i})
                        .upsert("k")
                        .changelog(UpsertITCase::sometimesDelete)
                        .build());
        env.execute("numeric key");

        for (long i = 0; i < n; i++) {
            if (sometimesDelete(i) != RowKind.INSERT) {
                expected.remove(normalized(numericKey(i)));
            } else {
                expected.put(normalized(numericKey(i)), i);
            }
        }
        Map<String, Long> actual = new HashMap<>();
        load("SELECT k::text, v FROM " + kv).forEach((k, v) -> actual.put(normalized(new BigDecimal(k)), v));
        assertThat(db.count("SELECT count(*) FROM " + kv))
                .as("rows (distinct after normalizing)")
                .isEqualTo(actual.size());
        assertExact(expected, actual);
    }

    // ------------------------------------------------------------------ (g) keys the database compares its own way

    /** A case-insensitive ICU collation (level 2: case ignored, accents not), as a user would create it. */
    private static final String CASE_INSENSITIVE = "eosink_ci";

    private void createCaseInsensitiveCollation() {
        db.execute("CREATE COLLATION IF NOT EXISTS " + CASE_INSENSITIVE
                + " (provider = icu, locale = 'und-u-ks-level2', deterministic = false)");
    }

    /**
     * 150 keys in spellings that differ only in case (some with non-ASCII letters), each key written
     * about every 150 records: the same key in different spellings in one statement, in one epoch and
     * across epochs.
     */
    static String caseKey(long i) {
        long m = (i * 7) % 150;
        String base = (m % 10 == 3 ? "\u00e4\u00f6\u00fc-" : "key-") + m;
        long bits = (i / 150) * 0x9E3779B97F4A7C15L;
        StringBuilder b = new StringBuilder(base.length());
        for (int j = 0; j < base.length(); j++) {
            char c = base.charAt(j);
            b.append(((bits >>> (j + 7)) & 1) == 1 ? Character.toUpperCase(c) : c);
        }
        return b.toString();
    }

    /** 300 keys, each written about every 300 records with 0 to 3 trailing spaces, which char(n) ignores. */
    static String spacedKey(long i) {
        return "k" + (i * 7) % 300 + " ".repeat((int) ((i / 300) % 4));
    }

    /**
     * Which spellings the database takes for one key: each spelling's representative (the least of
     * its key's spellings), by the database's own equality ({@code keyExpression} over {@code s}).
     */
    private Map<String, String> representatives(long n, LongFunction<String> key, String keyExpression)
            throws SQLException {
        java.util.Set<String> spellings = new java.util.HashSet<>();
        for (long i = 0; i < n; i++) {
            spellings.add(key.apply(i));
        }
        Map<String, String> representative = new HashMap<>();
        try (Connection c = db.connect();
                java.sql.PreparedStatement s = c.prepareStatement("SELECT s, first_value(s) OVER (PARTITION BY "
                        + keyExpression + " ORDER BY s COLLATE \"C\") " + "FROM unnest(?::text[]) AS u(s)")) {
            s.setArray(1, c.createArrayOf("text", spellings.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    representative.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return representative;
    }

    /**
     * Upsert keys that citext, or a column with a case-insensitive (nondeterministic) collation, takes
     * for one although Java's equality does not: the same key in different spellings, in one statement,
     * one epoch and across epochs, with deletes, and a failover after the third PREPARE. Every key must
     * end as its last record, in that record's spelling, or absent after a delete; nothing prepared.
     *
     * <p>Failed before the writer let the database compare such keys: PostgreSQL refused the batch
     * ("ON CONFLICT DO UPDATE command cannot affect row a second time", SQLSTATE 21000), at every
     * restart; with the collation, rows of one key also went by COPY as two new keys.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"citext", "text COLLATE " + CASE_INSENSITIVE})
    void keysThatDifferOnlyInCaseAreOneKey(String keyType) throws Exception {
        db.execute("CREATE EXTENSION IF NOT EXISTS citext");
        createCaseInsensitiveCollation();
        db.execute("CREATE TABLE " + kv + " (k " + keyType + " PRIMARY KEY, v bigint NOT NULL)");
        long n = 12_000;
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);
        StreamExecutionEnvironment env = env(1, 300);
        // Paced by checkpoints: at least four epochs with records, so the third PREPARE comes on any machine.
        CheckpointPacedIds.ids(env, n, 1_500)
                .sinkTo(FaultInjectingDatabase.wrap(upsertSink(kv)
                        .columns("k", "v")
                        .rows(i -> new Object[] {caseKey(i), i})
                        .upsert("k")
                        .changelog(UpsertITCase::sometimesDelete)
                        .build()));
        env.execute("keys that differ only in case");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE))
                .as("failover")
                .isEqualTo(1);
        Map<String, String> key = representatives(
                n, UpsertITCase::caseKey, keyType.equals("citext") ? "s::citext" : "s COLLATE " + CASE_INSENSITIVE);
        long keys = key.values().stream().distinct().count();
        assertThat(keys).as("keys as the database tells them apart").isGreaterThanOrEqualTo(150);
        assertThat(key.size()).as("spellings of %d keys", keys).isGreaterThan(3 * (int) keys);
        assertLastRecordPerKey(n, UpsertITCase::caseKey, key, "SELECT k::text, v FROM " + kv, true);
    }

    /**
     * char(n) keys that differ only in trailing spaces, which bpchar ignores: one key, whether its
     * first records go by COPY (new keys) or as statements, some of them in the table before the job
     * (so that COPY chunks fail and are redone as upserts), with deletes and a failover. Exact.
     *
     * <p>Failed before the writer compared char(n) keys without trailing spaces: "k5" and "k5 " went by
     * COPY as two new keys, the chunk failed on the primary key, and its redo as one upsert statement
     * was refused ("cannot affect row a second time"), at every restart.
     */
    @Test
    void charKeysThatDifferOnlyInTrailingSpacesAreOneKey() throws Exception {
        db.execute("CREATE TABLE " + kv + " (k char(8) PRIMARY KEY, v bigint NOT NULL)");
        db.execute("INSERT INTO " + kv + " SELECT 'k' || g || '  ', " + OLD + " FROM generate_series(0, 299, 10) g");
        long n = 12_000;
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);
        StreamExecutionEnvironment env = env(1, 300);
        // Paced by checkpoints: at least four epochs with records, so the third PREPARE comes on any machine.
        CheckpointPacedIds.ids(env, n, 1_500)
                .sinkTo(FaultInjectingDatabase.wrap(upsertSink(kv)
                        .columns("k", "v")
                        .rows(i -> new Object[] {spacedKey(i), i})
                        .upsert("k")
                        .changelog(UpsertITCase::sometimesDelete)
                        .build()));
        env.execute("char(n) keys that differ only in trailing spaces");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE))
                .as("failover")
                .isEqualTo(1);
        Map<String, String> key = representatives(n, UpsertITCase::spacedKey, "s::char(8)");
        assertThat(key.values().stream().distinct().count())
                .as("keys as the database tells them apart")
                .isEqualTo(300);
        assertThat(key.size()).as("spellings").isEqualTo(1_200);
        Map<String, Object[]> before = new HashMap<>();
        for (int k = 0; k < 300; k += 10) {
            before.put(key.get("k" + k), new Object[] {"k" + k, OLD});
        }
        assertLastRecordPerKey(n, UpsertITCase::spacedKey, key, "SELECT rtrim(k), v FROM " + kv, false, before);
    }

    /**
     * A citext key column with a nondeterministic collation: its unique index compares by that
     * collation, citext's own "=" ignores it, so no statement can merge its rows as the index does. The
     * sink refuses it at start, naming the column, its type and collation, and the remedy.
     */
    @Test
    void citextKeyWithANondeterministicCollationIsRefusedAtStart() throws Exception {
        db.execute("CREATE EXTENSION IF NOT EXISTS citext");
        createCaseInsensitiveCollation();
        db.execute(
                "CREATE TABLE " + kv + " (k citext COLLATE " + CASE_INSENSITIVE + " PRIMARY KEY, v bigint NOT NULL)");
        StreamExecutionEnvironment env = env(1, 300, noRestarts());
        ids(env, 100, 1_000)
                .sinkTo(upsertSink(kv)
                        .columns("k", "v")
                        .rows(i -> new Object[] {caseKey(i), i})
                        .upsert("k")
                        .build());
        Throwable thrown = catchThrowable(() -> env.execute("citext with a nondeterministic collation"));

        String message = WriteMethodsITCase.sinkError(thrown).getMessage();
        assertThat(message)
                .containsSubsequence(
                        "sink '" + sinkId + "' subtask 0/1",
                        "table \"" + kv + "\"",
                        "upsert key column \"k\"",
                        "citext",
                        CASE_INSENSITIVE,
                        "Remedy");
        assertThat(db.count("SELECT count(*) FROM " + kv)).isZero();
        assertThat(preparedLeft()).isEmpty();
    }

    private void assertLastRecordPerKey(
            long n,
            LongFunction<String> key,
            Map<String, String> representative,
            String select,
            boolean spellingMatters)
            throws SQLException {
        assertLastRecordPerKey(n, key, representative, select, spellingMatters, Map.of());
    }

    /**
     * The table holds, per key as the database tells keys apart, its last record's value (and spelling,
     * where the stored spelling shows it), or nothing after a delete; {@code before}: rows in the table
     * before the job, by representative: {spelling, value}.
     */
    private void assertLastRecordPerKey(
            long n,
            LongFunction<String> key,
            Map<String, String> representative,
            String select,
            boolean spellingMatters,
            Map<String, Object[]> before)
            throws SQLException {
        Map<String, Object[]> expected = new HashMap<>(before);
        for (long i = 0; i < n; i++) {
            String k = representative.get(key.apply(i));
            if (sometimesDelete(i) != RowKind.INSERT) {
                expected.remove(k);
            } else {
                expected.put(k, new Object[] {key.apply(i), i});
            }
        }
        Map<String, Long> wanted = new HashMap<>();
        Map<String, Long> actual = new HashMap<>();
        List<String> wrongSpellings = new ArrayList<>();
        expected.forEach((k, last) -> wanted.put(k, (Long) last[1]));
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(select)) {
            while (rs.next()) {
                String spelling = rs.getString(1);
                String k = representative.getOrDefault(spelling, spelling);
                assertThat(actual.put(k, rs.getLong(2)))
                        .as("two rows of key %s", k)
                        .isNull();
                Object[] last = expected.get(k);
                if (spellingMatters && last != null && !spelling.equals(last[0]) && wrongSpellings.size() < 20) {
                    wrongSpellings.add("'" + spelling + "' instead of '" + last[0] + "'");
                }
            }
        }
        assertExact(wanted, actual);
        assertThat(wrongSpellings)
                .as("keys not in their last record's spelling")
                .isEmpty();
    }

    // ------------------------------------------------------------------ targets where COPY cannot go

    /**
     * The sink's target is an automatically updatable view over the table. PostgreSQL runs INSERT
     * ... ON CONFLICT on such a view (the only upsert path before new keys went by COPY), but
     * refuses COPY FROM into it ("cannot copy to view"). Upserts into it must still end exact.
     *
     * <p>Failed at 9c42193 (passed at its parent 2394532): the first chunk's COPY failed with SQLSTATE
     * 42809. Since then the sink sees the view at start and sends every upsert as a statement.
     */
    @Test
    void upsertIntoAnAutomaticallyUpdatableView() throws Exception {
        createKv("text");
        db.execute("CREATE VIEW " + kv + "_v AS SELECT k, v, note FROM " + kv);
        long n = 3_000;
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        ids(env, n, 10_000)
                .sinkTo(upsertSink(kv + "_v")
                        .columns("k", "v", "note")
                        .rows(i -> new Object[] {recentRepeatKey(i), i, note(i)})
                        .upsert("k")
                        .build());
        Throwable failure = catchThrowable(() -> env.execute("upsert into a view"));
        assertThat(failure).as("job failure: %s", why(failure)).isNull();
        assertKv(replay(Map.of(), n, UpsertITCase::recentRepeatKey, i -> RowKind.INSERT));
    }

    /**
     * The sink's role is not the table's owner and the table has row-level security (a policy lets
     * the role write every row). PostgreSQL runs INSERT ... ON CONFLICT under the policy, but refuses
     * COPY FROM ("COPY FROM not supported with row-level security"). Upserts must still end exact.
     *
     * <p>Failed at 9c42193 (passed at its parent 2394532): "starting a COPY chunk failed", SQLSTATE
     * 0A000. Since then the sink asks row_security_active() at start and sends statements only.
     */
    @Test
    void upsertIntoATableWithRowLevelSecurity() throws Exception {
        createKv("text");
        String role = "eosink_" + sinkId.replace('-', '_');
        String password = UUID.randomUUID().toString();
        db.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
        try {
            if (db.count("SELECT count(*) FROM pg_class WHERE relname = ?", PostgresSinkBuilder.DEFAULT_MARKER_TABLE)
                    == 0) {
                db.execute(dev.eosink.jdbc.dialect.postgres.PostgresDialect.INSTANCE
                        .markers(new dev.eosink.jdbc.sql.SqlIdentifier(null, PostgresSinkBuilder.DEFAULT_MARKER_TABLE))
                        .createSql());
            }
            db.execute("GRANT INSERT, SELECT, DELETE ON " + PostgresSinkBuilder.DEFAULT_MARKER_TABLE + " TO " + role);
            db.execute("GRANT SELECT, INSERT, UPDATE ON " + kv + " TO " + role);
            db.execute("ALTER TABLE " + kv + " ENABLE ROW LEVEL SECURITY");
            db.execute("CREATE POLICY " + kv + "_all ON " + kv + " TO " + role + " USING (true) WITH CHECK (true)");
            long n = 3_000;
            StreamExecutionEnvironment env = env(1, 200, noRestarts());
            ids(env, n, 10_000)
                    .sinkTo(kvSink(UpsertITCase::recentRepeatKey)
                            .username(role)
                            .password(password)
                            .build());
            Throwable failure = catchThrowable(() -> env.execute("upsert under row-level security"));
            assertThat(failure).as("job failure: %s", why(failure)).isNull();
            assertKv(replay(Map.of(), n, UpsertITCase::recentRepeatKey, i -> RowKind.INSERT));
        } finally {
            db.rollbackPrepared(TransactionId.sinkPrefix(sinkId));
            db.execute("DROP POLICY IF EXISTS " + kv + "_all ON " + kv);
            db.execute("DROP OWNED BY " + role);
            db.execute("DROP ROLE " + role);
        }
    }

    /** What a job failure says: the sink's message if there is one, else the root cause. */
    private static String why(Throwable failure) {
        if (failure == null) {
            return "none";
        }
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof dev.eosink.core.SinkException) {
                return c.getMessage();
            }
        }
        return String.valueOf(org.apache.flink.util.ExceptionUtils.stripExecutionException(failure));
    }

    /** Two columns: a key as text and a bigint value. */
    private Map<String, Long> load(String sql) throws SQLException {
        Map<String, Long> rows = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                assertThat(rows.put(rs.getString(1), rs.getLong(2)))
                        .as("duplicate key %s", rs.getString(1))
                        .isNull();
            }
        }
        return rows;
    }

    // ------------------------------------------------------------------ observation helpers

    /**
     * The writers' epoch summaries, from their DEBUG line at PREPARE ("N row(s) by COPY in C
     * chunk(s), R chunk(s) redone as upserts"), captured while a test runs.
     */
    static final class Summaries extends AbstractAppender {
        private static final String SESSION_LOGGER = "dev.eosink.postgres.internal.PostgresWriterSession";
        private static final Pattern LINE = Pattern.compile(
                "sink '([^']+)' subtask .*: prepared \\S+: (\\d+) row\\(s\\) by COPY in (\\d+) chunk\\(s\\), (\\d+) chunk\\(s\\) redone as upserts");
        private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

        private Summaries() {
            super("upsert-summaries-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY);
        }

        static Summaries attach() {
            LoggerContext context = (LoggerContext) LogManager.getContext(false);
            Configuration configuration = context.getConfiguration();
            Summaries capture = new Summaries();
            capture.start();
            LoggerConfig logger = new LoggerConfig(SESSION_LOGGER, Level.DEBUG, false);
            logger.addAppender(capture, Level.DEBUG, null);
            // Not additive: the console keeps getting this logger's INFO and above only.
            Appender console = configuration.getAppender("Console");
            if (console != null) {
                logger.addAppender(console, Level.INFO, null);
            }
            configuration.addLogger(SESSION_LOGGER, logger);
            context.updateLoggers();
            return capture;
        }

        void detach() {
            LoggerContext context = (LoggerContext) LogManager.getContext(false);
            context.getConfiguration().removeLogger(SESSION_LOGGER);
            context.updateLoggers();
            stop();
        }

        @Override
        public void append(LogEvent event) {
            String text = event.getMessage().getFormattedMessage();
            if (LINE.matcher(text).find()) {
                lines.add(text);
            }
        }

        List<String> lines(String sinkId) {
            synchronized (lines) {
                return lines.stream()
                        .filter(l -> l.contains("sink '" + sinkId + "'"))
                        .toList();
            }
        }

        /** Per prepared epoch, in order: {rows copied, chunks, chunks redone}. */
        List<long[]> epochs(String sinkId) {
            List<long[]> epochs = new ArrayList<>();
            for (String line : lines(sinkId)) {
                Matcher m = LINE.matcher(line);
                if (m.find()) {
                    epochs.add(new long[] {
                        Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), Long.parseLong(m.group(4))
                    });
                }
            }
            return epochs;
        }

        long copiedRows(String sinkId) {
            return epochs(sinkId).stream().mapToLong(e -> e[0]).sum();
        }

        long redoneChunks(String sinkId) {
            return epochs(sinkId).stream().mapToLong(e -> e[2]).sum();
        }
    }

    /**
     * Passes everything through to the real database and counts, per sink id, how the writer's
     * {@link OwnCommits} was used: how many records were written while the previous transaction was
     * still pending, how often {@code await()} found it pending, and how long those waits took.
     * Observation only: asking {@code pending()} changes nothing but when a commit already delivered
     * is noticed.
     */
    static final class OwnCommitProbe<IN> implements TransactionalDatabase<IN> {
        private static final long serialVersionUID = 1L;
        private static final Map<String, AtomicLong[]> STATS = new ConcurrentHashMap<>();

        private final TransactionalDatabase<IN> real;
        private final String sinkId;

        private OwnCommitProbe(TransactionalDatabase<IN> real, String sinkId) {
            this.real = real;
            this.sinkId = sinkId;
        }

        static <IN> ExactlyOnceSink<IN> wrap(ExactlyOnceSink<IN> sink, String sinkId) {
            return new ExactlyOnceSink<>(
                    new OwnCommitProbe<>(sink.database(), sinkId), sink.settings(), sink.distribution());
        }

        static void reset(String sinkId) {
            STATS.remove(sinkId);
        }

        /** {awaits while pending, total ms awaited, longest ms, records written while pending} */
        private static AtomicLong[] stats(String sinkId) {
            return STATS.computeIfAbsent(sinkId, k ->
                    new AtomicLong[] {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong()});
        }

        static long awaitsWhilePending(String sinkId) {
            return stats(sinkId)[0].get();
        }

        static long longestAwaitMillis(String sinkId) {
            return stats(sinkId)[2].get();
        }

        static String describe(String sinkId) {
            AtomicLong[] s = stats(sinkId);
            return s[3].get() + " record(s) written while the previous transaction was pending; " + s[0].get()
                    + " await(s) found it pending, waiting " + s[1].get() + " ms in total, " + s[2].get()
                    + " ms at most";
        }

        @Override
        public String target() {
            return real.target();
        }

        @Override
        public Wording wording() {
            return real.wording();
        }

        @Override
        public CommitSession openCommitter(SubtaskContext context) throws IOException {
            return real.openCommitter(context);
        }

        @Override
        public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
            WriterSession<IN> w = real.openWriter(context);
            AtomicLong[] s = stats(sinkId);
            EpochWriter<IN> counted = new ForwardingEpochWriter<>(w.epoch()) {
                private OwnCommits gate = OwnCommits.NONE;

                @Override
                public void write(IN record, long positionInEpoch) throws IOException {
                    if (gate.pending()) {
                        s[3].incrementAndGet();
                    }
                    delegate.write(record, positionInEpoch);
                }

                @Override
                public void ownCommits(OwnCommits ownCommits) {
                    gate = ownCommits;
                    delegate.ownCommits(new OwnCommits() {
                        @Override
                        public boolean pending() {
                            return ownCommits.pending();
                        }

                        @Override
                        public boolean await() throws IOException {
                            boolean wasPending = ownCommits.pending();
                            long t0 = System.nanoTime();
                            boolean committed = ownCommits.await();
                            if (wasPending) {
                                long ms = (System.nanoTime() - t0) / 1_000_000;
                                s[0].incrementAndGet();
                                s[1].addAndGet(ms);
                                s[2].accumulateAndGet(ms, Math::max);
                            }
                            return committed;
                        }
                    });
                }
            };
            return new WriterSession<>() {
                @Override
                public Recovery recovery() {
                    return w.recovery();
                }

                @Override
                public EpochWriter<IN> epoch() {
                    return counted;
                }

                @Override
                public Optional<CarriedWrites> carriedWrites() {
                    return w.carriedWrites();
                }

                @Override
                public void close() throws IOException {
                    w.close();
                }
            };
        }
    }
}
