/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.hardcases.TestJobs;
import dev.eosink.xa.XaBranchNames;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static dev.eosink.testing.hardcases.TestJobs.messages;
import static dev.eosink.testing.hardcases.TestJobs.noRestarts;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code 'connector' = 'eosink-xa'} against a real MariaDB: an append, an append with a dead-letter
 * table, an aggregate's upserts and deletes, keys that leave a filtered aggregate's result, and a
 * changelog's deletes, each through an injected failure, ending exact with no prepared
 * XA branch of the sink left; the spellings of a key that a {@code _ci} collation takes as one; and a table without a unique key on the primary key's columns, refused
 * when the job starts. One shared MariaDB (the fixture) and MiniCluster; small data.
 */
class XaMariaDbSqlITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(4)
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final MariaDbFixture db = MariaDbFixture.get();
    /** This test's prefix of table names and sink ids. */
    private String name;

    @BeforeEach
    void name(TestInfo info) {
        String method = info.getTestMethod().orElseThrow().getName().toLowerCase(Locale.ROOT);
        name = "sqlxa_" + method.substring(0, Math.min(16, method.length())) + "_" + SEQUENCE.incrementAndGet() + "_"
                + (System.nanoTime() % 100_000);
    }

    /** The options of a table on the shared server, as the sink's user, with the table name as sink id. */
    private Map<String, String> options(String table) {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("connector", XaDynamicTableSinkFactory.IDENTIFIER);
        options.put("url", db.jdbcUrl());
        options.put("username", MariaDbFixture.SINK_USER);
        options.put("password", MariaDbFixture.SINK_PASSWORD);
        options.put("table-name", table);
        options.put("sink.id", sinkId(table));
        return options;
    }

    private static String sinkId(String table) {
        return table.replace('_', '-');
    }

    /** Creates an InnoDB table the sink's user may also update (deletes it may in the whole database). */
    private void createUpsertTable(String table, String columns) {
        db.execute("CREATE TABLE " + table + " (" + columns + ") ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER
                + "'@'%'");
    }

    /**
     * {@code INSERT INTO ... SELECT ... FROM} a bounded datagen source at parallelism 2, checkpointing
     * every 200 ms, with a failure after 1,000 rows: exactly ids 0..n-1 in the table.
     */
    @Test
    void appendsExactlyOnceThroughAFailure() throws Exception {
        long n = 3_000;
        String table = name;
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL, payload VARCHAR(100) NOT NULL) ENGINE=InnoDB");
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(2);
        SqlJobs.ids(tEnv, "ids", n, 3_000);
        tEnv.executeSql("CREATE TEMPORARY TABLE xa_sink (id BIGINT, payload STRING) " + SqlJobs.with(options(table)));
        tEnv.executeSql("INSERT INTO xa_sink SELECT fail_once(id, '" + table
                        + "', 1000), CONCAT('row-', CAST(id AS STRING)) " + "FROM ids")
                .await();

        assertThat(SqlJobs.FailOnce.failed(table))
                .as("the injected failure happened")
                .isTrue();
        long rows = db.count("SELECT count(*) FROM " + table);
        long distinct = db.count("SELECT count(DISTINCT id) FROM " + table);
        long inRange = db.count("SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ?", n);
        assertThat(preparedBranches(sinkId(table)))
                .as("prepared XA branches of %s left", sinkId(table))
                .isEmpty();
        assertThat(rows - distinct).as("duplicate rows").isZero();
        assertThat(n - inRange).as("missing ids").isZero();
        assertThat(rows).as("rows").isEqualTo(n);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE payload <> CONCAT('row-', id)"))
                .as("payloads")
                .isZero();
    }

    /**
     * {@code sink.dead-letter-table} through a failure at parallelism 2: the row MariaDB refuses (its
     * payload is too long for the column, SQLSTATE 22001) is in the dead-letter table once, with its
     * error and its epoch's marker, shown by its values (not as {@code BinaryRowData@...}); every other
     * row is in the table once.
     */
    @Test
    void aRefusedRowGoesToTheDeadLetterTableOnce() throws Exception {
        long n = 2_000;
        String table = name;
        String dead = name + "_dl";
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL, payload VARCHAR(12) NOT NULL) ENGINE=InnoDB");
        Map<String, String> options = options(table);
        options.put("sink.dead-letter-table", dead);
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(2);
        SqlJobs.ids(tEnv, "ids", n, 3_000);
        tEnv.executeSql("CREATE TEMPORARY TABLE xa_sink (id BIGINT, payload STRING) " + SqlJobs.with(options));
        tEnv.executeSql("INSERT INTO xa_sink SELECT fail_once(id, '" + table + "', 600), CASE WHEN id = 1500 "
                        + "THEN 'row-1500-is-too-long' ELSE CONCAT('row-', CAST(id AS STRING)) END FROM ids")
                .await();

        assertThat(SqlJobs.FailOnce.failed(table))
                .as("the injected failure happened")
                .isTrue();
        assertThat(preparedBranches(sinkId(table)))
                .as("prepared XA branches of %s left", sinkId(table))
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(n - 1);
        assertThat(db.count(
                        "SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ? AND id <> 1500 "
                                + "AND payload = CONCAT('row-', id)",
                        n))
                .as("distinct good rows")
                .isEqualTo(n - 1);
        assertThat(db.count("SELECT count(*) FROM " + dead)).as("dead letters").isEqualTo(1);
        assertThat(db.count(
                        "SELECT count(*) FROM " + dead + " d JOIN eosink_markers m ON m.gid = d.gid "
                                + "WHERE d.record = '+I[1500, row-1500-is-too-long]' AND d.`sqlstate` = '22001' AND d.sink_id = ?",
                        sinkId(table)))
                .as(
                        "the refused row, with its error and its epoch's marker: %s",
                        SqlTables.rows(
                                db, "SELECT checkpoint_id, record, `sqlstate`, error, sink_id, gid FROM " + dead))
                .isEqualTo(1);
    }

    /**
     * A GROUP BY with retractions into tables with a primary key at parallelism 2, through a failure:
     * {@code per_key} (count and sum of each key, updated as rows arrive; a PRIMARY KEY in MariaDB) and
     * {@code per_count} (how many keys have each count: a count's row is deleted when its last key
     * moves on; in MariaDB a UNIQUE key beside an AUTO_INCREMENT PRIMARY KEY, a secondary index, whose
     * duplicates InnoDB locks harder). Both end equal to the same aggregates computed here.
     */
    @Test
    void upsertsAnAggregateWithRetractionsExactlyOnce() throws Exception {
        long n = 3_000;
        int keys = 37;
        String perKey = name + "_k";
        String perCount = name + "_c";
        createUpsertTable(perKey, "k BIGINT PRIMARY KEY, cnt BIGINT NOT NULL, total BIGINT NOT NULL");
        createUpsertTable(
                perCount,
                "id BIGINT AUTO_INCREMENT PRIMARY KEY, cnt BIGINT NOT NULL, `keys` BIGINT NOT NULL, UNIQUE KEY (cnt)");
        SqlJobs.aggregateWithRetractions(name, n, keys, options(perKey), options(perCount));

        Map<Long, List<Long>> expectedPerKey = SqlJobs.expectedPerKey(n, keys);
        Map<Long, List<Long>> expectedPerCount = SqlJobs.expectedPerCount(expectedPerKey);

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        assertThat(expectedPerCount)
                .as("deletes happened: most counts were passed through")
                .hasSize(2);
        assertThat(preparedBranches(sinkId(perKey)))
                .as("prepared XA branches of %s left", perKey)
                .isEmpty();
        assertThat(preparedBranches(sinkId(perCount)))
                .as("prepared XA branches of %s left", perCount)
                .isEmpty();
        assertThat(SqlTables.rows(db, "SELECT k, cnt, total FROM " + perKey)).isEqualTo(expectedPerKey);
        assertThat(SqlTables.rows(db, "SELECT cnt, `keys` FROM " + perCount)).isEqualTo(expectedPerCount);
    }

    /**
     * {@code GROUP BY account HAVING SUM(amount) < 100} at parallelism 2 through a failure: an account
     * whose sum passes the bound leaves the result by an UPDATE_BEFORE with no UPDATE_AFTER, which
     * deletes its row; one that comes back below it is upserted again. The table ends as the query's
     * final result, computed here from the input ({@link FilteredAggregates}).
     *
     * <p>Failed while the sink skipped UPDATE_BEFORE: the accounts that had left the result were still
     * in the table, with their last sum below the bound (1=[99], 2=[95], ...).
     */
    @Test
    void aKeyThatLeavesTheResultOfAHavingFilterIsDeleted() throws Exception {
        String table = name;
        createUpsertTable(table, "account BIGINT NOT NULL PRIMARY KEY, total BIGINT NOT NULL");
        FilteredAggregates.Replayed expected = FilteredAggregates.havingResult();
        expected.assertEveryHistory();
        FilteredAggregates.having(name, options(table));

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        assertThat(preparedBranches(sinkId(table)))
                .as("prepared XA branches of %s left", table)
                .isEmpty();
        assertThat(SqlTables.rows(db, "SELECT account, total FROM " + table)).isEqualTo(expected.table);
    }

    /**
     * A filter on an updating input, {@code WHERE v > 0} over each key's {@code LAST_VALUE(v)}, through a
     * failure: a key whose last value turns negative leaves the result by an UPDATE_BEFORE alone, and is
     * deleted; exact as the query's final result, computed here from the input.
     *
     * <p>Failed while the sink skipped UPDATE_BEFORE: the keys whose value turned negative were still
     * in the table, with their last positive value (1=[30], 5=[30], ...).
     */
    @Test
    void aKeyThatAFilterOnAnUpdatingInputDropsIsDeleted() throws Exception {
        String table = name;
        createUpsertTable(table, "k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL");
        FilteredAggregates.Replayed expected = FilteredAggregates.positiveLastValueResult();
        expected.assertEveryHistory();
        FilteredAggregates.positiveLastValue(name, options(table));

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        assertThat(preparedBranches(sinkId(table)))
                .as("prepared XA branches of %s left", table)
                .isEmpty();
        assertThat(SqlTables.rows(db, "SELECT k, v FROM " + table)).isEqualTo(expected.table);
    }

    /** Keys of the generated changelog: each goes through insert, update, delete, in rounds. */
    private static final int CHANGELOG_KEYS = 50;
    /** A key in the table before the job, which the changelog's first record deletes. */
    private static final long DELETED_BEFORE = 999;
    /** A key in the table before the job, which the changelog never names. */
    private static final long KEPT = 1000;

    private static final TypeInformation<Row> CHANGE =
            Types.ROW_NAMED(new String[] {"id", "label"}, Types.LONG, Types.STRING);

    /**
     * Record {@code i} of a retracting changelog: first the delete of {@link #DELETED_BEFORE}, then
     * rounds over {@link #CHANGELOG_KEYS} keys: INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE (each
     * retraction carries the row it retracts, written one round before).
     */
    static Row change(long i) {
        if (i == 0) {
            return Row.ofKind(RowKind.DELETE, DELETED_BEFORE, "before the job");
        }
        long j = i - 1;
        long key = j % CHANGELOG_KEYS;
        switch ((int) (j / CHANGELOG_KEYS % 4)) {
            case 0:
                return Row.ofKind(RowKind.INSERT, key, "v" + j);
            case 1:
                return Row.ofKind(RowKind.UPDATE_BEFORE, key, "v" + (j - CHANGELOG_KEYS));
            case 2:
                return Row.ofKind(RowKind.UPDATE_AFTER, key, "v" + j);
            default:
                return Row.ofKind(RowKind.DELETE, key, "v" + (j - CHANGELOG_KEYS));
        }
    }

    /**
     * A changelog from {@code fromChangelogStream} (inserts, updates, deletes, and the delete of a key
     * that was in the table before the job) into a table with a primary key at parallelism 2, with a
     * failure in the middle: the table ends as the changelog replayed here says, row for row. (A
     * retracting changelog: from an upsert one, Flink's ChangelogNormalize would drop the delete of a
     * key it has not seen inserted.)
     */
    @Test
    void deletesFromAChangelogThroughAFailure() throws Exception {
        long n = 2_026; // the delete, 40 rounds (the last deletes), then 25 keys inserted again
        String table = name;
        createUpsertTable(table, "id BIGINT NOT NULL PRIMARY KEY, label VARCHAR(40) NOT NULL");
        Map<Long, List<Object>> expected = new TreeMap<>();
        for (long key = 0; key < CHANGELOG_KEYS; key++) {
            expected.put(key, List.of("before the job"));
        }
        expected.put(DELETED_BEFORE, List.of("before the job"));
        expected.put(KEPT, List.of("kept"));
        db.execute("INSERT INTO " + table + " (id, label) VALUES "
                + expected.entrySet().stream()
                        .map(e -> "(" + e.getKey() + ", '" + e.getValue().get(0) + "')")
                        .collect(Collectors.joining(", ")));
        for (long i = 0; i < n; i++) {
            Row change = change(i);
            if (change.getKind() == RowKind.DELETE || change.getKind() == RowKind.UPDATE_BEFORE) {
                expected.remove((Long) change.getField(0));
            } else {
                expected.put((Long) change.getField(0), List.of(change.getField(1)));
            }
        }

        StreamExecutionEnvironment env = TestJobs.env(2, SqlJobs.CHECKPOINT_MILLIS);
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(env);
        DataStream<Row> changes = env.fromSource(
                        new DataGeneratorSource<>(
                                (GeneratorFunction<Long, Row>) XaMariaDbSqlITCase::change,
                                n,
                                RateLimiterStrategy.perSecond(2_000),
                                CHANGE),
                        WatermarkStrategy.noWatermarks(),
                        "changes")
                .setParallelism(1) // one subtask, so that each key's changes keep their order
                .map(SqlJobs.FailOnce.<Row>map(name, 800))
                .returns(CHANGE)
                .setParallelism(1);
        tEnv.createTemporaryView(
                "changes",
                tEnv.fromChangelogStream(
                        changes,
                        Schema.newBuilder()
                                .column("id", DataTypes.BIGINT().notNull())
                                .column("label", DataTypes.STRING())
                                .primaryKey("id")
                                .build(),
                        ChangelogMode.all()));
        tEnv.executeSql("CREATE TEMPORARY TABLE xa_sink (id BIGINT, label STRING, PRIMARY KEY (id) NOT ENFORCED) "
                + SqlJobs.with(options(table)));
        tEnv.executeSql("INSERT INTO xa_sink SELECT id, label FROM changes").await();

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        assertThat(expected)
                .as("keys deleted, inserted again, and kept")
                .hasSize(CHANGELOG_KEYS / 2 + 1)
                .doesNotContainKey(DELETED_BEFORE)
                .containsKey(KEPT);
        assertThat(preparedBranches(sinkId(table)))
                .as("prepared XA branches of %s left", table)
                .isEmpty();
        assertThat(SqlTables.rows(db, "SELECT id, label FROM " + table)).isEqualTo(expected);
    }

    /** Keys of {@link #spelling}: each written in three spellings that a {@code _ci} PAD SPACE key takes as one. */
    private static final int SPELLED_KEYS = 20;

    private static final TypeInformation<Row> SPELLED =
            Types.ROW_NAMED(new String[] {"k", "v"}, Types.STRING, Types.LONG);

    /** Record {@code i}: key {@code i % 20} as "k7", "K7" or "k7  " (by round), and the value {@code i}. */
    static Row spelling(long i) {
        long key = i % SPELLED_KEYS;
        String k = switch ((int) (i / SPELLED_KEYS % 3)) {
            case 0 -> "k" + key;
            case 1 -> "K" + key;
            default -> "k" + key + "  ";
        };
        return Row.of(k, i);
    }

    /**
     * A VARCHAR primary key under a case-insensitive PAD SPACE collation (MariaDB's default kind):
     * "k7", "K7" and "k7  " are one row to the database, three keys to Flink. At parallelism 2 they
     * must reach one writer, in their order: two writers would each hold that row's lock in their own
     * branch, one waiting for a commit that needs its own barrier (the lock timeout, then a
     * failover), and the last spelling written would be either's. Exact: each key's last record, its
     * spelling included.
     */
    @Test
    void spellingsOfOneKeyUnderACaseInsensitiveCollationReachOneWriter() throws Exception {
        long n = 20 * SPELLED_KEYS * 3;
        String table = name;
        createUpsertTable(table, "k VARCHAR(20) COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY, v BIGINT NOT NULL");
        Map<Long, List<Object>> expected = new TreeMap<>();
        for (long i = n - SPELLED_KEYS; i < n; i++) {
            expected.put(i % SPELLED_KEYS, List.of(spelling(i).getField(0), i));
        }

        StreamExecutionEnvironment env = TestJobs.env(2, SqlJobs.CHECKPOINT_MILLIS, noRestarts());
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(env);
        DataStream<Row> records = env.fromSource(
                        new DataGeneratorSource<>(
                                (GeneratorFunction<Long, Row>) XaMariaDbSqlITCase::spelling,
                                n,
                                RateLimiterStrategy.perSecond(2_000),
                                SPELLED),
                        WatermarkStrategy.noWatermarks(),
                        "spellings")
                .setParallelism(1); // one subtask, so that the records keep their order
        tEnv.createTemporaryView("spellings", tEnv.fromDataStream(records));
        Map<String, String> options = options(table);
        options.put("sink.lock-timeout", "2 s");
        tEnv.executeSql("CREATE TEMPORARY TABLE xa_sink (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
                + SqlJobs.with(options));
        tEnv.executeSql("INSERT INTO xa_sink SELECT k, v FROM spellings").await();

        assertThat(preparedBranches(sinkId(table)))
                .as("prepared XA branches of %s left", table)
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(SPELLED_KEYS);
        assertThat(SqlTables.rows(db, "SELECT CAST(TRIM(SUBSTRING(k, 2)) AS SIGNED), k, v FROM " + table))
                .as("each key's last record, in its spelling")
                .isEqualTo(expected);
    }

    /**
     * A table whose only unique key is not on exactly the primary key's columns is refused when the job
     * starts, before anything is written: the message names the sink, the table, the key, the table's
     * unique keys and the statement that adds the missing one. The job fails without restarts although
     * Flink's default restart strategy would restart it for ever: every task ran once.
     */
    @Test
    void aTableWithoutAUniqueKeyOnThePrimaryKeyIsRefusedAtStart(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        String table = name;
        createUpsertTable(table, "id BIGINT NOT NULL, label VARCHAR(40) NOT NULL, UNIQUE KEY (id, label)");
        StreamTableEnvironment tEnv =
                SqlJobs.tableEnvironment(TestJobs.envWithDefaultRestarts(1, SqlJobs.CHECKPOINT_MILLIS));
        SqlJobs.ids(tEnv, "ids", 10, 1_000);
        tEnv.executeSql("CREATE TEMPORARY TABLE xa_sink (id BIGINT, label STRING, PRIMARY KEY (id) NOT ENFORCED) "
                + SqlJobs.with(options(table)));

        JobClient job = tEnv.executeSql("INSERT INTO xa_sink SELECT id, 'x' FROM ids")
                .getJobClient()
                .orElseThrow();
        String failure = messages(TestJobs.failureWithin(job, TestJobs.TIMEOUT));
        assertThat(TestJobs.attempts(cluster, job.getJobID()))
                .as("attempts of the job's tasks: no restart")
                .isEqualTo(1);
        assertThat(failure)
                .contains("sink '" + sinkId(table) + "' subtask 0/1")
                .contains("table " + table)
                .contains("no PRIMARY KEY or UNIQUE key on exactly the upsert key columns [id]")
                .contains("[id, label]")
                .contains("ADD UNIQUE KEY (`id`)")
                .doesNotContain(MariaDbFixture.SINK_PASSWORD);
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows written").isZero();
        assertThat(preparedBranches(sinkId(table)))
                .as("prepared XA branches of %s left", table)
                .isEmpty();
    }

    /** The global transaction ids of the sink's prepared branches, as XA RECOVER lists them. */
    private List<String> preparedBranches(String sinkId) {
        String branch = new String(XaBranchNames.branchQualifier(sinkId), StandardCharsets.ISO_8859_1);
        return db.xaRecover().stream()
                .filter(xid -> xid[0].equals(String.valueOf(XaBranchNames.FORMAT_ID)) && xid[2].equals(branch))
                .map(xid -> xid[1])
                .collect(Collectors.toList());
    }
}
