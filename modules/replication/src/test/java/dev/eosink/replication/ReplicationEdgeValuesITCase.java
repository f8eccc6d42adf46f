/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.DebeziumJsonParser;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.flink.CdcTypes;
import dev.eosink.cdc.flink.TransactionAssembler;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableRoute;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.DebeziumCapture;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchException;

/**
 * Values and transactions of a real source (Debezium's embedded engine on PostgreSQL) that the bank workload does
 * not have: each test replicates one source table and compares the replica with the source, row by row, as text.
 */
class ReplicationEdgeValuesITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(1)
                    .build());

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final List<String> CAPTURED = List.of("toasted", "nums", "tzs", "plain");
    private static final List<String> DDL = List.of(
            "CREATE TABLE %s.toasted (id int PRIMARY KEY, tag text NOT NULL, blob bytea NOT NULL)",
            "CREATE TABLE %s.nums (id int PRIMARY KEY, n numeric)",
            "CREATE TABLE %s.tzs (id int PRIMARY KEY, tz timetz NOT NULL)",
            "CREATE TABLE %s.plain (id int PRIMARY KEY, v int NOT NULL)",
            "CREATE TABLE %s.other (id int PRIMARY KEY)");

    private static StandalonePostgres db;
    private static List<DebeziumCapture.Captured> records;
    /** The records the running job reads (the MiniCluster runs in this JVM). */
    static volatile List<DebeziumCapture.Captured> current;

    @BeforeAll
    static void captureTheSource() throws Exception {
        db = PostgresFixture.startNew(Map.of("wal_level", "logical"));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            for (String ddl : DDL) {
                s.execute(String.format(ddl, "public"));
            }
        }
        byte[] blob = new byte[16_384]; // random: not compressible, so stored out of line (TOAST)
        new Random(7).nextBytes(blob);
        try (DebeziumCapture capture = new DebeziumCapture("edges", engineProperties())) {
            Thread.sleep(3_000); // the engine's slot and publication, before the first change
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO public.plain VALUES (1, 1)");
                    c.commit();
                    try (PreparedStatement p = c.prepareStatement("INSERT INTO public.toasted VALUES (1, 'a', ?)")) {
                        p.setBytes(1, blob);
                        p.executeUpdate();
                    }
                    c.commit();
                    s.execute("INSERT INTO public.nums VALUES (1, 'NaN'), (2, 1.50), (3, 0.0000001)");
                    c.commit();
                    s.execute("INSERT INTO public.tzs VALUES (1, '10:00:00+02'), (2, '10:00:00-05:30')");
                    c.commit();
                    // A transaction that changes only a table the connector does not capture.
                    s.execute("INSERT INTO public.other VALUES (1)");
                    c.commit();
                    s.execute("UPDATE public.plain SET v = 2 WHERE id = 1");
                    c.commit();
                    // The TOASTed bytea is left as it is: the update does not carry it.
                    s.execute("UPDATE public.toasted SET tag = 'b' WHERE id = 1");
                    c.commit();
                    s.execute("UPDATE public.plain SET v = 3 WHERE id = 1");
                    c.commit();
                }
            }
            records = capture
                    .awaitRecords(
                            "the END of the last transaction",
                            r -> r.stream()
                                    .anyMatch(x -> x.topic.endsWith("public.plain")
                                            && x.value != null
                                            && text(x).contains("\"v\":3")),
                            WAIT)
                    .stream()
                    .filter(r -> r.value != null)
                    .collect(Collectors.toList());
            Thread.sleep(1_000); // the last END, after its change
            records = capture.awaitRecords("all", r -> true, WAIT).stream()
                    .filter(r -> r.value != null)
                    .collect(Collectors.toList());
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static String text(DebeziumCapture.Captured r) {
        return new String(r.value, StandardCharsets.UTF_8);
    }

    private static Properties engineProperties() {
        Properties p = new Properties();
        p.setProperty("name", "edges");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        p.setProperty("database.hostname", "localhost");
        p.setProperty("database.port", String.valueOf(db.port()));
        p.setProperty("database.user", db.user());
        p.setProperty("database.dbname", "postgres");
        p.setProperty("topic.prefix", "edges");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", "edges_slot");
        p.setProperty("slot.drop.on.stop", "true");
        p.setProperty("publication.name", "edges_publication");
        // Debezium's default: the publication has every table, the connector keeps the included ones.
        p.setProperty("publication.autocreate.mode", "all_tables");
        p.setProperty(
                "table.include.list", CAPTURED.stream().map(t -> "public." + t).collect(Collectors.joining(",")));
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("provide.transaction.metadata", "true");
        p.setProperty("converter.schemas.enable", "true");
        return p;
    }

    private static List<DebeziumCapture.Captured> of(String table) {
        return records.stream()
                .filter(r -> r.topic.equals("edges.public." + table))
                .collect(Collectors.toList());
    }

    /** The target schema {@code schema} with the source's tables, and those of {@code sources} read as replicas. */
    private static ReplicaTables replica(String schema, List<String> sources) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            for (String ddl : DDL) {
                s.execute(String.format(ddl, schema));
            }
            return ReplicaTables.read(
                    c, schema, sources.stream().map(t -> "public." + t).collect(Collectors.toList()));
        }
    }

    /** The change events of one table, one per record (per-key mode at parallelism 1), into the replica. */
    private static void replicateChanges(String schema, String table) throws Exception {
        List<DebeziumCapture.Captured> changes = of(table);
        assertThat(changes).as("captured changes of " + table).isNotEmpty();
        ReplicaTables tables = replica(schema, List.of(table));
        ChangeEventRouter router = new ChangeEventRouter(tables, SchemalessValues.microseconds());
        current = changes;
        TableRoute<Long> route = (i, out) -> {
            DebeziumCapture.Captured record = current.get(i.intValue());
            router.route(
                    (ChangeEvent) new DebeziumJsonParser()
                            .parse(record.key, record.value)
                            .orElseThrow(),
                    out);
        };
        RoutedTables<Long> routed = tables.routed(route);
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.noRestarts());
        TestJobs.ids(env, changes.size(), 1_000)
                .sinkTo(PostgresSink.<Long>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(schema)
                        .tables(routed)
                        .batchSize(50)
                        .build());
        env.execute("replication of " + table);
    }

    /** A table's rows as text, ordered by key. */
    private static List<String> rows(String schema, String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT t::text FROM " + schema + "." + table + " t ORDER BY 1")) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    /**
     * An update that leaves a TOASTed bytea as it is (default replica identity): Debezium sends the placeholder's
     * bytes in its place. Written, they would replace the value; the router refuses the event instead, naming the
     * column and the remedy, and the replica never holds the placeholder.
     */
    @Test
    void anUpdateLeavingAToastedByteaAloneIsRefusedNeverWrittenAsTheValue() throws Exception {
        Exception refused = catchException(() -> replicateChanges("replica_toasted", "toasted"));
        assertThat(TestJobs.messages(refused))
                .as("the refusal")
                .contains("left column blob out", "REPLICA IDENTITY FULL");
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT length(blob) FROM replica_toasted.toasted")) {
            while (rs.next()) {
                assertThat(rs.getInt(1))
                        .as("the replica's blob length (the source's is 16384)")
                        .isEqualTo(16_384);
            }
        }
    }

    /**
     * Whole transactions through a transaction that changes only a table the connector does not capture (its
     * publication has every table, Debezium's default): the job runs through it and the replica ends as the source.
     */
    @Test
    void aTransactionOfOnlyUncapturedTablesPassesTheAssembler() throws Exception {
        String schema = "replica_whole";
        List<DebeziumCapture.Captured> mine = records.stream()
                .filter(r -> r.topic.endsWith(".transaction") || r.topic.equals("edges.public.plain"))
                .filter(r -> !r.topic.endsWith(".transaction")
                        || !text(r).contains("public.toasted")
                                && !text(r).contains("public.nums")
                                && !text(r).contains("public.tzs"))
                .collect(Collectors.toList());
        ReplicaTables tables = replica(schema, List.of("plain"));
        RoutedTables<SourceChanges> routed =
                tables.routed(new SourceChangesRoute(new ChangeEventRouter(tables, SchemalessValues.microseconds())));
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.noRestarts());
        current = mine;
        TestJobs.ids(env, mine.size(), 1_000)
                .flatMap((Long i, Collector<CdcEvent> out) -> {
                    DebeziumCapture.Captured record = current.get(i.intValue());
                    new DebeziumJsonParser().parse(record.key, record.value).ifPresent(out::collect);
                })
                .returns(CdcTypes.events())
                .keyBy(e -> "edges", Types.STRING)
                .process(new TransactionAssembler<String>())
                .sinkTo(PostgresSink.<SourceChanges>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(schema)
                        .tables(routed)
                        .batchSize(50)
                        .build());
        env.execute("whole transactions through an uncaptured one");
        assertThat(rows(schema, "plain")).isEqualTo(rows("public", "plain"));
    }
}
