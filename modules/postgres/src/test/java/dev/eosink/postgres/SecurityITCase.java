/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.LogCapture;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What an attacker or a careless log reader could get from the sink's configuration: hostile table,
 * schema and column names are only names (always quoted), the password appears nowhere (logs,
 * messages, toString, Flink's REST API), and TLS settings reach the driver as given. That the whole
 * protocol runs as a least-privileged role is {@code MisconfigurationITCase.leastPrivilegedRoleRunsTheWholeProtocol}.
 */
class SecurityITCase extends ExactlyOnceTestBase {

    /** A schema, a table and columns whose names would break or inject into unquoted SQL. */
    private static final String HOSTILE_SCHEMA = "Sch\"ema; DROP TABLE victim; --";

    private static final String HOSTILE_TABLE = "Or\"ders; DROP TABLE victim; -- \u00fcn\u00efc\u00f8d\u00e9 select";
    private static final List<String> HOSTILE_COLUMNS =
            List.of("select", "Mixed Case", "we\"ird);--", "wh?at", "\u00e9t\u00e9 \u2603");

    private final String password = "pw-" + UUID.randomUUID();
    private String role;

    @BeforeEach
    void createVictim() {
        role = "eosink_" + sinkId.replace('-', '_');
        db.execute("CREATE TABLE IF NOT EXISTS victim (x int)");
    }

    @AfterEach
    void dropHostile() {
        // First: a failed job leaves its pending checkpoint's transactions prepared, and their locks
        // would make the DROPs below wait for ever (this runs before the base class's cleanup).
        db.rollbackPrepared(TransactionId.sinkPrefix(sinkId));
        db.execute("DROP SCHEMA IF EXISTS " + SqlIdentifier.quote(HOSTILE_SCHEMA) + " CASCADE");
        db.execute("DO $$ BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = '" + role + "') THEN "
                + "EXECUTE 'DROP OWNED BY " + role + "'; EXECUTE 'DROP ROLE " + role + "'; END IF; END $$");
    }

    /**
     * The sink writes (COPY, batches, upserts) into a table and columns named to break out of
     * unquoted SQL, with a marker table named likewise; the rows arrive, exactly once, and the
     * table that the names try to drop is still there.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"COPY", "BATCH", "UPSERT"})
    void hostileIdentifiersAreOnlyNames(String mode) throws Exception {
        String qualified = SqlIdentifier.quote(HOSTILE_SCHEMA) + "." + SqlIdentifier.quote(HOSTILE_TABLE);
        db.execute("CREATE SCHEMA " + SqlIdentifier.quote(HOSTILE_SCHEMA) + "; CREATE TABLE " + qualified
                + " (id bigint PRIMARY KEY, "
                + HOSTILE_COLUMNS.stream()
                        .map(c -> SqlIdentifier.quote(c) + " text NOT NULL")
                        .collect(Collectors.joining(", "))
                + ")");
        String[] columns =
                Stream.concat(Stream.of("id"), HOSTILE_COLUMNS.stream()).toArray(String[]::new);
        PostgresSinkBuilder<Long> sink = sinkBuilder(sinkId, table)
                .table(HOSTILE_SCHEMA, HOSTILE_TABLE)
                .markerTable(HOSTILE_SCHEMA, HOSTILE_TABLE + " markers")
                .columns(columns)
                .rows(id -> Stream.concat(
                                Stream.of((Object) id), HOSTILE_COLUMNS.stream().map(c -> c + "'" + id))
                        .toArray())
                .writeMethod(mode.equals("BATCH") ? WriteMethod.BATCH : WriteMethod.COPY);
        if (mode.equals("UPSERT")) {
            sink.upsert("id");
        }
        // Parallelism 1: a regional failover would make an upsert writer of the other subtask wait
        // for its uncommitted transaction (see docs/guarantees.md, upserts), which is not what this test is about.
        StreamExecutionEnvironment env = env(1, 200);
        // At least four epochs with records: the third PREPARE comes.
        CheckpointPacedIds.ids(env, 2_000, 250).sinkTo(FaultInjectingDatabase.wrap(sink.build()));
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3); // and recovery runs on those names too
        env.execute("hostile identifiers " + mode);

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE))
                .as("failovers")
                .isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM pg_tables WHERE tablename = 'victim'"))
                .isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM " + qualified + " WHERE " + SqlIdentifier.quote("we\"ird);--")
                        + " = 'we\"ird);--''' || id"))
                .isEqualTo(2_000);
        table = qualified; // the exact-count check below reads this table
        assertExactlyOnce(2_000);
    }

    /**
     * The password, given both as a property and in the URL, appears in no log line (at INFO and
     * above, of Flink and the sink, across a failing and restarting job), in no message of the
     * failure, in no toString, and in none of Flink's REST views of the job (its configuration, its
     * plan, its exceptions) or of the cluster's configuration.
     */
    @Test
    void passwordAppearsNowhere(@InjectMiniCluster MiniCluster cluster) throws Exception {
        db.execute("CREATE ROLE " + role + " LOGIN SUPERUSER PASSWORD '" + password + "'");
        PostgresSinkBuilder<Long> builder = sinkBuilder(sinkId, table)
                .jdbcUrl(db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "password=" + password)
                .username(role)
                .password(password)
                .rows(id -> new Object[] {id, id == 1_500 ? null : "row-" + id}); // fails every attempt
        LogCapture logs = LogCapture.attach();
        Throwable failure;
        String config;
        String plan;
        String exceptions;
        String clusterConfig;
        try {
            StreamExecutionEnvironment env = env(1, 200, noRestarts());
            ids(env, 2_000, 4_000).sinkTo(builder.build());
            JobClient job = env.executeAsync("password nowhere");
            failure = catchThrowable(() -> job.getJobExecutionResult().get());
            config = rest(cluster, "/jobs/" + job.getJobID() + "/config");
            plan = rest(cluster, "/jobs/" + job.getJobID() + "/plan");
            exceptions = rest(cluster, "/jobs/" + job.getJobID() + "/exceptions");
            clusterConfig = rest(cluster, "/jobmanager/config");
        } finally {
            logs.detach();
        }

        assertThat(failure).isNotNull();
        assertThat(ExceptionUtils.findThrowable(failure, SinkException.class)).isPresent();
        assertThat(logs.text()).as("captured log lines").contains(sinkId).doesNotContain(password);
        assertThat(ExceptionUtils.stringifyException(failure)).doesNotContain(password);
        assertThat(config).contains("execution-config").doesNotContain(password);
        assertThat(plan).contains("Writer").doesNotContain(password);
        assertThat(exceptions).contains(sinkId).doesNotContain(password);
        assertThat(clusterConfig).contains("rest.").doesNotContain(password);
        assertThat(builder.toString()).doesNotContain(password);
        assertThat(builder.build().toString()).doesNotContain(password);
        assertThat(builder.build().database().toString()).doesNotContain(password);
    }

    /**
     * TLS settings reach the driver as given: {@code sslmode=require} against a server without TLS
     * (the tests' server) fails at start with the driver's own TLS message; where the server has TLS,
     * the sink's sessions are encrypted.
     */
    @Test
    void tlsSettingsReachTheDriver() throws Exception {
        PostgresSinkBuilder<Long> builder = sinkBuilder(sinkId, table).property("sslmode", "require");
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        ids(env, 200, 2_000).sinkTo(builder.build());
        boolean serverHasTls = db.count("SELECT count(*) FROM pg_settings WHERE name = 'ssl' AND setting = 'on'") == 1;
        Throwable failure = catchThrowable(() -> env.execute("tls required"));
        if (serverHasTls) {
            assertThat(failure).isNull();
            assertExactlyOnce(200);
        } else {
            assertThat(ExceptionUtils.findThrowable(failure, SinkException.class))
                    .get()
                    .extracting(Throwable::getMessage)
                    .asString()
                    .contains("sink '" + sinkId + "' subtask 0/1")
                    .contains("could not connect to PostgreSQL")
                    .contains("The server does not support SSL");
            assertThat(rows()).isZero();
        }
    }

    private static String rest(MiniCluster cluster, String path) throws Exception {
        URI base = cluster.getRestAddress().get();
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(base.resolve(path))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("HTTP status of %s", path).isEqualTo(200);
        return response.body();
    }
}
