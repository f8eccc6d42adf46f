package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eosink.testing.PostgresFixture;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The job on a local MiniCluster against a real PostgreSQL: eosink's test fixture starts an embedded
 * PostgreSQL 17 from Maven Central (or uses EOSINK_TEST_JDBC_URL's server), then every row is checked.
 */
class OrdersJobTest {

    static final long ORDERS = 10_000;

    @Test
    void everyOrderIsWrittenOnce() throws Exception {
        PostgresFixture pg = PostgresFixture.get();
        pg.execute("DROP TABLE IF EXISTS public.orders");
        pg.execute("CREATE TABLE public.orders (id bigint, customer text, amount numeric, ts timestamptz)");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200); // short, so that the test does not wait for the last commit
        OrdersJob.define(env, ORDERS, pg.jdbcUrl(), pg.user(), pg.password());
        env.execute("orders into PostgreSQL (test)");

        assertEquals(ORDERS, pg.count("SELECT count(*) FROM public.orders"), "rows");
        assertEquals(ORDERS, pg.count("SELECT count(DISTINCT id) FROM public.orders"), "distinct ids");
        assertEquals(ORDERS, pg.count("SELECT count(*) FROM public.orders WHERE id BETWEEN 1 AND ?", ORDERS), "ids 1..n");
        assertEquals(
                java.util.List.of(),
                pg.preparedGids("eos1/" + OrdersJob.SINK_ID + "/"),
                "transactions left prepared");
    }
}
