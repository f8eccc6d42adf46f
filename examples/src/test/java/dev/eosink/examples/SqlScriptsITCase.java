/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts of examples/sql/ as written, their placeholders filled, each run statement by statement
 * by a table environment in a local MiniCluster, into the tables of postgres-tables.sql.
 */
class SqlScriptsITCase {

    private static final PostgresFixture db = PostgresFixture.get();

    /** The tables of postgres-tables.sql, empty; its GRANTs name a role these tests do not use. */
    @BeforeAll
    static void tables() {
        db.rollbackPrepared(TransactionId.sinkPrefix("sql-window-totals"));
        db.rollbackPrepared(TransactionId.sinkPrefix("sql-customer-totals"));
        db.execute("DROP TABLE IF EXISTS window_totals, customer_totals");
        for (String statement :
                SqlScript.load("sql/postgres-tables.sql", Map.of()).statements()) {
            if (!statement.startsWith("GRANT")) {
                db.execute(statement);
            }
        }
    }

    /** Every order in exactly one window row, each customer and window once, nothing left prepared. */
    @Test
    void windowedTotals() throws Exception {
        run("sql/windowed-totals.sql");
        assertThat(db.count("SELECT sum(order_count) FROM window_totals"))
                .as("orders")
                .isEqualTo(20_000);
        assertThat(db.count("SELECT count(*) FROM window_totals"))
                .as("rows, one per customer and window")
                .isEqualTo(db.count("SELECT count(DISTINCT (customer, window_start)) FROM window_totals"))
                .isGreaterThan(10);
        assertThat(db.count("SELECT count(*) FROM window_totals WHERE window_end <> window_start + interval '10 s' "
                        + "OR extract(epoch FROM window_start)::bigint % 10 <> 0"))
                .as("10 s tumbling windows")
                .isZero();
        assertThat(db.preparedGids(TransactionId.sinkPrefix("sql-window-totals")))
                .as("prepared left")
                .isEmpty();
    }

    /** The latest revision of every order counted once, under its latest customer; nothing left prepared. */
    @Test
    void customerTotalsUpsertThroughRetractions() throws Exception {
        run("sql/customer-totals.sql");
        assertThat(db.count("SELECT sum(order_count) FROM customer_totals"))
                .as("orders")
                .isEqualTo(5_000);
        assertThat(db.count("SELECT count(*) FROM customer_totals WHERE order_count < 1"))
                .as("empty totals")
                .isZero();
        assertThat(db.count("SELECT count(*) FROM customer_totals"))
                .as("customers")
                .isBetween(90L, 100L);
        assertThat(db.preparedGids(TransactionId.sinkPrefix("sql-customer-totals")))
                .as("prepared left")
                .isEmpty();
    }

    private static void run(String script) throws Exception {
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        Map<String, String> values = Map.of("url", db.jdbcUrl(), "username", db.user(), "password", db.password());
        TableResult insert = null;
        for (String statement : SqlScript.load(script, values).statements()) {
            Optional<Map.Entry<String, String>> set = SqlScript.set(statement);
            if (set.isPresent()) {
                tEnv.getConfig()
                        .getConfiguration()
                        .setString(set.get().getKey(), set.get().getValue());
                continue;
            }
            TableResult result = tEnv.executeSql(statement);
            if (statement.toUpperCase(Locale.ROOT).startsWith("INSERT")) {
                insert = result;
            }
        }
        assertThat(insert).as("the INSERT of " + script).isNotNull();
        insert.await();
    }
}
