/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.apache.flink.table.api.Expressions.$;

/**
 * {@code ./demo --sql}: the windowed totals of {@code examples/sql/windowed-totals.sql}, run by a
 * {@link StreamTableEnvironment} as the script says, with two changes: the table {@code orders} is
 * the demo's replayable generator (its stream, with its event times and watermarks), not the
 * script's datagen; and the sink table is the demo's ({@code --table}, {@code --sink-id}), written by
 * {@link ChaosTableSinkFactory}, the same connector with {@link Chaos} around its sink. The script's
 * {@code SET}s yield to what the demo's environment already sets (its defaults and {@code -D} options).
 */
final class SqlDemo {

    /** The script, on the class path (examples/sql/ is a resource folder). */
    static final String SCRIPT = "sql/windowed-totals.sql";

    private static final Pattern CREATE_TABLE =
            Pattern.compile("CREATE\\s+(?:TEMPORARY\\s+)?TABLE\\s+(\\w+)", Pattern.CASE_INSENSITIVE);

    private SqlDemo() {}

    /** Runs the script's INSERT over {@code orders} into {@code target}, and returns its job once submitted. */
    static JobClient submit(StreamExecutionEnvironment env, DataStream<Order> orders, Jobs.Target target) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        Map<String, String> values = new HashMap<>();
        values.put("url", target.jdbcUrl);
        values.put("username", target.user == null ? "" : target.user);
        values.put("password", target.password == null ? "" : target.password);
        for (String statement : SqlScript.load(SCRIPT, values).statements()) {
            Optional<Map.Entry<String, String>> set = SqlScript.set(statement);
            Matcher create = CREATE_TABLE.matcher(statement);
            if (set.isPresent()) {
                ConfigOption<String> key =
                        ConfigOptions.key(set.get().getKey()).stringType().noDefaultValue();
                if (env.getConfiguration().getOptional(key).isEmpty()) {
                    tEnv.getConfig().set(key, set.get().getValue());
                }
            } else if (create.lookingAt() && create.group(1).equals("orders")) {
                tEnv.createTemporaryView("orders", orders(tEnv, orders));
            } else if (create.lookingAt()) {
                tEnv.executeSql(demoSink(statement, target));
            } else if (statement.toUpperCase(Locale.ROOT).startsWith("INSERT")) {
                TableResult result = tEnv.executeSql(statement);
                return result.getJobClient().orElseThrow(() -> new IllegalStateException("the INSERT started no job"));
            } else {
                tEnv.executeSql(statement);
            }
        }
        throw new IllegalStateException(SCRIPT + " has no INSERT");
    }

    /** The generator's orders as the script's table: order_id, customer, amount_cents, event_time (its rowtime). */
    private static Table orders(StreamTableEnvironment tEnv, DataStream<Order> orders) {
        Table table = tEnv.fromDataStream(
                orders,
                Schema.newBuilder()
                        .columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")
                        .watermark("rowtime", "SOURCE_WATERMARK()")
                        .build());
        return table.select(
                $("orderId").as("order_id"),
                $("customer"),
                $("amountCents").as("amount_cents"),
                $("rowtime").as("event_time"));
    }

    /** The script's sink table, into the demo's table under the demo's sink id, through the chaos connector. */
    private static String demoSink(String statement, Jobs.Target target) {
        String sink = SqlScript.withOption(statement, "connector", ChaosTableSinkFactory.IDENTIFIER);
        sink = SqlScript.withOption(sink, "table-name", target.table);
        sink = SqlScript.withOption(sink, "sink.id", target.sinkId);
        sink = SqlScript.withOption(sink, "username", target.user);
        return SqlScript.withOption(sink, "password", target.password);
    }
}
