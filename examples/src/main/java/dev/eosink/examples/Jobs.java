/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.RowMapper;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.postgres.PostgresSinkBuilder;
import dev.eosink.xa.XaSink;
import dev.eosink.xa.XaSinkBuilder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The two example pipelines. Both read the same replayable orders, from the generator or from a Kafka topic
 * ({@link KafkaDemo#orders}), and write through the exactly-once sink.
 *
 * <p>The job's serialized functions (the lambdas below) are declared here, so a TaskManager and, from
 * Flink 2.1, the JobManager load and verify this class: it must name no class that the cluster jar does
 * not carry (no Kafka, no SQL), or the job fails there with a {@code NoClassDefFoundError}.
 */
public final class Jobs {

    /** Tumbling event-time windows of the windowed-totals job. */
    public static final Duration WINDOW = Duration.ofSeconds(10);

    private Jobs() {}

    /** Where and how the jobs write: connection, table, sink id, whether chaos strikes. */
    public static final class Target {
        final String jdbcUrl;
        final String user;
        final String password;
        final String table;
        final String sinkId;
        final boolean chaos;

        public Target(String jdbcUrl, String user, String password, String table, String sinkId, boolean chaos) {
            this.jdbcUrl = jdbcUrl;
            this.user = user;
            this.password = password;
            this.table = table;
            this.sinkId = sinkId;
            this.chaos = chaos;
        }
    }

    /**
     * The replayable source of {@code events} orders, paced by {@code pace}, with event time and watermarks.
     */
    public static DataStream<Order> orders(
            StreamExecutionEnvironment env, OrderGenerator generator, long events, Pace pace, boolean chaos) {
        GeneratorFunction<Long, Order> orders = generator::order;
        TypeInformation<Order> type = TypeInformation.of(Order.class);
        DataGeneratorSource<Order> source = pace instanceof Pace.PerCheckpoint
                ? new DataGeneratorSource<>(
                        orders, events, RateLimiterStrategy.perCheckpoint(((Pace.PerCheckpoint) pace).orders), type)
                : new DataGeneratorSource<>(
                        orders, events, RateLimiterStrategy.perSecond(((Pace.PerSecond) pace).orders), type);
        return env.fromSource(source, watermarks(generator), "orders")
                .map(new Chaos.ChaosMap<>(true))
                .name(chaos ? "count + chaos" : "count");
    }

    static WatermarkStrategy<Order> watermarks(OrderGenerator generator) {
        return WatermarkStrategy.<Order>forBoundedOutOfOrderness(generator.maxOutOfOrderness())
                .withTimestampAssigner((order, ts) -> order.eventTimeMillis);
    }

    /** orders -> key by customer -> tumbling event-time windows -> count and sum -> exactly-once sink. */
    public static void windowedTotals(DataStream<Order> orders, Target target) {
        orders.keyBy(o -> o.customer)
                .window(TumblingEventTimeWindows.of(WINDOW))
                .aggregate(new CountAndSum(), new ToWindowTotal())
                .name("window totals")
                .map(new Chaos.ChaosMap<>(false))
                .name("checkpoint listener" + (target.chaos ? " + declines" : ""))
                .sinkTo(sink(target, WINDOW_COLUMNS, windowTotalRows()))
                .name(DemoDatabase.of(target.jdbcUrl).name().toLowerCase(java.util.Locale.ROOT) + ": " + target.table);
    }

    /** orders -> exactly-once sink, one row per order. */
    public static void rawEvents(DataStream<Order> orders, Target target) {
        orders.map(new Chaos.ChaosMap<>(false))
                .name("checkpoint listener" + (target.chaos ? " + declines" : ""))
                .sinkTo(sink(target, EVENT_COLUMNS, orderRows()))
                .name(DemoDatabase.of(target.jdbcUrl).name().toLowerCase(java.util.Locale.ROOT) + ": " + target.table);
    }

    private static final String[] WINDOW_COLUMNS = {
        "customer", "window_start", "window_end", "order_count", "amount_cents"
    };
    private static final String[] EVENT_COLUMNS = {"order_id", "customer", "amount_cents", "event_time"};

    private static RowMapper<WindowTotal> windowTotalRows() {
        return w -> new Object[] {
            w.customer, time(w.windowStartMillis), time(w.windowEndMillis), w.orderCount, w.amountCents
        };
    }

    private static RowMapper<Order> orderRows() {
        return o -> new Object[] {o.orderId, o.customer, o.amountCents, time(o.eventTimeMillis)};
    }

    /**
     * PostgreSQL through its own sink; a MariaDB URL through the XA sink, with times as UTC
     * LocalDateTime for its DATETIME columns (which have no time zone).
     */
    private static <T> ExactlyOnceSink<T> sink(Target t, String[] columns, RowMapper<T> rows) {
        ExactlyOnceSink<T> sink;
        if (DemoDatabase.of(t.jdbcUrl) == DemoDatabase.MARIADB) {
            XaSinkBuilder<T> builder = XaSink.<T>builder()
                    .jdbcUrl(t.jdbcUrl)
                    .sinkId(t.sinkId)
                    .table(t.table)
                    .columns(columns)
                    .rows(r -> utc(rows.toRow(r)));
            if (t.user != null) {
                builder.username(t.user);
            }
            if (t.password != null) {
                builder.password(t.password);
            }
            sink = builder.build();
        } else {
            PostgresSinkBuilder<T> builder = PostgresSink.<T>builder()
                    .jdbcUrl(t.jdbcUrl)
                    .sinkId(t.sinkId)
                    .table(t.table)
                    .columns(columns)
                    .rows(rows);
            if (t.user != null) {
                builder.username(t.user);
            }
            if (t.password != null) {
                builder.password(t.password);
            }
            sink = builder.build();
        }
        return t.chaos ? sink.withLifecycleHook(Chaos.sinkHook()) : sink;
    }

    private static Object[] utc(Object[] row) {
        for (int i = 0; i < row.length; i++) {
            if (row[i] instanceof OffsetDateTime) {
                row[i] = ((OffsetDateTime) row[i])
                        .withOffsetSameInstant(ZoneOffset.UTC)
                        .toLocalDateTime();
            }
        }
        return row;
    }

    static OffsetDateTime time(long millis) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    /** DDL of the two tables. */
    public static String createTableSql(String job, String table) {
        String quoted = '"' + table.replace("\"", "\"\"") + '"';
        if ("events".equals(job)) {
            return "CREATE TABLE " + quoted + " (order_id bigint NOT NULL, customer integer NOT NULL, "
                    + "amount_cents bigint NOT NULL, event_time timestamptz NOT NULL)";
        }
        return "CREATE TABLE " + quoted + " (customer integer NOT NULL, window_start timestamptz NOT NULL, "
                + "window_end timestamptz NOT NULL, order_count bigint NOT NULL, amount_cents bigint NOT NULL)";
    }

    static final class CountAndSum implements AggregateFunction<Order, long[], long[]> {
        private static final long serialVersionUID = 1L;

        @Override
        public long[] createAccumulator() {
            return new long[2];
        }

        @Override
        public long[] add(Order order, long[] acc) {
            acc[0]++;
            acc[1] += order.amountCents;
            return acc;
        }

        @Override
        public long[] getResult(long[] acc) {
            return acc;
        }

        @Override
        public long[] merge(long[] a, long[] b) {
            return new long[] {a[0] + b[0], a[1] + b[1]};
        }
    }

    static final class ToWindowTotal extends ProcessWindowFunction<long[], WindowTotal, Integer, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(Integer customer, Context context, Iterable<long[]> totals, Collector<WindowTotal> out) {
            long[] t = totals.iterator().next();
            out.collect(new WindowTotal(
                    customer, context.window().getStart(), context.window().getEnd(), t[0], t[1]));
        }
    }
}
