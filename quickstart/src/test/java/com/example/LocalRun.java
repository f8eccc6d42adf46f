package com.example;

import dev.eosink.testing.PostgresFixture;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code ./run-local}: the job in this JVM (a local MiniCluster) against an embedded PostgreSQL that it
 * starts, then what the table holds. {@code ./run-local com.example.OrdersJob} runs the job itself, against
 * the server that SINK_JDBC_URL names.
 */
public class LocalRun {

    public static void main(String[] args) throws Exception {
        long orders = args.length > 0 ? Long.parseLong(args[0]) : 100_000;
        PostgresFixture pg = PostgresFixture.get();
        pg.execute("DROP TABLE IF EXISTS public.orders");
        pg.execute("CREATE TABLE public.orders (id bigint, customer text, amount numeric, ts timestamptz)");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1_000);
        OrdersJob.define(env, orders, pg.jdbcUrl(), pg.user(), pg.password());
        env.execute("orders into PostgreSQL (local)");

        long rows = pg.count("SELECT count(*) FROM public.orders");
        long distinct = pg.count("SELECT count(DISTINCT id) FROM public.orders");
        int prepared = pg.preparedGids("eos1/" + OrdersJob.SINK_ID + "/").size();
        System.out.printf(
                "%d orders sent; the table holds %d rows, %d distinct ids; %d transactions left prepared%n",
                orders, rows, distinct, prepared);
        if (rows != orders || distinct != orders || prepared != 0) {
            System.err.println("NOT exact");
            System.exit(1);
        }
        System.out.println("exact");
        System.exit(0); // the embedded PostgreSQL stops with the JVM
    }
}
