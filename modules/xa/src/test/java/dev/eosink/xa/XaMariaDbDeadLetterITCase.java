/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.CheckpointPacedIds;
import dev.eosink.testing.records.DeadLetterRecords;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.records.DeadLetterRecords.BAD_PER_500;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The XA sink's optional dead-letter table on a real MariaDB: refused records go there, with the
 * database's error, in the epoch's own branch, and the rest of the epoch commits. Ids 0..3999 go
 * through a job with a failover after a prepare; in each 500 ids, five are bad in five ways (NULL in a
 * NOT NULL column, a value too long, a CHECK violation, the row mapper throws, a duplicate key). The
 * table must hold every good id once and no bad one, the dead-letter table every bad record once,
 * with its error, committed with its epoch's marker. A record in scripts Latin-1 lacks is kept in a
 * dead-letter table created under a latin1 default.
 */
class XaMariaDbDeadLetterITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final int N = 4_000;

    private final MariaDbFixture db = MariaDbFixture.get();
    private final XaMariaDbBackend backend = new XaMariaDbBackend();
    private String table;
    private String sinkId;

    @BeforeEach
    void setUp() {
        table = "xa_dead_" + (System.nanoTime() % 1_000_000);
        sinkId = table.replace('_', '-');
        Faults.reset(sinkId);
    }

    @AfterEach
    void tearDown() {
        backend.rollbackAllPrepared(sinkId);
        Faults.reset(sinkId);
    }

    private XaSinkBuilder<Long> sink() {
        return this.<Long>sinkOf()
                .rows(DeadLetterRecords::row)
                .batchSize(100)
                .commitRetryBackoff(Duration.ofMillis(50));
    }

    /** This test's sink into its table's two columns, of any record type. */
    private <T> XaSinkBuilder<T> sinkOf() {
        return XaSink.<T>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(MariaDbFixture.SINK_USER)
                .password(MariaDbFixture.SINK_PASSWORD)
                .sinkId(sinkId)
                .table(table)
                .columns("id", "payload")
                .claimWait(Duration.ofSeconds(20));
    }

    @Test
    void refusedRecordsAreKeptOnceAndTheRestCommits() throws Exception {
        db.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, payload VARCHAR(12) NOT NULL,"
                + " CONSTRAINT not_bad CHECK (payload <> 'bad')) ENGINE=InnoDB");
        String dead = table + "_dead";
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3); // a replayed epoch refuses its bad records again
        StreamExecutionEnvironment env = env(2, 200);
        // At least four epochs with records per subtask: the third PREPARE comes.
        CheckpointPacedIds.ids(env, N, 500)
                .sinkTo(FaultInjectingDatabase.wrap(
                        sink().deadLetterTable(null, dead).build()));
        env.execute("xa dead letters");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE))
                .as("failovers")
                .isEqualTo(1);
        long bad = (long) N / 500 * BAD_PER_500;
        assertThat(backend.prepared(sinkId)).as("prepared branches left").isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(N - bad);
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + table))
                .as("distinct ids")
                .isEqualTo(N - bad);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE id % 500 IN (37, 137, 237, 337, 437)"))
                .as("bad ids in the table")
                .isZero();
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE id % 500 = 436 AND payload = CONCAT('row-', id)"))
                .as("the rows the duplicates collided with")
                .isEqualTo(N / 500);

        assertThat(db.count("SELECT count(*) FROM " + dead)).as("dead letters").isEqualTo(bad);
        assertThat(db.count("SELECT count(DISTINCT record) FROM " + dead))
                .as("distinct dead letters")
                .isEqualTo(bad);
        assertThat(db.count(
                        "SELECT count(*) FROM " + dead + " WHERE sink_id = ? AND CAST(record AS SIGNED) % 500 = 37"
                                + " AND `sqlstate` = '23000' AND error LIKE '%Column ''payload'' cannot be null%'",
                        sinkId))
                .isEqualTo(N / 500);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE CAST(record AS SIGNED) % 500 = 137"
                        + " AND `sqlstate` = '22001' AND error LIKE '%Data too long for column ''payload''%'"))
                .isEqualTo(N / 500);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE CAST(record AS SIGNED) % 500 = 237"
                        + " AND `sqlstate` = '23000' AND error LIKE '%CONSTRAINT `not_bad` failed%'"))
                .isEqualTo(N / 500);
        assertThat(
                        db.count(
                                "SELECT count(*) FROM " + dead
                                        + " WHERE CAST(record AS SIGNED) % 500 = 337 AND `sqlstate` IS NULL"
                                        + " AND error LIKE 'the row mapper or statement builder threw java.lang.IllegalStateException: no payload%'"))
                .isEqualTo(N / 500);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE CAST(record AS SIGNED) % 500 = 437"
                        + " AND `sqlstate` = '23000' AND error LIKE '%Duplicate entry%'"))
                .isEqualTo(N / 500);
        // Each was committed with its epoch: its branch's marker exists, and names the same checkpoint and subtask.
        assertThat(db.count("SELECT count(*) FROM " + dead + " d LEFT JOIN eosink_markers m ON m.gid = d.gid "
                        + "WHERE m.gid IS NULL OR m.checkpoint_id <> d.checkpoint_id OR m.subtask <> d.subtask"))
                .isZero();
    }

    /**
     * A refused record in words that Latin-1 cannot hold, kept in a dead-letter table the sink creates
     * in a database whose default character set is latin1 (the default of MariaDB before 11.6 and of
     * MySQL 5.7): the table must take it, or the epoch would fail for the very record it is there to
     * keep, after every restart. It is kept once, spelled as it was; every other record is in the table.
     */
    @Test
    void aRefusedRecordInAnyScriptIsKeptInATableCreatedUnderALatin1Default() throws Exception {
        String schema = table + "_l1";
        db.execute("CREATE DATABASE " + schema + " CHARACTER SET latin1");
        db.execute("GRANT SELECT, INSERT, CREATE ON " + schema + ".* TO '" + MariaDbFixture.SINK_USER + "'@'%'");
        db.execute("CREATE TABLE " + table
                + " (id BIGINT PRIMARY KEY, payload VARCHAR(12) CHARACTER SET utf8mb4 NOT NULL)" + " ENGINE=InnoDB");
        long n = 200;
        String refused = "42 \u043a\u043b\u044e\u0447 \u6f22\u5b57 \ud83d\ude42 too long";
        StreamExecutionEnvironment env = env(1, 200);
        ids(env, n, 2_000)
                .map(id -> id == 42 ? refused : id + " ok")
                .returns(Types.STRING)
                .sinkTo(this.<String>sinkOf()
                        .rows(r -> new Object[] {Long.parseLong(r.substring(0, r.indexOf(' '))), r})
                        .deadLetterTable(schema, "dead")
                        .build());
        env.execute("xa dead letters in any script");

        assertThat(backend.prepared(sinkId)).as("prepared branches left").isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(n - 1);
        assertThat(db.count(
                        "SELECT count(DISTINCT id) FROM " + table + " WHERE id <> 42 AND payload = CONCAT(id, ' ok')"))
                .as("distinct good rows")
                .isEqualTo(n - 1);
        assertThat(db.count("SELECT count(*) FROM " + schema + ".dead"))
                .as("dead letters")
                .isEqualTo(1);
        assertThat(db.count(
                        "SELECT count(*) FROM " + schema + ".dead WHERE record = ? AND `sqlstate` = '22001'", refused))
                .as("the refused record, as it was spelled")
                .isEqualTo(1);
    }

    @Test
    void notWithUpserts() {
        assertThatThrownBy(
                        () -> sink().upsert("id").deadLetterTable(null, "dead").build())
                .hasMessageContaining("deadLetterTable(...) works with inserts only");
    }
}
