/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.kafka.KafkaBroker;
import dev.eosink.examples.kafka.OrderProducer;
import dev.eosink.examples.kafka.OrderTopic;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code ./demo --source kafka}: Kafka in, windows, PostgreSQL out, exactly once end to end. A producer
 * first writes the generator's orders into a topic of {@value #PARTITIONS} partitions; the job then reads
 * it up to its end offsets with Flink's Kafka source (its offsets in the same checkpoints as the sink's
 * transactions), windows the orders per customer and writes the totals through the PostgreSQL sink, on a
 * local cluster of two TaskManagers. Task failures ({@link Chaos}) and lost servers ({@link Outages})
 * strike meanwhile. The verdict compares the table with the topic's contents, read back with a plain
 * consumer: exit code 0 only when every window is there once, right, and nothing is left prepared.
 */
final class KafkaDemo {

    static final int PARTITIONS = 4;

    private KafkaDemo() {}

    /** The broker and the database of a run, and whether the run started (and so may kill) each. */
    static final class Servers implements AutoCloseable {
        final KafkaBroker broker;
        final String jdbcUrl;
        final String user;
        final String password;
        /** The database to crash: one this run started, or null. */
        final StandalonePostgres postgres;

        private final boolean own;

        Servers(
                KafkaBroker broker,
                String jdbcUrl,
                String user,
                String password,
                StandalonePostgres postgres,
                boolean own) {
            this.broker = broker;
            this.jdbcUrl = jdbcUrl;
            this.user = user;
            this.password = password;
            this.postgres = postgres;
            this.own = own;
        }

        /** The servers the options name, or else embedded ones, started now and closed with this. */
        static Servers startOrNamed(DemoOptions o) {
            KafkaBroker broker =
                    o.kafkaBootstrap != null ? KafkaBroker.named(o.kafkaBootstrap) : KafkaBroker.namedOrStarted();
            System.out.println("Kafka: " + broker.describe());
            if (o.postgresUrl != null) {
                return new Servers(broker, o.postgresUrl, o.user, o.password, null, true);
            }
            // A server of the run's own, not the shared fixture: the run crashes it.
            StandalonePostgres pg = PostgresFixture.startNew(Map.of());
            System.out.println("PostgreSQL: " + pg.describe());
            return new Servers(broker, pg.jdbcUrl(), pg.user(), pg.password(), pg, true);
        }

        /** Servers a test shares between runs: left running. */
        static Servers shared(KafkaBroker broker, StandalonePostgres postgres) {
            return new Servers(broker, postgres.jdbcUrl(), postgres.user(), postgres.password(), postgres, false);
        }

        Connection connect() throws SQLException {
            Properties props = new Properties();
            if (user != null) {
                props.setProperty("user", user);
            }
            if (password != null) {
                props.setProperty("password", password);
            }
            return Demo.connect(jdbcUrl, props);
        }

        @Override
        public void close() {
            if (own) {
                broker.close();
                if (postgres != null) {
                    postgres.close();
                }
            }
        }
    }

    /** What a run did and found. */
    static final class Run {
        /** The demo's exit code: 0 only when the job finished and the table is exact. */
        final int exit;
        /** Null when the run was refused before the job started. */
        final Verdict verdict;

        final OrderTopic topic;
        final Map<Outages.Kind, Integer> serversLost;
        final Map<Chaos.Kind, Long> taskFailures;

        Run(
                int exit,
                Verdict verdict,
                OrderTopic topic,
                Map<Outages.Kind, Integer> serversLost,
                Map<Chaos.Kind, Long> taskFailures) {
            this.exit = exit;
            this.verdict = verdict;
            this.topic = topic;
            this.serversLost = serversLost;
            this.taskFailures = taskFailures;
        }

        static Run refused() {
            return new Run(2, null, null, Map.of(), Map.of());
        }
    }

    static int run(DemoOptions o, Servers servers) throws Exception {
        try (servers) {
            return run(o, servers, null).exit;
        }
    }

    /** The configuration of the run's local cluster: the job's, with a REST port of its own. */
    /**
     * The orders read from a Kafka topic ({@link OrderTopic#source}), at most {@code perSecond} a second: event
     * time and watermarks from each order's time, per partition (the source tracks a watermark per split, so
     * one partition's lead never makes another's orders late). Here, not in {@link Jobs}: the cluster jar
     * carries no Kafka connector, and Jobs must name nothing it lacks.
     */
    static DataStream<Order> orders(
            StreamExecutionEnvironment env,
            KafkaSource<Order> source,
            OrderGenerator generator,
            double perSecond,
            boolean chaos) {
        DataStream<Order> orders = env.fromSource(source, Jobs.watermarks(generator), "orders from kafka");
        return orders.map(new Throttle<>(perSecond))
                .name("at most " + (long) perSecond + "/s")
                .map(new Chaos.ChaosMap<>(true))
                .name(chaos ? "count + chaos" : "count");
    }

    static Configuration clusterConfiguration(DemoOptions o) throws java.io.IOException {
        Configuration conf =
                Configuration.fromMap(Demo.environment(o).getConfiguration().toMap());
        if (!conf.contains(RestOptions.BIND_PORT)) {
            conf.set(RestOptions.BIND_PORT, "0");
        }
        return conf;
    }

    /** One run on {@code servers}, on {@code cluster} if given (else one of its own). */
    static Run run(DemoOptions o, Servers servers, LocalCluster given) throws Exception {
        Chaos.resetCounters();
        OrderGenerator generator = OrderGenerator.defaults();
        try (Connection c = servers.connect()) {
            Optional<String> refused = new DemoTable(c, o).prepare(false);
            if (refused.isPresent()) {
                System.err.println("error: " + refused.get());
                return Run.refused();
            }
        }
        StreamExecutionEnvironment env = Demo.environment(o);
        if (!(env instanceof LocalStreamEnvironment)) {
            System.err.println("error: --source kafka runs in a local MiniCluster only (it kills servers of its own)");
            return Run.refused();
        }
        boolean chaos = o.chaos != null ? o.chaos : true;
        env.setParallelism(o.parallelism);

        OrderTopic topic = new OrderTopic(
                servers.broker.bootstrapServers(), "eosink-orders-" + System.currentTimeMillis(), PARTITIONS);
        topic.create();
        // The whole topic first, then the job up to its end offsets: the job's end is then exactly what the
        // topic holds, whatever the producer's retries did (a broker that dies under an idempotent producer
        // may still get a batch twice, and offsets foretold from the generator would then stop short).
        long t0 = System.nanoTime();
        try (OrderProducer producer = new OrderProducer(topic, generator, o.events, Double.POSITIVE_INFINITY)) {
            producer.start().await(10, TimeUnit.MINUTES);
        }
        Map<TopicPartition, Long> end = topic.latestOffsets();
        System.out.printf(
                "%s: %,d orders produced in %.1f s (idempotent producer, acks=all), end offsets %s%n",
                topic, o.events, (System.nanoTime() - t0) / 1e9, new java.util.TreeMap<>(byPartition(end)));
        Jobs.Target target = new Jobs.Target(servers.jdbcUrl, servers.user, servers.password, o.table, o.sinkId, chaos);
        Jobs.windowedTotals(orders(env, topic.source(end, "eosink-" + o.sinkId), generator, o.rate, chaos), target);

        long total = end.values().stream().mapToLong(Long::longValue).sum();
        LocalCluster cluster = given != null ? given : LocalCluster.start(clusterConfiguration(o), 2, o.parallelism);
        try {
            Outages outages =
                    new Outages(cluster, servers.postgres, servers.broker, () -> Chaos.events() / (double) total);
            System.out.printf(
                    "eosink demo: windows job, Kafka in, parallelism %d, chaos %s, into table %s (sink id %s)%n",
                    o.parallelism,
                    chaos
                            ? "on (" + o.faults + " task failures, seed " + o.seed + "; and " + outages.planned() + ")"
                            : "off",
                    o.table,
                    o.sinkId);
            outages.skipped().forEach(why -> System.out.println("note: " + why));

            long start = System.nanoTime();
            JobID job = cluster.submit(env, "eosink demo: windows from Kafka", Optional.empty());
            System.out.println("job " + job + " submitted");
            if (chaos) {
                Chaos.start(o.seed, o.chaosMinMillis, o.chaosMaxMillis, o.faults);
                outages.start();
            }
            CompletableFuture<JobResult> result = cluster.result(job);
            while (!result.isDone()) {
                try {
                    result.get(2, TimeUnit.SECONDS);
                } catch (TimeoutException stillRunning) {
                    progress(servers, o, start, total);
                }
                if (outages.failure() != null) {
                    break;
                }
            }
            Chaos.stop();
            outages.stop();
            String failure = failure(result, outages);
            double seconds = (System.nanoTime() - start) / 1e9;
            Map<Outages.Kind, Integer> lost = outages.done();
            System.out.printf(
                    "job %s after %.1f s; task failures %s; servers lost %s%n",
                    failure == null ? "FINISHED" : "FAILED", seconds, Chaos.firedByKind(), lost);
            if (failure != null) {
                System.out.println("job failed: " + failure);
            }

            List<Order> orders = topic.readAll();
            System.out.println("topic: " + describeTopic(orders, generator, o.events));
            Verdict v;
            try (Connection c = servers.connect()) {
                v = Verdict.checkWindows(c, o.table, o.sinkId, orders);
            }
            System.out.println("verdict: " + v);
            System.out.printf(
                    "failures survived: %d task failures, %d TaskManager(s) killed, %d PostgreSQL crash(es), "
                            + "%d Kafka broker restart(s)%n",
                    Chaos.fired(),
                    lost.get(Outages.Kind.TASK_MANAGER_KILLED),
                    lost.get(Outages.Kind.POSTGRES_CRASHED),
                    lost.get(Outages.Kind.KAFKA_BROKER_RESTARTED));
            return new Run(failure == null && v.exact() ? 0 : 1, v, topic, lost, Chaos.firedByKind());
        } finally {
            if (given == null) {
                cluster.close();
            }
        }
    }

    /** What ended the run other than success, or null. */
    private static String failure(CompletableFuture<JobResult> result, Outages outages) throws Exception {
        if (outages.failure() != null) {
            return "a server did not come back: " + outages.failure();
        }
        JobResult r = result.get();
        if (r.isSuccess()) {
            return null;
        }
        return r.getSerializedThrowable()
                .map(t -> t.deserializeError(KafkaDemo.class.getClassLoader()).toString())
                .orElse("the job did not succeed");
    }

    /** Whether the topic holds each of the generator's first {@code events} orders exactly once. */
    static String describeTopic(List<Order> orders, OrderGenerator generator, long events) {
        BitSet seen = new BitSet();
        long duplicates = 0;
        long foreign = 0;
        for (Order order : orders) {
            if (order.orderId < 0 || order.orderId >= events || !order.equals(generator.order(order.orderId))) {
                foreign++;
            } else if (seen.get((int) order.orderId)) {
                duplicates++;
            } else {
                seen.set((int) order.orderId);
            }
        }
        long missing = events - seen.cardinality();
        return String.format(
                "%,d orders read back with a plain consumer; duplicates %,d, missing %,d, not the generator's %,d%s",
                orders.size(),
                duplicates,
                missing,
                foreign,
                duplicates == 0 && missing == 0 && foreign == 0 ? " (each of the generator's orders once)" : "");
    }

    private static void progress(Servers servers, DemoOptions o, long start, long total) {
        double seconds = (System.nanoTime() - start) / 1e9;
        long committed;
        try (Connection c = servers.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + DemoDatabase.POSTGRES.quote(o.table))) {
            rs.next();
            committed = rs.getLong(1);
        } catch (SQLException e) {
            committed = -1; // PostgreSQL is down: an outage
        }
        System.out.printf(
                "[%5.0fs] windows committed %s | orders read %,d of %,d (incl. replays) | checkpoint %d "
                        + "| task failures %d%n",
                seconds,
                committed < 0 ? "(database down)" : String.format("%,d", committed),
                Chaos.events(),
                total,
                Chaos.checkpoints(),
                Chaos.fired());
    }

    private static Map<Integer, Long> byPartition(Map<TopicPartition, Long> offsets) {
        Map<Integer, Long> m = new java.util.HashMap<>();
        offsets.forEach((tp, offset) -> m.put(tp.partition(), offset));
        return m;
    }
}
