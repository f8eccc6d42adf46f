package com.example;

import dev.eosink.postgres.PostgresSink;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Orders into PostgreSQL, exactly once. The table must exist:
 * {@code CREATE TABLE orders (id bigint, customer text, amount numeric, ts timestamptz)}.
 *
 * <p>Where to write comes from the environment: {@code SINK_JDBC_URL} (default
 * {@code jdbc:postgresql://localhost:5432/shop}), {@code SINK_USER} (default {@code flink_sink}) and
 * {@code SINK_PASSWORD}.
 */
public class OrdersJob {

    /** The sink's stable name: every transaction id it prepares carries it; keep it when the job changes. */
    public static final String SINK_ID = "orders";

    public static void main(String[] args) throws Exception {
        String url = setting("SINK_JDBC_URL", "jdbc:postgresql://localhost:5432/shop");
        String user = setting("SINK_USER", "flink_sink");
        String password = setting("SINK_PASSWORD", "");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(10_000); // the sink commits when a checkpoint completes
        define(env, 100_000, url, user, password);
        env.execute("orders into PostgreSQL");
    }

    /** The job's graph: {@code count} orders into the table {@code public.orders}. */
    public static void define(
            StreamExecutionEnvironment env, long count, String url, String user, String password) {
        DataStream<Order> orders = env.fromSequence(1, count).map(Order::new); // your source here
        orders.sinkTo(PostgresSink.<Order>builder()
                .jdbcUrl(url)
                .username(user)
                .password(password)
                .sinkId(SINK_ID)
                .table("public", "orders")
                .columns("id", "customer", "amount", "ts")
                .rows(o -> new Object[] {o.id, o.customer, o.amount, o.ts})
                .build());
    }

    private static String setting(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? fallback : value;
    }
}
