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
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.DebeziumCapture;
import dev.eosink.testing.cdc.ReplicaReader;
import dev.eosink.testing.cdc.SourceBank;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.Faults.Point;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debezium's change events of a real source (PostgreSQL, {@link SourceBank}'s transactions over four related
 * tables, captured by Debezium's embedded engine), replicated by a routed sink into a replica schema of the same
 * kinds of tables, through failures: the replica ends exactly as the source, row by row, with nothing prepared.
 */
class ReplicationITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final long TRANSACTIONS = 200;

    private static StandalonePostgres db;
    /** The data topics' records, in the order the engine emitted them: key and value bytes. */
    static List<DebeziumCapture.Captured> changes;
    /** Every record but tombstones, the transaction topic's among them, in the order the engine emitted them. */
    static List<DebeziumCapture.Captured> records;

    @BeforeAll
    static void captureTheSource() throws Exception {
        db = PostgresFixture.startNew(Map.of("wal_level", "logical"));
        try (Connection c = db.connect()) {
            try (Statement s = c.createStatement()) {
                for (String ddl : SourceBank.ddl("public")) {
                    s.execute(ddl);
                }
            }
            SourceBank.openAccounts(c);
        }
        try (DebeziumCapture capture = new DebeziumCapture("bank", engineProperties())) {
            capture.awaitRecords("the snapshot", r -> data(r).size() >= SourceBank.ACCOUNTS, WAIT);
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                for (long i = 0; i < TRANSACTIONS; i++) {
                    SourceBank.transaction(c, i);
                }
            }
            records = capture
                    .awaitRecords(
                            "the END of every transaction",
                            r -> r.stream().filter(ReplicationITCase::isEnd).count() >= TRANSACTIONS,
                            WAIT)
                    .stream()
                    .filter(r -> r.value != null)
                    .collect(Collectors.toList());
            changes = data(records);
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static Properties engineProperties() {
        Properties p = new Properties();
        p.setProperty("name", "bank");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        p.setProperty("database.hostname", "localhost");
        p.setProperty("database.port", String.valueOf(db.port()));
        p.setProperty("database.user", db.user());
        p.setProperty("database.dbname", "postgres");
        p.setProperty("topic.prefix", "bank");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", "bank_slot");
        p.setProperty("slot.drop.on.stop", "true");
        p.setProperty("publication.name", "bank_publication");
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty(
                "table.include.list",
                SourceBank.TABLES.stream().map(t -> "public." + t).collect(Collectors.joining(",")));
        p.setProperty("snapshot.mode", "initial");
        p.setProperty("provide.transaction.metadata", "true");
        p.setProperty("converter.schemas.enable", "true");
        return p;
    }

    private static boolean isEnd(DebeziumCapture.Captured r) {
        return r.topic.endsWith(".transaction")
                && r.value != null
                && new String(r.value, java.nio.charset.StandardCharsets.UTF_8).contains("\"status\":\"END\"");
    }

    private static List<DebeziumCapture.Captured> data(List<DebeziumCapture.Captured> records) {
        return records.stream()
                .filter(r -> !r.topic.endsWith(".transaction") && r.value != null)
                .collect(Collectors.toList());
    }

    /**
     * One change per record, per-key mode at parallelism 2 (the sink distributes the events by table and key; the
     * replica has no foreign keys, which per-key mode cannot keep): the replica ends exactly as the source, through
     * a failure mid-epoch, one after a PREPARE and one before a commit.
     */
    @Test
    void changeByChangePerKeyAtParallelism2TheReplicaEndsExactlyAsTheSource() throws Exception {
        String schema = "replica_changes";
        String sinkId = "replica-changes";
        ReplicaTables tables = replica(schema, false); // per-key mode keeps no foreign key
        RoutedTables<ChangeEvent> routed = tables.routed(
                new ChangeEventRoute(new ChangeEventRouter(tables, SchemalessValues.microseconds())),
                ChangeEventRoute.byKey());
        Faults.arm(sinkId, Point.WRITE, changes.size() / 3);
        Faults.arm(sinkId, Point.AFTER_PREPARE, 3);
        Faults.arm(sinkId, Point.BEFORE_COMMIT, 6);
        StreamExecutionEnvironment env = TestJobs.env(2, 100, TestJobs.fixedDelayRestarts(10, Duration.ofMillis(100)));
        DebeziumJsonParser parser = new DebeziumJsonParser();
        DataGeneratorSource<Long> indexes = new DataGeneratorSource<>(
                (GeneratorFunction<Long, Long>) index -> index,
                changes.size(),
                RateLimiterStrategy.perSecond(2_000),
                Types.LONG);
        // One channel into the sink's distribution: each row's events in their order.
        env.fromSource(indexes, WatermarkStrategy.noWatermarks(), "changes")
                .setParallelism(1)
                .map(i -> {
                    DebeziumCapture.Captured record = changes.get(i.intValue());
                    return (ChangeEvent) parser.parse(record.key, record.value).orElseThrow();
                })
                .returns(CdcTypes.changeEvents())
                .setParallelism(1)
                .sinkTo(FaultInjectingDatabase.wrap(PostgresSink.<ChangeEvent>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(routed)
                        .batchSize(50)
                        .build()));
        env.execute("replication, change by change");

        try (Connection c = db.connect()) {
            assertThat(SourceBank.read(c, schema)).as("the replica").isEqualTo(SourceBank.read(c, "public"));
            assertThat(SourceBank.read(c, schema).get("transfers")).hasSize((int) TRANSACTIONS);
        }
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared left")
                .isEmpty();
        assertThat(Faults.fired(sinkId, Point.WRITE)
                        + Faults.fired(sinkId, Point.AFTER_PREPARE)
                        + Faults.fired(sinkId, Point.BEFORE_COMMIT))
                .as("failures injected")
                .isEqualTo(3);
    }

    /**
     * Whole source transactions (transaction-whole mode): the events, the transaction topic's among them, go
     * through the assembler into the routed sink, through failures; a reader of the replica checks, at every commit
     * it observes, the source's invariants (balances summing to the same total, every order's lines adding up to its
     * total, as many orders as the transfers leave), and the replica ends exactly as the source.
     */
    @Test
    void wholeTransactionsEveryObservedCommitIsAStateOfTheSource() throws Exception {
        String schema = "replica_whole";
        String sinkId = "replica-whole";
        ReplicaTables tables = replica(schema, true);
        RoutedTables<SourceChanges> routed =
                tables.routed(new SourceChangesRoute(new ChangeEventRouter(tables, SchemalessValues.microseconds())));
        Faults.arm(sinkId, Point.WRITE, 60);
        Faults.arm(sinkId, Point.AFTER_PREPARE, 2);
        Faults.arm(sinkId, Point.BEFORE_COMMIT, 4);
        Faults.arm(sinkId, Point.AFTER_COMMIT, 6);
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.fixedDelayRestarts(10, Duration.ofMillis(100)));
        DebeziumJsonParser parser = new DebeziumJsonParser();
        TestJobs.ids(env, records.size(), 1_000)
                .flatMap((Long i, Collector<CdcEvent> out) -> {
                    DebeziumCapture.Captured record = records.get(i.intValue());
                    parser.parse(record.key, record.value).ifPresent(out::collect);
                })
                .returns(CdcTypes.events())
                .keyBy(e -> "bank", Types.STRING)
                .process(new TransactionAssembler<String>())
                .sinkTo(FaultInjectingDatabase.wrap(PostgresSink.<SourceChanges>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(routed)
                        .batchSize(50)
                        .build()));
        ReplicaReader reader = new ReplicaReader(db, schema).start();
        try {
            env.execute("replication, whole transactions");
        } finally {
            reader.stop();
        }

        try (Connection c = db.connect()) {
            assertThat(SourceBank.read(c, schema)).as("the replica").isEqualTo(SourceBank.read(c, "public"));
        }
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared left")
                .isEmpty();
        assertThat(reader.failure()).as("the reader's own failure").isNull();
        assertThat(reader.inconsistent())
                .as("observed commits that are no state of the source")
                .isEmpty();
        assertThat(reader.observed()).as("commits the reader observed").isGreaterThanOrEqualTo(3);
        assertThat(Faults.fired(sinkId, Point.WRITE)
                        + Faults.fired(sinkId, Point.AFTER_PREPARE)
                        + Faults.fired(sinkId, Point.BEFORE_COMMIT)
                        + Faults.fired(sinkId, Point.AFTER_COMMIT))
                .as("failures injected")
                .isEqualTo(4);
    }

    /**
     * Stop and resume, rescaled: the job takes half the records (a source transaction is then, most likely, half
     * in the assembler's state), is stopped with a savepoint, and a new job restored from it at parallelism 2
     * (assembler and sink; the one consistency group stays on one subtask, forward into its writer) takes the
     * rest. The reader sees only states of the source throughout; the replica ends equal to the source.
     */
    @Test
    void stoppedWithASavepointMidStreamAndResumedRescaledEveryObservedCommitIsAStateOfTheSource(
            @TempDir Path savepoints) throws Exception {
        String schema = "replica_resumed";
        String sinkId = "replica-resumed";
        ReplicaTables tables = replica(schema, true);
        RoutedTables<SourceChanges> routed =
                tables.routed(new SourceChangesRoute(new ChangeEventRouter(tables, SchemalessValues.microseconds())));
        ReplicaReader reader = new ReplicaReader(db, schema).start();
        try {
            StreamExecutionEnvironment first = TestJobs.env(1, 100, TestJobs.noRestarts());
            replicationJob(first, sinkId, routed);
            IdValve.openTo(sinkId, records.size() / 2);
            JobClient job = first.executeAsync("replication, the first half");
            String savepoint;
            try {
                TestJobs.await(
                        () -> db.count("SELECT count(*) FROM " + schema + ".transfers") > 0,
                        "a commit of the first half");
                savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                TestJobs.cancelUnlessDone(job);
            }
            long atStop = db.count("SELECT count(*) FROM " + schema + ".transfers");
            assertThat(atStop)
                    .as("transfers replicated before the stop")
                    .isPositive()
                    .isLessThan(TRANSACTIONS);
            assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                    .as("prepared after the stop")
                    .isEmpty();

            IdValve.openFully(sinkId);
            StreamExecutionEnvironment second = TestJobs.env(2, 100, TestJobs.restoreFrom(savepoint));
            replicationJob(second, sinkId, routed);
            second.execute("replication, resumed at parallelism 2");
        } finally {
            reader.stop();
            IdValve.reset(sinkId);
        }

        try (Connection c = db.connect()) {
            assertThat(SourceBank.read(c, schema)).as("the replica").isEqualTo(SourceBank.read(c, "public"));
        }
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared left")
                .isEmpty();
        assertThat(reader.failure()).as("the reader's own failure").isNull();
        assertThat(reader.inconsistent())
                .as("observed commits that are no state of the source")
                .isEmpty();
        assertThat(reader.observed()).as("commits the reader observed").isGreaterThanOrEqualTo(2);
    }

    /** The captured records (valved by the sink id) through the parser and the assembler into the routed sink. */
    private static void replicationJob(
            StreamExecutionEnvironment env, String sinkId, RoutedTables<SourceChanges> routed) {
        DebeziumJsonParser parser = new DebeziumJsonParser();
        IdValve.ids(env, sinkId, records.size())
                .flatMap((Long i, Collector<CdcEvent> out) -> {
                    DebeziumCapture.Captured record = records.get(i.intValue());
                    parser.parse(record.key, record.value).ifPresent(out::collect);
                })
                .returns(CdcTypes.events())
                .uid("parse")
                // As the source: records keep the topics' order into the assembler, which takes the ENDs' order
                // as the commit order (a rebalance here would mix it).
                .setParallelism(1)
                .keyBy(e -> "bank", Types.STRING)
                .process(new TransactionAssembler<String>())
                .uid("assembler")
                .sinkTo(PostgresSink.<SourceChanges>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(routed)
                        .batchSize(50)
                        .build())
                .uid("replica");
    }

    /** Creates {@link SourceBank}'s tables in {@code schema}, with or without their foreign keys, and reads them. */
    private static ReplicaTables replica(String schema, boolean foreignKeys) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            for (String ddl : SourceBank.ddl(schema)) {
                s.execute(foreignKeys ? ddl : ddl.replaceAll(" REFERENCES [a-z_.]+", ""));
            }
            return ReplicaTables.read(
                    c,
                    schema,
                    SourceBank.TABLES.stream().map(t -> "public." + t).collect(Collectors.toList()));
        }
    }
}
