/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.DebeziumJsonParser;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.flink.CdcTypes;
import dev.eosink.cdc.flink.TransactionAssembler;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.DebeziumCapture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.Faults.Point;
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
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchException;

/**
 * Tables created and evolved by an evolving replication ({@link ReplicaTables#readEvolving}): a real source
 * (Debezium's embedded engine on PostgreSQL) whose tables gain a column, and one created, while it runs; and the
 * changes the sink refuses (a column's type widened at the source, a key changed), naming table, column, both types
 * and the remedy.
 */
class ReplicationEvolutionITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(1)
                    .build());

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final List<String> CAPTURED = List.of("items", "tags", "widened", "rekeyed", "wiped");
    /** Source transactions of items and tags (after the schema changes between them). */
    private static final int ITEM_TRANSACTIONS = 40;

    private static StandalonePostgres db;
    private static List<DebeziumCapture.Captured> records;
    /** The records the running job reads (the MiniCluster runs in this JVM). */
    static volatile List<DebeziumCapture.Captured> current;

    @BeforeAll
    static void captureTheSource() throws Exception {
        db = PostgresFixture.startNew(Map.of("wal_level", "logical"));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.items (id int PRIMARY KEY, name text NOT NULL)");
            s.execute("CREATE TABLE public.widened (id int PRIMARY KEY, n int)");
            s.execute("CREATE TABLE public.rekeyed (a int PRIMARY KEY, b int NOT NULL)");
            s.execute("CREATE TABLE public.wiped (id int PRIMARY KEY, v text NOT NULL)");
        }
        try (DebeziumCapture capture = new DebeziumCapture("evolving", engineProperties())) {
            Thread.sleep(3_000); // the engine's slot and publication, before the first change
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                for (int i = 0; i < ITEM_TRANSACTIONS; i++) {
                    if (i == ITEM_TRANSACTIONS / 4) {
                        s.execute("ALTER TABLE public.items ADD COLUMN price numeric(8,2)");
                        c.commit();
                    }
                    if (i == ITEM_TRANSACTIONS / 2) {
                        s.execute("CREATE TABLE public.tags (item int PRIMARY KEY, tag varchar(20) NOT NULL, "
                                + "at timestamptz NOT NULL)");
                        c.commit();
                    }
                    s.execute("INSERT INTO public.items (id, name) VALUES (" + i + ", 'item " + i + "')");
                    if (i > 0) {
                        s.execute("UPDATE public.items SET name = name || '+' WHERE id = " + (i - 1));
                    }
                    if (i >= ITEM_TRANSACTIONS / 4) {
                        s.execute("UPDATE public.items SET price = " + i + ".25 WHERE id = " + (i - 1));
                    }
                    if (i > ITEM_TRANSACTIONS / 2) {
                        // One transaction over an existing table and the new one.
                        s.execute("INSERT INTO public.tags VALUES (" + i + ", 'tag " + i + "', now())");
                        s.execute("DELETE FROM public.items WHERE id = " + (i - 5));
                    }
                    c.commit();
                }
                s.execute("INSERT INTO public.wiped SELECT g, 'before ' || g FROM generate_series(1, 5) g");
                c.commit();
                // A truncate and rows after it, in one transaction; then rows in the next.
                s.execute("TRUNCATE public.wiped");
                s.execute("INSERT INTO public.wiped VALUES (3, 'after')");
                c.commit();
                s.execute("INSERT INTO public.wiped VALUES (7, 'later')");
                c.commit();
                s.execute("INSERT INTO public.widened VALUES (1, 1)");
                c.commit();
                s.execute("ALTER TABLE public.widened ALTER COLUMN n TYPE bigint");
                c.commit();
                s.execute("INSERT INTO public.widened VALUES (2, 5000000000)");
                c.commit();
                s.execute("INSERT INTO public.rekeyed VALUES (1, 1)");
                c.commit();
                // With a new column: Debezium reads a table's key anew only when its columns change.
                s.execute("ALTER TABLE public.rekeyed ADD COLUMN c int NOT NULL DEFAULT 0, "
                        + "DROP CONSTRAINT rekeyed_pkey, ADD PRIMARY KEY (a, c)");
                c.commit();
                s.execute("INSERT INTO public.rekeyed VALUES (1, 2, 1)");
                c.commit();
            }
            records = capture
                    .awaitRecords(
                            "the last change",
                            r -> r.stream()
                                    .anyMatch(x -> x.topic.endsWith("public.rekeyed")
                                            && x.value != null
                                            && text(x).contains("\"b\":2")),
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
        p.setProperty("name", "evolving");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        p.setProperty("database.hostname", "localhost");
        p.setProperty("database.port", String.valueOf(db.port()));
        p.setProperty("database.user", db.user());
        p.setProperty("database.dbname", "postgres");
        p.setProperty("topic.prefix", "evolving");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", "evolving_slot");
        p.setProperty("slot.drop.on.stop", "true");
        p.setProperty("publication.name", "evolving_publication");
        // Every table, those created later too: the connector keeps the included ones.
        p.setProperty("publication.autocreate.mode", "all_tables");
        p.setProperty(
                "table.include.list", CAPTURED.stream().map(t -> "public." + t).collect(Collectors.joining(",")));
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("provide.transaction.metadata", "true");
        p.setProperty("skipped.operations", "none"); // truncates too
        p.setProperty("converter.schemas.enable", "true");
        // The source's varchar length and numeric precision, which the created columns take.
        p.setProperty("column.propagate.source.type", ".*");
        return p;
    }

    /** Whole source transactions of the {@code tables}' records, into {@code schema}, evolving. */
    private static void replicate(String schema, List<String> tables, boolean faults) throws Exception {
        Predicate<String> mine = topic -> tables.stream().anyMatch(t -> topic.equals("evolving.public." + t));
        List<String> others = CAPTURED.stream()
                .filter(t -> !tables.contains(t))
                .map(t -> "public." + t + "\"")
                .collect(Collectors.toList());
        // The transactions of other tables are left out whole: their events, and their ENDs, which count them.
        List<DebeziumCapture.Captured> chosen = records.stream()
                .filter(r -> r.topic.endsWith(".transaction")
                        ? others.stream().noneMatch(text(r)::contains)
                        : mine.test(r.topic))
                .collect(Collectors.toList());
        ReplicaTables replica;
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            // Every table of the source, as the source's transaction metadata names them all.
            replica = ReplicaTables.readEvolving(
                    c, schema, CAPTURED.stream().map(t -> "public." + t).collect(Collectors.toList()));
        }
        assertThat(replica.tables()).as("target tables before the run").isEmpty();
        RoutedTables<SourceChanges> routed =
                replica.routed(new SourceChangesRoute(new ChangeEventRouter(replica, SchemalessValues.microseconds())));
        String sinkId = schema;
        Faults.reset(sinkId);
        if (faults) {
            Faults.arm(sinkId, Point.WRITE, 20);
            Faults.arm(sinkId, Point.AFTER_PREPARE, 3);
            Faults.arm(sinkId, Point.BEFORE_COMMIT, 4);
        }
        StreamExecutionEnvironment env = TestJobs.env(
                1, 100, faults ? TestJobs.fixedDelayRestarts(10, Duration.ofMillis(100)) : TestJobs.noRestarts());
        current = chosen;
        TestJobs.ids(env, chosen.size(), 100)
                .flatMap((Long i, Collector<CdcEvent> out) -> {
                    DebeziumCapture.Captured record = current.get(i.intValue());
                    new DebeziumJsonParser().parse(record.key, record.value).ifPresent(out::collect);
                })
                .returns(CdcTypes.events())
                .keyBy(e -> "evolving", Types.STRING)
                .process(new TransactionAssembler<String>())
                .sinkTo(FaultInjectingDatabase.wrap(PostgresSink.<SourceChanges>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(routed)
                        .batchSize(20)
                        .build()));
        try {
            env.execute("evolving replication of " + tables);
        } finally {
            assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                    .as("prepared transactions left")
                    .isEmpty();
        }
        if (faults) {
            assertThat(Faults.fired(sinkId, Point.WRITE)
                            + Faults.fired(sinkId, Point.AFTER_PREPARE)
                            + Faults.fired(sinkId, Point.BEFORE_COMMIT))
                    .as("failures injected")
                    .isEqualTo(3);
        }
    }

    /** The table's rows as text, ordered; none when it does not exist (its creation was rolled back). */
    private static List<String> rows(String schema, String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            try (ResultSet exists = s.executeQuery("SELECT to_regclass('" + schema + "." + table + "') IS NOT NULL")) {
                exists.next();
                if (!exists.getBoolean(1)) {
                    return rows;
                }
            }
            ResultSet rs = s.executeQuery("SELECT t::text FROM " + schema + "." + table + " t ORDER BY 1");
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    private static List<String> columns(String schema, String table) throws Exception {
        List<String> columns = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod) "
                        + "|| CASE WHEN a.attnotnull THEN ' not null' ELSE '' END FROM pg_attribute a WHERE "
                        + "a.attrelid = '" + schema + "." + table + "'::regclass AND a.attnum > 0 AND NOT "
                        + "a.attisdropped ORDER BY a.attnum")) {
            while (rs.next()) {
                columns.add(rs.getString(1));
            }
        }
        return columns;
    }

    /**
     * Neither target table exists at start: each is created from its first event's schema, in the transaction of
     * its first rows; the column the source added mid-run is added before the rows that carry it; a table created at
     * the source mid-run is created in the target with the transaction that first writes it. Through a failure at a
     * write, after a prepare and before a commit (DDL rolled back, then made again, or committed and found done), the
     * replica ends as the source, row by row, and nothing stays prepared.
     */
    @Test
    void tablesAreCreatedAndWidenedWithTheirFirstRowsThroughFailures() throws Exception {
        String schema = "replica_evolving";
        replicate(schema, List.of("items", "tags"), true);

        assertThat(columns(schema, "items"))
                .as("the created and widened table")
                .containsExactly("id integer not null", "name text not null", "price numeric(8,2)");
        assertThat(columns(schema, "tags"))
                .as("the table created mid-run")
                .containsExactly(
                        "item integer not null",
                        "tag character varying(20) not null",
                        "at timestamp with time zone not null");
        assertThat(rows(schema, "items")).as("items").isEqualTo(rows("public", "items"));
        assertThat(rows(schema, "tags")).as("tags").isEqualTo(rows("public", "tags"));
        // Inserted one per transaction; deleted one per transaction after the half: 40 - 19.
        assertThat(rows(schema, "items")).as("items replicated").hasSize(21);
    }

    /** A TRUNCATE at the source empties the replica's table in the transaction of the rows that follow it. */
    @Test
    void aTruncateAtTheSourceEmptiesTheReplica() throws Exception {
        replicate("replica_wiped", List.of("wiped"), false);
        assertThat(rows("replica_wiped", "wiped"))
                .as("the replica, as the source")
                .isEqualTo(rows("public", "wiped"))
                .containsExactly("(3,after)", "(7,later)");
    }

    /** A column the source widened (int to bigint) is refused: the sink never retypes. */
    @Test
    void aColumnTheSourceWidenedIsRefusedNamingBothTypesAndTheRemedy() throws Exception {
        Exception refused = catchException(() -> replicate("replica_widened", List.of("widened"), false));
        assertThat(TestJobs.messages(refused))
                .as("the refusal")
                .contains(
                        "routed table \"replica_widened\".\"widened\", column n",
                        "the column is integer",
                        "now carry bigint",
                        "ALTER TABLE \"replica_widened\".\"widened\" ALTER COLUMN \"n\" TYPE bigint");
        assertThat(rows("replica_widened", "widened"))
                .as("the rows before the change, if their checkpoint completed; never the refused one")
                .isSubsetOf("(1,1)");
    }

    /** A key the source changed is refused: the sink never changes a key. */
    @Test
    void aKeyTheSourceChangedIsRefused() throws Exception {
        Exception refused = catchException(() -> replicate("replica_rekeyed", List.of("rekeyed"), false));
        assertThat(TestJobs.messages(refused))
                .as("the refusal")
                .contains("has the primary key [a]", "now keyed by [a, c]", "never changes a key");
        assertThat(rows("replica_rekeyed", "rekeyed"))
                .as("the rows before the change, if their checkpoint completed; never the refused one")
                .isSubsetOf("(1,1)");
    }
}
