/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.cdc.flink.CdcTypes;
import dev.eosink.cdc.flink.TransactionAssembler;
import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.examples.kafka.CaptureToKafka;
import dev.eosink.examples.kafka.ChangeTopics;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.replication.ChangeEventRouter;
import dev.eosink.replication.ReplicaTables;
import dev.eosink.replication.SourceChangesRoute;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.ReplicaReader;
import dev.eosink.testing.cdc.SourceBank;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * {@code ./demo --cdc}: replication that is consistent at every commit. A source PostgreSQL runs {@link SourceBank}'s
 * transactions over four related tables (transfers between accounts whose balances always sum to the same total,
 * orders that always have their lines); Debezium's embedded engine captures them, with its transaction metadata, into
 * Kafka topics as its Connect runtime would; the Flink job reads the topics, assembles whole source transactions
 * ({@link TransactionAssembler}) and writes them through the routed PostgreSQL sink into a replica schema, each
 * source transaction whole, while task failures ({@link Chaos}) strike and a TaskManager, the replica's PostgreSQL and
 * the broker are lost ({@link Outages}). A reader checks the source's invariants on the replica after every commit it
 * sees. The verdict: the replica equal to the source row by row, nothing left prepared, and every observed commit
 * consistent.
 */
final class CdcDemo {

    private static final Duration CAPTURE_TIMEOUT = Duration.ofMinutes(5);

    private CdcDemo() {}

    /** What a run found. */
    static final class Run {
        final int exit;
        final boolean equal;
        final int observed;
        final List<String> inconsistent;
        final Map<Outages.Kind, Integer> serversLost;
        final Map<Chaos.Kind, Long> taskFailures;

        Run(
                int exit,
                boolean equal,
                int observed,
                List<String> inconsistent,
                Map<Outages.Kind, Integer> serversLost,
                Map<Chaos.Kind, Long> taskFailures) {
            this.exit = exit;
            this.equal = equal;
            this.observed = observed;
            this.inconsistent = inconsistent;
            this.serversLost = serversLost;
            this.taskFailures = taskFailures;
        }
    }

    static int run(DemoOptions o) throws Exception {
        try (KafkaDemo.Servers servers = KafkaDemo.Servers.startOrNamed(o)) {
            return run(o, servers).exit;
        }
    }

    /** One run into {@code servers}' PostgreSQL (the replica, which it crashes) through their broker. */
    static Run run(DemoOptions o, KafkaDemo.Servers servers) throws Exception {
        Chaos.resetCounters();
        String schema = o.table;
        List<String> sourceTables =
                SourceBank.TABLES.stream().map(t -> "public." + t).collect(Collectors.toList());
        StandalonePostgres target = Objects.requireNonNull(servers.postgres, "the replica is an embedded PostgreSQL");
        try (StandalonePostgres source = PostgresFixture.startNew(Map.of("wal_level", "logical"))) {
            System.out.println("source PostgreSQL (wal_level=logical): " + source.describe());
            try (Connection c = source.connect();
                    Statement s = c.createStatement()) {
                for (String ddl : SourceBank.ddl("public")) {
                    s.execute(ddl);
                }
                SourceBank.openAccounts(c);
            }
            try (Connection c = servers.connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                for (String ddl : SourceBank.ddl(schema)) {
                    s.execute(ddl);
                }
            }
            ChangeTopics topics = new ChangeTopics(
                    servers.broker.bootstrapServers(), "eosink-cdc-" + System.currentTimeMillis(), sourceTables);
            topics.create();
            long t0 = System.nanoTime();
            try (CaptureToKafka capture = new CaptureToKafka(
                    servers.broker.bootstrapServers(), topics, source.port(), source.user(), sourceTables)) {
                capture.awaitSent(SourceBank.ACCOUNTS, CAPTURE_TIMEOUT); // the snapshot: the slot exists
                try (Connection c = source.connect()) {
                    c.setAutoCommit(false);
                    for (long i = 0; i < o.events; i++) {
                        if (i == schemaChangeAt(o)) {
                            SourceBank.addChannel(c); // the replica gains it with the first rows that carry it
                        }
                        SourceBank.transaction(c, i, i >= schemaChangeAt(o));
                    }
                }
                capture.awaitEnds(o.events, CAPTURE_TIMEOUT);
                System.out.printf(
                        "%s: %,d source transactions captured by Debezium into Kafka (%,d records) in %.1f s; "
                                + "schema change: column channel added to the source's orders before transaction %,d%n",
                        topics, o.events, capture.sent(), (System.nanoTime() - t0) / 1e9, schemaChangeAt(o));
            }
            Map<TopicPartition, Long> end = topics.latestOffsets();
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            return replicate(o, servers, target, source, topics, end, total, sourceTables);
        }
    }

    /** The source transaction before which the source's orders gain a column: half-way. */
    static long schemaChangeAt(DemoOptions o) {
        return o.events / 2;
    }

    private static Run replicate(
            DemoOptions o,
            KafkaDemo.Servers servers,
            StandalonePostgres target,
            StandalonePostgres source,
            ChangeTopics topics,
            Map<TopicPartition, Long> end,
            long total,
            List<String> sourceTables)
            throws Exception {
        boolean chaos = o.chaos != null ? o.chaos : true;
        String schema = o.table;
        ReplicaTables tables;
        try (Connection c = servers.connect()) {
            // Evolving: the replica's tables gain the columns the source's events bring (orders.channel, half-way).
            tables = ReplicaTables.readEvolving(c, schema, sourceTables);
        }
        ExactlyOnceSink<SourceChanges> sink = PostgresSink.<SourceChanges>builder()
                .jdbcUrl(servers.jdbcUrl)
                .username(servers.user)
                .password(servers.password)
                .sinkId(o.sinkId)
                .tables(tables.routed(
                        new SourceChangesRoute(new ChangeEventRouter(tables, SchemalessValues.microseconds()))))
                .build();
        StreamExecutionEnvironment env = Demo.environment(o);
        env.setParallelism(1); // one source database: one consistency group, one writer
        if (!o.flinkConf.containsKey("execution.checkpointing.interval")) {
            env.enableCheckpointing(250); // many commits for the reader to check, and fresh rows
        }
        env.fromSource(topics.source(end, "eosink-" + o.sinkId), WatermarkStrategy.noWatermarks(), "debezium topics")
                .map(new Throttle<CdcEvent>(o.rate))
                .returns(CdcTypes.events())
                .name("at most " + (long) o.rate + "/s")
                .map(new Chaos.ChaosMap<CdcEvent>(true))
                .returns(CdcTypes.events())
                .name(chaos ? "count + chaos" : "count")
                .keyBy(e -> "source", Types.STRING)
                .process(new TransactionAssembler<String>())
                .name("whole source transactions")
                .sinkTo(chaos ? sink.withLifecycleHook(Chaos.sinkHook()) : sink)
                .name("replica");

        LocalCluster cluster = LocalCluster.start(KafkaDemo.clusterConfiguration(o), 2, 1);
        ReplicaReader reader = new ReplicaReader(target, schema).start();
        try {
            Outages outages = new Outages(cluster, target, servers.broker, () -> Chaos.events() / (double) total);
            System.out.printf(
                    "eosink demo --cdc: %,d change and transaction events into schema %s (sink id %s), chaos %s%n",
                    total,
                    schema,
                    o.sinkId,
                    chaos
                            ? "on (" + o.faults + " task failures, seed " + o.seed + "; and " + outages.planned() + ")"
                            : "off");
            outages.skipped().forEach(why -> System.out.println("note: " + why));
            long start = System.nanoTime();
            JobID job = cluster.submit(env, "eosink demo: replication", Optional.empty());
            if (chaos) {
                Chaos.start(o.seed, o.chaosMinMillis, o.chaosMaxMillis, o.faults);
                outages.start();
            }
            CompletableFuture<JobResult> result = cluster.result(job);
            while (!result.isDone() && outages.failure() == null) {
                try {
                    result.get(2, TimeUnit.SECONDS);
                } catch (TimeoutException stillRunning) {
                    System.out.printf(
                            "[%5.0fs] events read %,d of %,d (incl. replays) | task failures %d | commits observed %d%n",
                            (System.nanoTime() - start) / 1e9, Chaos.events(), total, Chaos.fired(), reader.observed());
                }
            }
            Chaos.stop();
            outages.stop();
            Map<Outages.Kind, Integer> lost = outages.done();
            String failure = outages.failure() != null
                    ? "a server did not come back: " + outages.failure()
                    : result.get().isSuccess() ? null : "the job did not succeed";
            reader.stop();
            System.out.printf(
                    "job %s after %.1f s; task failures %s; servers lost %s%n",
                    failure == null ? "FINISHED" : "FAILED",
                    (System.nanoTime() - start) / 1e9,
                    Chaos.firedByKind(),
                    lost);
            boolean equal;
            try (Connection s = source.connect();
                    Connection t = servers.connect()) {
                Map<String, Map<String, String>> want = SourceBank.read(s, "public");
                Map<String, Map<String, String>> got = SourceBank.read(t, schema);
                equal = want.equals(got);
                System.out.println("replica: " + (equal ? "equal to the source, row by row" : "DIFFERS from the source")
                        + " ("
                        + got.entrySet().stream()
                                .map(e -> e.getKey() + " " + e.getValue().size())
                                .collect(Collectors.joining(", "))
                        + " rows)");
                try (Statement st = t.createStatement();
                        java.sql.ResultSet rs = st.executeQuery("SELECT count(channel) FROM " + schema + ".orders")) {
                    rs.next();
                    System.out.printf(
                            "replica's orders: column channel added by the sink mid-run, %,d orders carry it%n",
                            rs.getLong(1));
                } catch (java.sql.SQLException missing) {
                    equal = false;
                    System.out.println("replica's orders: column channel MISSING: " + missing.getMessage());
                }
            }
            List<String> prepared = target.preparedGids(TransactionId.sinkPrefix(o.sinkId));
            System.out.println("prepared transactions left: " + prepared.size());
            List<String> wrong = reader.inconsistent();
            System.out.printf(
                    "consistent at every observed commit: %d of %d%s%n",
                    reader.observed() - reader.inconsistentCommits(),
                    reader.observed(),
                    wrong.isEmpty() ? "" : "; first inconsistent: " + wrong.get(0));
            if (reader.failure() != null) {
                System.out.println("the reader failed: " + reader.failure());
            }
            System.out.printf(
                    "failures survived: %d task failures, %d TaskManager(s) killed, %d PostgreSQL crash(es), "
                            + "%d Kafka broker restart(s)%n",
                    Chaos.fired(),
                    lost.get(Outages.Kind.TASK_MANAGER_KILLED),
                    lost.get(Outages.Kind.POSTGRES_CRASHED),
                    lost.get(Outages.Kind.KAFKA_BROKER_RESTARTED));
            boolean ok = failure == null && equal && prepared.isEmpty() && wrong.isEmpty() && reader.failure() == null;
            return new Run(ok ? 0 : 1, equal, reader.observed(), wrong, lost, Chaos.firedByKind());
        } finally {
            reader.stop();
            cluster.close();
        }
    }
}
