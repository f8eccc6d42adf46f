/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.faults.JobFailures;
import dev.eosink.testing.faults.LogCapture;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code 'connector' = 'eosink-postgres'} against a real PostgreSQL: appends and upserts through an
 * injected failure, keys that leave a filtered aggregate's result, deletes from a changelog, the
 * distribution by key, and the values of every type the connector converts. Each test ends with
 * exact counts and no prepared transaction left.
 */
class PostgresSqlITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(4)
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final PostgresFixture db = PostgresFixture.get();
    /** This test's prefix of table names and sink ids. */
    private String name;

    private final List<String> sinkIds = new ArrayList<>();

    @BeforeEach
    void name(TestInfo info) {
        String method = info.getTestMethod().orElseThrow().getName().toLowerCase(Locale.ROOT);
        name = "sql_" + method.substring(0, Math.min(16, method.length())) + "_" + SEQUENCE.incrementAndGet() + "_"
                + (System.nanoTime() % 100_000);
    }

    @AfterEach
    void rollBackLeftovers() {
        sinkIds.forEach(id -> db.rollbackPrepared(TransactionId.sinkPrefix(id)));
    }

    /** The options of a table of this test: the shared server, as its administrator. */
    private Map<String, String> options(String table, String sinkId) {
        sinkIds.add(sinkId);
        return SqlJobs.postgresOptions(db, table, sinkId);
    }

    /**
     * {@code INSERT INTO ... SELECT ... FROM} a bounded datagen source, checkpointing every 200 ms,
     * with a failure after 1,000 rows: exactly ids 0..n-1 in the table. The sink connects as a role
     * with a password, which appears in no log line, no message of the failure, no REST view of the
     * job and no plan. The table is written as for flink-connector-jdbc, with the options of it that
     * carry over ({@code driver}, {@code sink.buffer-flush.max-rows}), and a {@code sink.id}.
     */
    @Test
    void appendsExactlyOnceThroughAFailure(@InjectMiniCluster MiniCluster cluster) throws Exception {
        long n = 3_000;
        String password = "pw-" + UUID.randomUUID();
        String role = name + "_role";
        db.execute("CREATE ROLE " + role + " LOGIN SUPERUSER PASSWORD '" + password + "'");
        db.execute("CREATE TABLE " + name + " (id bigint NOT NULL, payload text NOT NULL)");
        Map<String, String> options = options(name, name.replace('_', '-'));
        options.put("username", role);
        options.put("password", password);
        options.put("driver", "org.postgresql.Driver");
        options.put("sink.buffer-flush.max-rows", "100");
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(2);
        SqlJobs.ids(tEnv, "ids", n, 3_000);
        tEnv.executeSql("CREATE TEMPORARY TABLE pg_sink (id BIGINT, payload STRING) " + SqlJobs.with(options));
        String insert = "INSERT INTO pg_sink SELECT fail_once(id, '" + name
                + "', 1000), CONCAT('row-', CAST(id AS STRING)) FROM ids";

        LogCapture logs = LogCapture.attach();
        JobID job;
        String explain;
        try {
            explain = tEnv.explainSql(insert);
            TableResult result = tEnv.executeSql(insert);
            job = result.getJobClient().orElseThrow().getJobID();
            result.await();
        } finally {
            logs.detach();
        }

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        assertThat(String.join("\n", JobFailures.of(cluster, job)))
                .contains("injected failure")
                .doesNotContain(password);
        assertThat(logs.text()).contains(name.replace('_', '-')).doesNotContain(password);
        assertThat(explain).doesNotContain(password);
        for (String view : List.of("/plan", "/config", "/exceptions")) {
            assertThat(SqlJobs.rest(cluster, "/jobs/" + job + view)).as(view).doesNotContain(password);
        }
        SqlTables.assertExactlyOnce(db, name, name.replace('_', '-'), n);
    }

    /**
     * A GROUP BY with retractions into tables with a primary key, through a failure: {@code per_key}
     * (count and sum of each key, updated as rows arrive) and {@code per_count} (how many keys have
     * each count: a count's row is deleted when its last key moves on). Both end equal to the same
     * aggregates computed here from the generator.
     */
    @Test
    void upsertsAnAggregateWithRetractionsExactlyOnce() throws Exception {
        long n = 3_000;
        int keys = 37;
        String perKey = name + "_k";
        String perCount = name + "_c";
        db.execute("CREATE TABLE " + perKey + " (k bigint PRIMARY KEY, cnt bigint NOT NULL, total bigint NOT NULL)");
        db.execute("CREATE TABLE " + perCount + " (cnt bigint PRIMARY KEY, keys bigint NOT NULL)");
        SqlJobs.aggregateWithRetractions(
                name,
                n,
                keys,
                options(perKey, perKey.replace('_', '-')),
                options(perCount, perCount.replace('_', '-')));

        Map<Long, List<Long>> expectedPerKey = SqlJobs.expectedPerKey(n, keys);
        Map<Long, List<Long>> expectedPerCount = SqlJobs.expectedPerCount(expectedPerKey);

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        assertThat(expectedPerCount)
                .as("deletes happened: most counts were passed through")
                .hasSize(2);
        SqlTables.assertNothingPrepared(db, perKey.replace('_', '-'));
        SqlTables.assertNothingPrepared(db, perCount.replace('_', '-'));
        assertThat(SqlTables.rows(db, "SELECT k, cnt, total FROM " + perKey)).isEqualTo(expectedPerKey);
        assertThat(SqlTables.rows(db, "SELECT cnt, keys FROM " + perCount)).isEqualTo(expectedPerCount);
    }

    /**
     * {@code GROUP BY account HAVING SUM(amount) < 100} through a failure: an account whose sum passes
     * the bound leaves the result by an UPDATE_BEFORE with no UPDATE_AFTER, which deletes its row; one
     * that comes back below it is upserted again. The table ends as the query's final result, computed
     * here from the input ({@link FilteredAggregates}).
     *
     * <p>Failed while the sink skipped UPDATE_BEFORE: the accounts that had left the result were still
     * in the table, with their last sum below the bound (1=[99], 2=[95], ...).
     */
    @Test
    void aKeyThatLeavesTheResultOfAHavingFilterIsDeleted() throws Exception {
        db.execute("CREATE TABLE " + name + " (account bigint PRIMARY KEY, total bigint NOT NULL)");
        FilteredAggregates.Replayed expected = FilteredAggregates.havingResult();
        expected.assertEveryHistory();
        FilteredAggregates.having(name, options(name, name.replace('_', '-')));

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        SqlTables.assertNothingPrepared(db, name.replace('_', '-'));
        assertThat(SqlTables.rows(db, "SELECT account, total FROM " + name)).isEqualTo(expected.table);
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
        db.execute("CREATE TABLE " + name + " (k bigint PRIMARY KEY, v bigint NOT NULL)");
        FilteredAggregates.Replayed expected = FilteredAggregates.positiveLastValueResult();
        expected.assertEveryHistory();
        FilteredAggregates.positiveLastValue(name, options(name, name.replace('_', '-')));

        assertThat(SqlJobs.FailOnce.failed(name))
                .as("the injected failure happened")
                .isTrue();
        SqlTables.assertNothingPrepared(db, name.replace('_', '-'));
        assertThat(SqlTables.rows(db, "SELECT k, v FROM " + name)).isEqualTo(expected.table);
    }

    /**
     * A changelog from {@code fromChangelogStream}: inserts, an update, and deletes of a key the job
     * inserted and of one that was in the table before; the table ends as the changelog says. (A
     * retracting changelog: from an upsert one, Flink's ChangelogNormalize would drop the delete of a
     * key it has not seen inserted before the sink sees it.)
     */
    @Test
    void deletesFromAChangelog() throws Exception {
        db.execute("CREATE TABLE " + name + " (id bigint PRIMARY KEY, label text NOT NULL); " + "INSERT INTO " + name
                + " VALUES (99, 'before the job'), (98, 'kept')");
        StreamExecutionEnvironment env = TestJobs.env(1, SqlJobs.CHECKPOINT_MILLIS);
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(env);
        DataStream<Row> changes = env.fromData(
                Types.ROW_NAMED(new String[] {"id", "label"}, Types.LONG, Types.STRING),
                Row.ofKind(RowKind.INSERT, 1L, "one"),
                Row.ofKind(RowKind.INSERT, 2L, "two"),
                Row.ofKind(RowKind.INSERT, 3L, "three"),
                Row.ofKind(RowKind.UPDATE_BEFORE, 1L, "one"),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, "one, updated"),
                Row.ofKind(RowKind.DELETE, 2L, "two"),
                Row.ofKind(RowKind.DELETE, 99L, "before the job"));
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
        tEnv.executeSql("CREATE TEMPORARY TABLE pg_sink (id BIGINT, label STRING, PRIMARY KEY (id) NOT ENFORCED) "
                + SqlJobs.with(options(name, name.replace('_', '-'))));
        tEnv.executeSql("INSERT INTO pg_sink SELECT id, label FROM changes").await();

        SqlTables.assertNothingPrepared(db, name.replace('_', '-'));
        assertThat(SqlTables.rows(db, "SELECT id, label FROM " + name))
                .isEqualTo(
                        new TreeMap<>(Map.of(1L, List.of("one, updated"), 3L, List.of("three"), 98L, List.of("kept"))));
    }

    /**
     * An insert-only query whose two source subtasks each produce every key, into a table with a
     * primary key at {@code sink.parallelism} 2: the sink keys its input by the primary key, so each
     * key is written by one writer subtask only. A trigger records which session (the writer's
     * application_name names its subtask) wrote each row. (Without that distribution the two writers
     * would also wait for each other: each holds row locks of keys the other upserts, until a
     * checkpoint that cannot complete while the other waits.)
     */
    @Test
    void eachKeyIsWrittenByOneSubtask() throws Exception {
        long n = 2_000;
        int keys = 49; // odd: each source subtask (of interleaved ids) produces every key
        db.execute("CREATE TABLE " + name + " (k bigint PRIMARY KEY, label text NOT NULL); "
                + "CREATE TABLE " + name + "_w (k bigint NOT NULL, writer text NOT NULL); "
                + "CREATE FUNCTION " + name + "_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                + "INSERT INTO " + name + "_w VALUES (NEW.k, current_setting('application_name')); RETURN NEW; END $$; "
                + "CREATE TRIGGER " + name + "_t AFTER INSERT OR UPDATE ON " + name + " FOR EACH ROW EXECUTE FUNCTION "
                + name + "_log()");
        Map<String, String> options = options(name, name.replace('_', '-'));
        options.put("sink.parallelism", "2");
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(2);
        SqlJobs.ids(tEnv, "ids", n, 4_000);
        tEnv.executeSql("CREATE TEMPORARY TABLE pg_sink (k BIGINT, label STRING, PRIMARY KEY (k) NOT ENFORCED) "
                + SqlJobs.with(options));
        tEnv.executeSql("INSERT INTO pg_sink SELECT MOD(id, " + keys + "), CONCAT('key-', CAST(MOD(id, " + keys
                        + ") AS STRING)) FROM ids")
                .await();

        SqlTables.assertNothingPrepared(db, name.replace('_', '-'));
        assertThat(db.count("SELECT count(*) FROM " + name)).isEqualTo(keys);
        assertThat(db.count("SELECT count(DISTINCT k) FROM " + name + " WHERE label = 'key-' || k"))
                .isEqualTo(keys);
        assertThat(db.count("SELECT count(*) FROM " + name + "_w")).as("writes").isGreaterThanOrEqualTo(keys);
        assertThat(db.count("SELECT count(DISTINCT writer) FROM " + name + "_w"))
                .as("writer subtasks")
                .isEqualTo(2);
        assertThat(db.count("SELECT count(*) FROM (SELECT k FROM " + name
                        + "_w GROUP BY k HAVING count(DISTINCT writer) > 1) s"))
                .as("keys written by more than one subtask")
                .isZero();
    }

    /**
     * Every type the connector converts, with nulls, into columns of the matching PostgreSQL types:
     * by COPY (the default), and by batches ({@code 'sink.write-method' = 'batch'}), the second table
     * with time and array columns too.
     */
    @Test
    void writesEveryTypeItConverts() throws Exception {
        String copied = name + "_copy";
        String batched = name + "_batch";
        String scalars = "b boolean, t int2, s int2, i int4, l int8, f float4, d float8, n numeric(10,3), c char(3), "
                + "v text, bin bytea, dt date, ts timestamp, tz timestamptz";
        db.execute("CREATE TABLE " + copied + " (id int PRIMARY KEY, " + scalars + ")");
        db.execute("CREATE TABLE " + batched + " (id int PRIMARY KEY, " + scalars
                + ", tm time, arr bigint[], sarr text[])");
        String flinkScalars =
                "b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, n DECIMAL(10,3), c CHAR(3), "
                        + "v STRING, bin BYTES, dt DATE, ts TIMESTAMP(6), tz TIMESTAMP_LTZ(6)";
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(1);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.executeSql("CREATE TEMPORARY TABLE copied (id INT, " + flinkScalars + ") "
                + SqlJobs.with(options(copied, copied.replace('_', '-'))));
        Map<String, String> byBatches = options(batched, batched.replace('_', '-'));
        byBatches.put("sink.write-method", "batch");
        tEnv.executeSql("CREATE TEMPORARY TABLE batched (id INT, " + flinkScalars
                + ", tm TIME(3), arr ARRAY<BIGINT>, sarr ARRAY<STRING>) " + SqlJobs.with(byBatches));
        String values = "SELECT * FROM (VALUES "
                + "(1, TRUE, CAST(-7 AS TINYINT), CAST(300 AS SMALLINT), 70000, 9000000000, CAST(1.5 AS FLOAT), 2.25E0, "
                + "CAST(1234.567 AS DECIMAL(10,3)), CAST('ab' AS CHAR(3)), 'héllo', X'00FF', DATE '2024-02-29', "
                + "TIMESTAMP '2024-02-29 23:59:58.123456', TO_TIMESTAMP_LTZ(1709251198123, 3)), "
                + "(2, CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS INT), "
                + "CAST(NULL AS BIGINT), CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS DECIMAL(10,3)), "
                + "CAST(NULL AS CHAR(3)), CAST(NULL AS STRING), CAST(NULL AS BYTES), CAST(NULL AS DATE), "
                + "CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP_LTZ(6)))) AS vals(id, b, t, s, i, l, f, d, n, c, v, bin, dt, ts, tz)";
        StatementSet statements = tEnv.createStatementSet();
        statements.addInsertSql("INSERT INTO copied " + values);
        statements.addInsertSql("INSERT INTO batched SELECT *, CASE WHEN id = 1 THEN TIME '13:14:15.678' END, "
                + "CASE WHEN id = 1 THEN ARRAY[CAST(1 AS BIGINT), CAST(NULL AS BIGINT), 3] END, "
                + "CASE WHEN id = 1 THEN ARRAY['x', 'y'] END FROM (" + values + ")");
        statements.execute().await();

        String expected = "true|-7|300|70000|9000000000|1.5|2.25|1234.567|ab|héllo|\\x00ff|2024-02-29|"
                + "2024-02-29 23:59:58.123456|2024-02-29 23:59:58.123+00";
        String scalarText =
                "b::text || '|' || t || '|' || s || '|' || i || '|' || l || '|' || f || '|' || d || '|' || n || '|' "
                        + "|| c::text || '|' || v || '|' || bin::text || '|' || dt || '|' || ts || '|' || (tz AT TIME ZONE 'UTC')::text || '+00'";
        for (String table : List.of(copied, batched)) {
            SqlTables.assertNothingPrepared(db, table.replace('_', '-'));
            assertThat(text("SELECT " + scalarText + " FROM " + table + " WHERE id = 1"))
                    .as(table)
                    .isEqualTo(expected);
            assertThat(db.count("SELECT count(*) FROM " + table
                            + " WHERE id = 2 AND num_nulls(b, t, s, i, l, f, d, n, c, v, " + "bin, dt, ts, tz) = 14"))
                    .as(table + ": nulls")
                    .isEqualTo(1);
        }
        assertThat(text("SELECT tm || '|' || arr::text || '|' || sarr::text FROM " + batched + " WHERE id = 1"))
                .isEqualTo("13:14:15.678|{1,NULL,3}|{x,y}");
        assertThat(db.count("SELECT count(*) FROM " + batched + " WHERE id = 2 AND num_nulls(tm, arr, sarr) = 3"))
                .isEqualTo(1);
    }

    // ---------------------------------------------------------------- what the database shows

    private String text(String sql) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getString(1);
        }
    }
}
