/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every exactly-once integration test shares: a real PostgreSQL (the fixture), a MiniCluster,
 * a fresh table and sink id per test, a replayable source of ids 0..n-1, and the final check of
 * exact counts.
 */
public abstract class ExactlyOnceTestBase {

    protected static final int SLOTS = 4;

    @RegisterExtension
    protected static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(SLOTS)
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    protected final PostgresFixture db = server();

    /**
     * The server this class's tests run against: the shared one, unless a class needs one of its own
     * (to crash it). Called while the test instance is constructed, so only static state is ready.
     */
    protected PostgresFixture server() {
        return PostgresFixture.get();
    }

    /** Unique per test: the table and the sink id. */
    protected String table;

    protected String sinkId;

    @BeforeEach
    void createTable(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
        String base = (getClass().getSimpleName() + "_" + method)
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9_]", "_");
        // Short enough that "eosink/<sinkId>/<subtask>/committer" fits PostgreSQL's 63-byte
        // application_name, which tests match on to terminate the sink's sessions.
        if (base.length() > 24) {
            base = base.substring(0, 24);
        }
        String unique = base + "_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        table = unique;
        sinkId = unique.replace('_', '-');
        db.execute("CREATE TABLE " + table + " (id bigint NOT NULL, payload text NOT NULL)");
        Faults.reset(sinkId);
    }

    @AfterEach
    void cleanUp() {
        // Never leave prepared transactions behind for the next test, even when this one failed.
        db.rollbackPrepared(TransactionId.sinkPrefix(sinkId));
        Faults.reset(sinkId);
    }

    /** The sink under test: table mode, columns (id, payload). */
    protected PostgresSinkBuilder<Long> sinkBuilder(String sinkId, String table) {
        return sinkBuilder(db, sinkId, table);
    }

    /**
     * The same sink on {@code db}, for a test class that cannot extend this one (a MiniCluster of its
     * own configuration).
     */
    protected static PostgresSinkBuilder<Long> sinkBuilder(PostgresFixture db, String sinkId, String table) {
        return PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .table(table)
                .columns("id", "payload")
                .rows(id -> new Object[] {id, "row-" + id})
                .batchSize(100)
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50));
    }

    protected ExactlyOnceSink<Long> faultySink() {
        return FaultInjectingDatabase.wrap(sinkBuilder(sinkId, table).build());
    }

    /** A streaming environment with fast checkpoints and restarts ({@link TestJobs#env}). */
    protected static StreamExecutionEnvironment env(int parallelism, long checkpointMillis) {
        return TestJobs.env(parallelism, checkpointMillis);
    }

    /**
     * A streaming environment with fast checkpoints and restarts; {@code conf} may add or override
     * options (a savepoint to restore from: {@code StateRecoveryOptions.SAVEPOINT_PATH}).
     */
    protected static StreamExecutionEnvironment env(int parallelism, long checkpointMillis, Configuration extra) {
        return TestJobs.env(parallelism, checkpointMillis, extra);
    }

    /** A fixed-delay restart strategy, for {@link #env(int, long, Configuration)}. */
    protected static Configuration fixedDelayRestarts(int attempts, Duration delay) {
        return TestJobs.fixedDelayRestarts(attempts, delay);
    }

    /** No restarts: a job that fails, fails at once. */
    protected static Configuration noRestarts() {
        return TestJobs.noRestarts();
    }

    /** Ids 0..n-1, replayable from checkpoints, at about {@code perSecond} records per second. */
    protected static DataStream<Long> ids(StreamExecutionEnvironment env, long n, double perSecond) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index,
                n,
                RateLimiterStrategy.perSecond(perSecond),
                Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids");
    }

    /**
     * Leaves a prepared transaction named {@code gid} holding ids {@code from..to-1} and its marker,
     * as a run that died after PREPARE would.
     */
    protected void stagePrepared(String gid, long from, long to) throws java.sql.SQLException {
        // Only when missing: CREATE INDEX IF NOT EXISTS would wait for the locks of prepared transactions.
        if (db.count("SELECT count(*) FROM pg_class WHERE relname = ?", PostgresSinkBuilder.DEFAULT_MARKER_TABLE)
                == 0) {
            db.execute(dev.eosink.jdbc.dialect.postgres.PostgresDialect.INSTANCE
                    .markers(new dev.eosink.jdbc.sql.SqlIdentifier(null, PostgresSinkBuilder.DEFAULT_MARKER_TABLE))
                    .createSql());
        }
        TransactionId id = TransactionId.parse(gid).orElseThrow();
        try (java.sql.Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (java.sql.Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " SELECT g, 'staged' FROM generate_series(" + from + ", "
                        + (to - 1) + ") g");
                s.executeUpdate("INSERT INTO " + PostgresSinkBuilder.DEFAULT_MARKER_TABLE
                        + " (gid, sink_id, subtask, checkpoint_id, row_count) VALUES ('" + gid + "', '" + id.sinkId()
                        + "', "
                        + id.subtask() + ", " + id.checkpointId() + ", " + (to - from) + ")");
                s.execute("PREPARE TRANSACTION '" + gid + "'");
            }
            c.setAutoCommit(true);
        }
    }

    protected long rows() {
        return db.count("SELECT count(*) FROM " + table);
    }

    protected long distinctRows() {
        return db.count("SELECT count(DISTINCT id) FROM " + table);
    }

    protected List<String> preparedLeft() {
        return db.preparedGids(TransactionId.sinkPrefix(sinkId));
    }

    /**
     * The end of every exactly-once test: exactly ids 0..n-1, each once, nothing prepared left.
     */
    protected void assertExactlyOnce(long n) {
        long rows = rows();
        long distinct = distinctRows();
        long inRange = db.count("SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ?", n);
        long duplicates = rows - distinct;
        long missing = n - inRange;
        assertThat(preparedLeft())
                .as("prepared transactions of sink %s left behind", sinkId)
                .isEmpty();
        assertThat(duplicates).as("duplicate rows in %s", table).isZero();
        assertThat(missing).as("missing ids in %s", table).isZero();
        assertThat(rows).as("rows in %s", table).isEqualTo(n);
    }
}
