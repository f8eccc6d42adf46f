/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.postgres.table.PostgresRowDataSink;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.PsqlScript;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.TestJobs;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Hard case 15: a sink that cannot work must say so when the job starts, not at its first checkpoint, in a
 * message that names the sink, the subtask and the remedy, and never the password.
 *
 * <p>"At start" is proven twice over: the jobs checkpoint once an hour and read an endless source, so
 * nothing but opening the writer can end them; and the sink's error carries {@code openWriter} in its
 * stack. Every job expected to fail connects as a role of this test's own with a password, given both as a
 * property and in the JDBC URL, and no message in its whole failure chain may contain that password.
 *
 * <p>The privileges come from sql/02-sink-role.sql itself (run as psql runs it, with this test's schema, role and
 * table as its variables), so the script the README and
 * docs/postgresql.md point operators to is the one proven sufficient here, and each of its grants is proven necessary.
 */
class MisconfigurationITCase extends ExactlyOnceTestBase {

    private static final long NO_CHECKPOINT = Duration.ofHours(1).toMillis();

    /**
     * How long a refused job may take to fail: its first attempt's start, on a busy machine. Restarts would
     * take for ever (Flink's default restart strategy never gives up on a checkpointing job).
     */
    private static final Duration REFUSAL_BOUND = TestJobs.TIMEOUT;

    /** A role, its password and a schema of this test's own. */
    private String role;

    private final String password = "pw-" + UUID.randomUUID();

    private String schema;

    @BeforeEach
    void createRoleAndSchema() {
        role = "eosink_" + sinkId.replace('-', '_');
        schema = table + "_s";
        createSchemaAndTable(db);
    }

    private void createSchemaAndTable(PostgresFixture server) {
        server.execute("CREATE SCHEMA " + schema + "; CREATE TABLE " + schema + "." + table
                + " (id bigint NOT NULL, payload text NOT NULL)");
    }

    @AfterEach
    void dropRoleAndSchema() {
        db.rollbackPrepared(TransactionId.sinkPrefix(sinkId));
        db.execute("DROP SCHEMA " + schema + " CASCADE");
        db.execute("DO $$ BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = '" + role + "') THEN "
                + "EXECUTE 'DROP OWNED BY " + role + "'; EXECUTE 'DROP ROLE " + role + "'; END IF; END $$");
    }

    // ------------------------------------------------------------------ server settings

    @Test
    void preparedTransactionsDisabled() throws Exception {
        try (StandalonePostgres server = PostgresFixture.startNew(Map.of("max_prepared_transactions", "0"))) {
            createSchemaAndTable(server);
            createRole(server);
            SinkException e = failsAtStart(1, sinkAs(server, role));

            assertThat(e.getMessage())
                    .containsSubsequence(
                            sinkAndSubtask(0, 1),
                            "has max_prepared_transactions = 0, which disables PREPARE TRANSACTION",
                            "this sink needs at least 2 (2 per subtask x parallelism 1)",
                            "Remedy: set max_prepared_transactions in postgresql.conf (see sql/00-server-settings.sql) "
                                    + "and restart PostgreSQL");
            assertThat(server.count("SELECT count(*) FROM " + schema + "." + table))
                    .isZero();
        }
    }

    /**
     * 3 prepared transactions fit one subtask (it needs 2) but not two (4): parallelism 2 is refused at start,
     * and parallelism 1 on the same server runs, exact.
     */
    @Test
    void tooFewPreparedTransactionsForTheParallelism() throws Exception {
        try (StandalonePostgres server = PostgresFixture.startNew(Map.of("max_prepared_transactions", "3"))) {
            createSchemaAndTable(server);
            createRole(server);
            SinkException e = failsAtStart(2, sinkAs(server, role));

            assertThat(e.getMessage())
                    .matches("(?s)sink '" + sinkId + "' subtask [01]/2 \\(attempt 0\\).*")
                    .containsSubsequence(
                            "has max_prepared_transactions = 3",
                            "this sink needs at least 4 (2 per subtask x parallelism 2)",
                            "and room for 10 (maxPreparedPerSubtask 5 per subtask) when checkpoints fail",
                            "Remedy: set max_prepared_transactions in postgresql.conf");
            assertThat(server.count("SELECT count(*) FROM " + schema + "." + table))
                    .isZero();

            StreamExecutionEnvironment env = env(1, 100);
            ids(env, 500, 2_000).sinkTo(sinkAs(server, "postgres").build());
            env.execute("parallelism 1 fits");
            assertThat(server.count("SELECT count(*) FROM " + schema + "." + table))
                    .isEqualTo(500);
            assertThat(server.count("SELECT count(DISTINCT id) FROM " + schema + "." + table))
                    .isEqualTo(500);
            assertThat(server.preparedGids(TransactionId.sinkPrefix(sinkId))).isEmpty();
        }
    }

    // ------------------------------------------------------------------ privileges

    /**
     * sql/02-sink-role.sql is enough for everything the sink does: prepare, commit, prove commits by the
     * marker, roll back a leftover at a fresh start and a newer transaction after a failover, prune old
     * markers. The role is no superuser and owns nothing.
     */
    @Test
    void leastPrivilegedRoleRunsTheWholeProtocol() throws Exception {
        grantPerScript();
        // A leftover of an earlier job with this sink id, prepared by the sink's role: the fresh start rolls it
        // back (leftoverPolicy ROLLBACK).
        String leftover = "eos1/" + sinkId + "/1/3/aaaaaaaa";
        try (Connection c = connectAs(role)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + schema + "." + table
                        + " SELECT g, 'leftover' FROM generate_series(1000000, 1000099) g");
                s.executeUpdate(
                        "INSERT INTO " + schema + ".eosink_markers (gid, sink_id, subtask, checkpoint_id, row_count) "
                                + "VALUES ('" + leftover + "', '" + sinkId + "', 1, 3, 100)");
                s.execute("PREPARE TRANSACTION '" + leftover + "'");
            }
            c.setAutoCommit(true);
        }
        // Markers older than the retention: the first commit of subtask 0 prunes them (DELETE).
        db.execute("INSERT INTO " + schema
                + ".eosink_markers (gid, sink_id, subtask, checkpoint_id, row_count, created_at) "
                + "SELECT 'eos1/" + sinkId + "/0/' || g || '/oldoldol', '" + sinkId
                + "', 0, g, 1, now() - interval '8 days' "
                + "FROM generate_series(1, 5) g");
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);

        StreamExecutionEnvironment env = env(2, 100);
        // At least three epochs with records per subtask: the third PREPARE comes.
        CheckpointPacedIds.ids(env, 3_000, 500)
                .sinkTo(FaultInjectingDatabase.wrap(
                        sinkAs(db, role).leftoverPolicy(LeftoverPolicy.ROLLBACK).build()));
        env.execute("least-privileged role");

        assertThat(db.count(
                        "SELECT count(*) FROM pg_roles WHERE rolname = ? AND NOT rolsuper AND NOT rolcreaterole", role))
                .isEqualTo(1);
        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE))
                .as("failovers")
                .isEqualTo(1);
        String target = schema + "." + table;
        assertThat(db.count("SELECT count(*) FROM " + target)).isEqualTo(3_000);
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + target + " WHERE id >= 0 AND id < 3000"))
                .isEqualTo(3_000);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared left")
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + schema
                        + ".eosink_markers WHERE created_at < now() - interval '7 days'"))
                .as("markers past their retention")
                .isZero();
        assertThat(db.count(
                        "SELECT count(*) FROM " + schema + ".eosink_markers WHERE sink_id = ? AND gid <> ?",
                        sinkId,
                        leftover))
                .as("markers of this run")
                .isPositive();
    }

    @Test
    void missingInsertOnTheTable() throws Exception {
        grantPerScript();
        db.execute("REVOKE INSERT ON " + schema + "." + table + " FROM " + role);

        SinkException e = failsAtStart(1, sinkAs(db, role));

        String target = "\"" + schema + "\".\"" + table + "\"";
        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "the role \"" + role + "\" lacks INSERT on table " + target,
                        "Remedy: GRANT INSERT ON " + target + " TO \"" + role + "\"");
        assertThat(rowsIn(schema + "." + table)).isZero();
    }

    /** Each other grant of the script is needed too, and its absence is named with its remedy at start. */
    @ParameterizedTest(name = "without {0}")
    @ValueSource(strings = {"USAGE ON SCHEMA", "INSERT ON MARKERS", "SELECT ON MARKERS", "DELETE ON MARKERS"})
    void everyGrantOfTheScriptIsNeeded(String missing) throws Exception {
        grantPerScript();
        String markers = "\"" + schema + "\".\"eosink_markers\"";
        String expected;
        switch (missing) {
            case "USAGE ON SCHEMA":
                db.execute("REVOKE USAGE ON SCHEMA " + schema + " FROM " + role);
                expected = "Remedy: GRANT USAGE ON SCHEMA \"" + schema + "\" TO \"" + role + "\"";
                break;
            default:
                String privilege = missing.split(" ")[0];
                db.execute("REVOKE " + privilege + " ON " + schema + ".eosink_markers FROM " + role);
                expected = "the role \"" + role + "\" lacks [" + privilege + "] on marker table " + markers;
        }

        SinkException e = failsAtStart(1, sinkAs(db, role));

        assertThat(e.getMessage()).containsSubsequence(sinkAndSubtask(0, 1), expected, "sql/02-sink-role.sql");
        assertThat(rowsIn(schema + "." + table)).isZero();
    }

    /** Without CREATE on the schema the sink cannot create its marker table; the message gives both ways out. */
    @Test
    void roleWithoutCreateCannotCreateTheMarkerTable() throws Exception {
        createRole(db);
        db.execute("GRANT USAGE ON SCHEMA " + schema + " TO " + role + "; GRANT INSERT ON " + schema + "." + table
                + " TO " + role);

        SinkException e = failsAtStart(1, sinkAs(db, role));

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "could not create marker table \"" + schema + "\".\"eosink_markers\"",
                        "permission denied for schema " + schema,
                        "Remedy:",
                        "sql/01-marker-table.sql",
                        "GRANT CREATE ON SCHEMA \"" + schema + "\" TO \"" + role + "\"");
        assertThat(db.count(
                        "SELECT count(*) FROM pg_class WHERE relname = 'eosink_markers' AND relnamespace = ?::regnamespace",
                        schema))
                .isZero();
    }

    /** With CREATE on the schema (and nothing on the marker table) the sink creates and owns it, and runs. */
    @Test
    void roleWithCreateOnTheSchemaCreatesTheMarkerTable() throws Exception {
        createRole(db);
        db.execute("GRANT USAGE, CREATE ON SCHEMA " + schema + " TO " + role + "; GRANT INSERT ON " + schema + "."
                + table + " TO " + role);

        StreamExecutionEnvironment env = env(2, 100);
        ids(env, 1_000, 2_000).sinkTo(sinkAs(db, role).build());
        env.execute("creates its marker table");

        assertThat(rowsIn(schema + "." + table)).isEqualTo(1_000);
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + schema + "." + table))
                .isEqualTo(1_000);
        assertThat(db.count(
                        "SELECT count(*) FROM pg_tables WHERE schemaname = ? AND tablename = 'eosink_markers' AND tableowner = ?",
                        schema,
                        role))
                .isEqualTo(1);
        assertThat(preparedLeft()).isEmpty();
    }

    // ------------------------------------------------------------------ the sink's own configuration

    @Test
    void missingMarkerTableMayNotBeCreated() throws Exception {
        grantPerScript();
        PostgresSinkBuilder<Long> sink =
                sinkAs(db, role).markerTable(schema, "no_markers_here").createMarkerTable(false);

        SinkException e = failsAtStart(1, sink);

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "marker table \"" + schema + "\".\"no_markers_here\" does not exist",
                        "Remedy: have a database administrator run sql/01-marker-table.sql",
                        "createMarkerTable(true)");
    }

    @Test
    void missingColumn() throws Exception {
        grantPerScript();
        PostgresSinkBuilder<Long> sink =
                sinkAs(db, role).columns("id", "payload", "amount").rows(id -> new Object[] {id, "p", 1});

        SinkException e = failsAtStart(1, sink);

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "table \"" + schema + "\".\"" + table + "\" lacks a column the sink writes",
                        "column \"amount\" does not exist",
                        "Columns configured: [id, payload, amount]",
                        "Remedy: add the column to the table, or fix columns(...)");
    }

    @Test
    void tableDoesNotExist() throws Exception {
        grantPerScript();
        SinkException e = failsAtStart(1, sinkAs(db, role).table(schema, "no_such_table"));

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "table \"" + schema + "\".\"no_such_table\" does not exist",
                        "Remedy: create it, or fix the table name given to the sink");
    }

    /** Names are quoted as given: "Orders" is not orders. */
    @Test
    void tableNamesAreCaseSensitive() throws Exception {
        grantPerScript();
        SinkException e = failsAtStart(1, sinkAs(db, role).table(schema, table.toUpperCase()));

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "table \"" + schema + "\".\"" + table.toUpperCase() + "\" does not exist",
                        "names are case-sensitive as given");
    }

    /** Upserts need a unique index on exactly the key columns (ON CONFLICT names it); the table has none. */
    @Test
    void upsertKeyWithoutAUniqueIndex() throws Exception {
        grantPerScript();
        db.execute("GRANT SELECT, UPDATE, DELETE ON " + schema + "." + table + " TO " + role);

        SinkException e = failsAtStart(1, sinkAs(db, role).upsert("id"));

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "upsert key [id] of table \"" + schema + "\".\"" + table + "\" has no unique index",
                        "Remedy: CREATE UNIQUE INDEX ON \"" + schema + "\".\"" + table + "\" (\"id\")");
    }

    /**
     * A DataStream of Flink's RowData whose types a column does not take (DATE into bigint): refused at start,
     * naming the column, both types and the remedy, as the SQL connector's tables are.
     */
    @Test
    void aFlinkTypeTheColumnDoesNotTake() throws Exception {
        grantPerScript();
        RowType type =
                RowType.of(new LogicalType[] {new DateType(), VarCharType.STRING_TYPE}, new String[] {"id", "payload"});
        ExactlyOnceSink<RowData> sink = PostgresRowDataSink.builder(type)
                .jdbcUrl(urlWithPassword(db))
                .username(role)
                .password(password)
                .sinkId(sinkId)
                .table(schema, table)
                .markerTable(schema, "eosink_markers")
                .build();

        SinkException e = failsAtStart(
                1,
                env -> endless(env)
                        .map(id -> (RowData) GenericRowData.of((int) (long) id, StringData.fromString("row-" + id)))
                        .returns(TypeInformation.of(RowData.class))
                        .sinkTo(FaultInjectingDatabase.wrap(sink)));

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "the records do not fit table \"" + schema + "\".\"" + table + "\"",
                        "column \"id\": Flink type DATE cannot be written into bigint",
                        "Remedy");
        assertThat(rowsIn(schema + "." + table)).isZero();
    }

    /** User SQL is parsed by PostgreSQL when the writer opens, so a wrong table is found at start too. */
    @Test
    void userSqlIntoAMissingTable() throws Exception {
        grantPerScript();
        String sql = "INSERT INTO " + schema + ".no_such_table (id, payload) VALUES (?, ?)";
        PostgresSinkBuilder<Long> sink = PostgresSink.<Long>builder()
                .jdbcUrl(urlWithPassword(db))
                .username(role)
                .password(password)
                .sinkId(sinkId)
                .markerTable(schema, "eosink_markers")
                .sql(sql, (ps, id) -> {
                    ps.setLong(1, id);
                    ps.setString(2, "row-" + id);
                });

        SinkException e = failsAtStart(1, sink);

        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "statement '" + sql + "'",
                        "relation \"" + schema + ".no_such_table\" does not exist",
                        "SQLSTATE 42P01",
                        "Remedy: fix the statement given to sql(...)");
    }

    // ------------------------------------------------------------------ job and connection

    /**
     * Refused while the job graph is built: no job is submitted, no connection is opened. Also in
     * AUTOMATIC mode, which runs a job with an unbounded source as a streaming job. (BATCH mode is not
     * recommended: a region that Flink re-executes after its sink committed would write again.)
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = RuntimeExecutionMode.class,
            names = {"STREAMING", "AUTOMATIC"})
    void streamingWithoutCheckpointing(RuntimeExecutionMode mode) {
        Configuration conf = noRestarts();
        conf.set(ExecutionOptions.RUNTIME_MODE, mode);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        // A socket source is unbounded (only the graph is built: nothing connects to it).
        env.socketTextStream("localhost", 1)
                .map(Long::parseLong, Types.LONG)
                .sinkTo(sinkBuilder(sinkId, table).build());

        assertThatThrownBy(env::getStreamGraph)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll(
                        "sink '" + sinkId + "' into table \"" + table + "\" is exactly-once",
                        "has checkpointing disabled, so nothing would ever be committed",
                        "Remedy: enable checkpointing (env.enableCheckpointing(10_000) or "
                                + "-Dexecution.checkpointing.interval=10s)")
                .message()
                .doesNotContain("BATCH");
        assertThat(db.count(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ?",
                        "eosink/" + sinkId + "/%"))
                .isZero();
    }

    /** More concurrent checkpoints than maxPreparedPerSubtask leaves room for: refused while the graph is built. */
    @Test
    void moreConcurrentCheckpointsThanMaxPreparedPerSubtaskAllows() {
        StreamExecutionEnvironment env = env(1, NO_CHECKPOINT, noRestarts());
        env.getCheckpointConfig().setMaxConcurrentCheckpoints(4);
        endless(env).sinkTo(sinkBuilder(sinkId, table).maxPreparedPerSubtask(5).build());

        assertThatThrownBy(env::getStreamGraph)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll(
                        "up to 4 concurrent checkpoints",
                        "maxPreparedPerSubtask (5)",
                        "Remedy: maxPreparedPerSubtask(6) or more");
    }

    /** At-least-once checkpoints would commit records that a restore replays: refused while the graph is built. */
    @Test
    void atLeastOnceCheckpointing() {
        StreamExecutionEnvironment env = env(1, NO_CHECKPOINT, noRestarts());
        env.getCheckpointConfig().setCheckpointingConsistencyMode(CheckpointingMode.AT_LEAST_ONCE);
        endless(env).sinkTo(sinkBuilder(sinkId, table).build());

        assertThatThrownBy(env::getStreamGraph)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll(
                        "sink '" + sinkId + "' into table \"" + table + "\" is exactly-once, and this job checkpoints "
                                + "AT_LEAST_ONCE",
                        "written again when the job restores from it",
                        "Remedy: checkpoint EXACTLY_ONCE");
    }

    /**
     * A database that does not answer is named with the remedy, and never the password (restarts off here: a
     * restart may find it up, so the job keeps restarting, {@link #aDatabaseDownAtStartIsWaitedForByRestarts}).
     */
    @Test
    void unreachableDatabase() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        String url = "jdbc:postgresql://localhost:" + closedPort + "/postgres?connectTimeout=5&password=" + password;
        StreamExecutionEnvironment env = env(1, NO_CHECKPOINT, noRestarts());
        endless(env)
                .sinkTo(sinkBuilder(sinkId, table)
                        .jdbcUrl(url)
                        .username(role)
                        .password(password)
                        .build());
        Throwable thrown = catchThrowable(() -> env.execute("unreachable"));

        assertThat(ExceptionUtils.stringifyException(thrown))
                .as("the failure chain")
                .doesNotContain(password);
        assertThat(ExceptionUtils.findThrowable(thrown, SuppressRestartsException.class))
                .as("restarts suppressed")
                .isEmpty();
        SinkException e =
                ExceptionUtils.findThrowable(thrown, SinkException.class).orElseThrow();
        assertThat(e.getMessage())
                .containsSubsequence(
                        sinkAndSubtask(0, 1),
                        "could not connect to PostgreSQL at jdbc:postgresql://localhost:" + closedPort
                                + "/postgres?connectTimeout=5&password=***",
                        "Connection to localhost:" + closedPort + " refused",
                        "SQLSTATE 08001",
                        "Remedy: check the JDBC URL, the credentials and that the server accepts connections");
    }

    /**
     * A database down when the job starts may come up, unlike a misconfiguration: the writer's failed
     * connection keeps the job restarting (Flink's default restart strategy), and once the server is up the
     * job runs and ends exact. Paced by what the job did: the server starts once the writer failed to start
     * twice.
     */
    @Test
    void aDatabaseDownAtStartIsWaitedForByRestarts() throws Exception {
        try (StandalonePostgres server = PostgresFixture.startNew(Map.of())) {
            createSchemaAndTable(server);
            server.stop();
            StreamExecutionEnvironment env = TestJobs.envWithDefaultRestarts(1, 200);
            ids(env, 1_000, 2_000)
                    .sinkTo(FaultInjectingDatabase.wrap(
                            sinkAs(server, "postgres").build()));
            JobClient job = env.executeAsync("database down at start");
            try {
                TestJobs.await(() -> Faults.writerStarts(sinkId, 0).size() >= 2, "two starts of the writer");
                server.start();
                job.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
            } finally {
                TestJobs.cancelUnlessDone(job);
            }

            assertThat(Faults.writerStarts(sinkId, 0))
                    .as("writer starts: restarted until the server was up")
                    .hasSizeGreaterThanOrEqualTo(3)
                    .startsWith(0, 1);
            String target = schema + "." + table;
            assertThat(server.count("SELECT count(*) FROM " + target))
                    .as("rows")
                    .isEqualTo(1_000);
            assertThat(server.count("SELECT count(DISTINCT id) FROM " + target + " WHERE id >= 0 AND id < 1000"))
                    .as("distinct ids")
                    .isEqualTo(1_000);
            assertThat(server.preparedGids(TransactionId.sinkPrefix(sinkId)))
                    .as("prepared left")
                    .isEmpty();
        }
    }

    // ------------------------------------------------------------------ helpers

    private String sinkAndSubtask(int subtask, int parallelism) {
        return "sink '" + sinkId + "' subtask " + subtask + "/" + parallelism + " (attempt 0)";
    }

    /** The test's sink, connecting as {@code user} with this test's password in the URL and as a property. */
    private PostgresSinkBuilder<Long> sinkAs(PostgresFixture server, String user) {
        return sinkBuilder(sinkId, table)
                .jdbcUrl(urlWithPassword(server))
                .username(user)
                .password(password)
                .table(schema, table)
                .markerTable(schema, "eosink_markers");
    }

    private String urlWithPassword(PostgresFixture server) {
        return server.jdbcUrl() + (server.jdbcUrl().contains("?") ? "&" : "?") + "password=" + password;
    }

    private void createRole(PostgresFixture server) {
        server.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    }

    private Connection connectAs(String user) throws java.sql.SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        return DriverManager.getConnection(db.jdbcUrl(), properties);
    }

    /**
     * Creates the marker table with sql/01-marker-table.sql and the role with sql/02-sink-role.sql, each run as
     * written, as psql runs it with this test's schema, role, password and table as its variables
     * ({@code psql -v schema=... -v role=... -f ...}: {@link PsqlScript}).
     */
    private void grantPerScript() throws IOException {
        db.execute(PsqlScript.render(Paths.get("../../sql", "01-marker-table.sql"), Map.of("schema", schema)));
        db.execute(PsqlScript.render(
                Paths.get("../../sql", "02-sink-role.sql"),
                Map.of("schema", schema, "role", role, "password", password, "table", table)));
    }

    private long rowsIn(String qualifiedTable) {
        return db.count("SELECT count(*) FROM " + qualifiedTable);
    }

    /** Ids 0, 1, 2, ... for ever (about 100 a second): a job over it can only end by failing. */
    private static DataStream<Long> endless(StreamExecutionEnvironment env) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index,
                Long.MAX_VALUE,
                RateLimiterStrategy.perSecond(100),
                Types.LONG);
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "endless ids");
    }

    /**
     * Runs the sink over an endless source with hourly checkpoints under Flink's default restart strategy,
     * which restarts such a job without end: the job can only end by failing at its start for good, within
     * {@link #REFUSAL_BOUND}, and the sink's error must come from opening the writer, which started once in
     * every subtask that started at all (no restart). No message in the failure chain may contain the password.
     */
    private SinkException failsAtStart(int parallelism, PostgresSinkBuilder<Long> sink) throws Exception {
        return failsAtStart(parallelism, env -> endless(env).sinkTo(FaultInjectingDatabase.wrap(sink.build())));
    }

    /** {@link #failsAtStart(int, PostgresSinkBuilder)} of the job that {@code job} adds to the environment. */
    private SinkException failsAtStart(int parallelism, Consumer<StreamExecutionEnvironment> job) throws Exception {
        StreamExecutionEnvironment env = TestJobs.envWithDefaultRestarts(parallelism, NO_CHECKPOINT);
        job.accept(env);
        Throwable thrown = TestJobs.failureWithin(env.executeAsync("misconfigured"), REFUSAL_BOUND);

        String everything = ExceptionUtils.stringifyException(thrown);
        assertThat(everything).as("the failure chain").doesNotContain(password);
        assertStartedOnce(parallelism);
        SinkException e = ExceptionUtils.findThrowable(thrown, SinkException.class)
                .orElseThrow(() -> new AssertionError("no SinkException in\n" + everything));
        assertThat(Arrays.stream(e.getStackTrace()).map(StackTraceElement::getMethodName))
                .as("found when the writer opens")
                .contains("openWriter");
        return e;
    }

    /** Every writer subtask that started did so once, at attempt 0, and one at least did: the job never restarted. */
    private void assertStartedOnce(int parallelism) {
        List<List<Integer>> starts = IntStream.range(0, parallelism)
                .mapToObj(subtask -> Faults.writerStarts(sinkId, subtask))
                .collect(Collectors.toList());
        assertThat(starts)
                .as("writer starts per subtask")
                .allSatisfy(s -> assertThat(s).isIn(List.of(), List.of(0)));
        assertThat(starts)
                .as("writer starts per subtask")
                .anySatisfy(s -> assertThat(s).containsExactly(0));
    }
}
