package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.CheckpointDecliner;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;

import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.failureOf;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.hardcases.TestJobs.messages;
import static dev.eosink.testing.hardcases.TestJobs.noRestarts;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Upserts and deletes by key through XA on a real MariaDB: the last record of each key wins, exactly,
 * through failures and a declined checkpoint, and no statement waits for a row lock of the writer's
 * own prepared branch (the lock timeout is short: such a wait would fail the job). One shared
 * MariaDB (the fixture) and MiniCluster; small data.
 */
class XaMariaDbUpsertITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final MariaDbFixture db = MariaDbFixture.get();
    private final XaMariaDbBackend backend = new XaMariaDbBackend();
    private String table;
    private String sinkId;

    @BeforeEach
    void setUp() {
        table = "xa_upsert_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        sinkId = table.replace('_', '-');
        Faults.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
    }

    @AfterEach
    void tearDown() {
        backend.rollbackAllPrepared(sinkId);
        Faults.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
    }

    /** (k, v, note): the sink user may update and delete, as an upsert sink needs. */
    private void createKv(String key) {
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL, v BIGINT NOT NULL, note VARCHAR(40)"
                + (key == null ? "" : ", " + key) + ") ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER + "'@'%'");
    }

    /** A serializable function of the record index. */
    @FunctionalInterface
    interface KeyFunction extends java.io.Serializable {
        long of(long i);
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

    /** Ids 0..n-1 from one source subtask, so that every key's records keep their order after keyBy. */
    private static DataStream<Long> orderedIds(StreamExecutionEnvironment env, long n, double perSecond) {
        return env.fromSource(
                        new DataGeneratorSource<>((GeneratorFunction<Long, Long>) index -> index, n,
                                RateLimiterStrategy.perSecond(perSecond), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "ids")
                .setParallelism(1);
    }

    /** 300 hot keys, each written about every 300 records. */
    static long hotKey(long i) {
        return (i * 7919) % 300;
    }

    /** Deletes (1 in 11), UPDATE_BEFORE (1 in 13, carries nothing), the rest upserts. */
    static RowKind hotKind(long i) {
        if (i % 11 == 10) {
            return RowKind.DELETE;
        }
        if (i % 13 == 12) {
            return RowKind.UPDATE_BEFORE;
        }
        return i % 2 == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
    }

    /** The table after records 0..n-1, replayed in order: key -> v. */
    private static Map<Long, Long> replay(long n, LongFunction<Long> key, LongFunction<RowKind> kind) {
        Map<Long, Long> rows = new HashMap<>();
        for (long i = 0; i < n; i++) {
            RowKind k = kind.apply(i);
            if (k == RowKind.DELETE) {
                rows.remove(key.apply(i));
            } else if (k != RowKind.UPDATE_BEFORE) {
                rows.put(key.apply(i), i);
            }
        }
        return rows;
    }

    /** Exact: every key's row is its last record's, no other row, notes included, nothing left prepared. */
    private void assertKv(Map<Long, Long> expected) throws SQLException {
        Map<Long, Long> actual = new HashMap<>();
        long badNotes = 0;
        try (Connection c = db.connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v, note FROM " + table)) {
            while (rs.next()) {
                long v = rs.getLong(2);
                assertThat(actual.put(rs.getLong(1), v)).as("key %d twice", rs.getLong(1)).isNull();
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
        assertThat(extra).as("keys that should not be there (duplicates or missed deletes)").isEmpty();
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
        ExactlyOnceSink<Long> built = kvSink(XaMariaDbUpsertITCase::hotKey).changelog(XaMariaDbUpsertITCase::hotKind).build();
        orderedIds(env, n, 4_000)
                .keyBy(XaMariaDbUpsertITCase::hotKey, Types.LONG)
                .sinkTo(FaultInjectingDatabase.wrap(built));
        env.execute("xa upsert hot keys");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertKv(replay(n, XaMariaDbUpsertITCase::hotKey, XaMariaDbUpsertITCase::hotKind));
    }

    /**
     * A checkpoint is declined after the writer prepared it, and the job goes on: that branch commits
     * only with the next completed checkpoint, so the next epoch's statements on its keys are held past
     * their barrier (in checkpoint state) and run after that commit. No failover (restarts are off),
     * no lock wait; exact.
     */
    @Test
    void aDeclinedCheckpointHoldsTheStatementsPastTheBarrier() throws Exception {
        createKv("UNIQUE KEY (k)");
        long n = 4_000;
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        ExactlyOnceSink<Long> built = kvSink(XaMariaDbUpsertITCase::hotKey).changelog(XaMariaDbUpsertITCase::hotKind).build();
        ids(env, n, 2_000)
                .map(new CheckpointDecliner(sinkId, 0, 3, CheckpointDecliner.How.ASYNC_DECLINE))
                .sinkTo(built);
        env.execute("xa upsert declined checkpoint");

        assertThat(CheckpointDecliner.failedCheckpoint(sinkId)).as("checkpoint declined").isPositive();
        assertKv(replay(n, XaMariaDbUpsertITCase::hotKey, XaMariaDbUpsertITCase::hotKind));
    }

    /** Without a unique key on exactly the upsert columns, the sink refuses at start, naming what to add. */
    @Test
    void noUniqueKeyOnTheUpsertColumnsIsRefusedAtStart() {
        createKv("UNIQUE KEY (k, v)");
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        ids(env, 10, 1_000).sinkTo(kvSink(i -> i).build());
        assertThat(messages(failureOf(() -> env.execute("no unique key"))))
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("no PRIMARY KEY or UNIQUE key on exactly the upsert key columns [k]")
                .contains("[k, v]")
                .contains("ADD UNIQUE KEY (`k`)")
                .doesNotContain(MariaDbFixture.SINK_PASSWORD);
    }
}
