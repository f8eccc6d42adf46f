/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongBinaryOperator;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Queries whose result a filter after an aggregate decides, for both connectors' tests: a key enters
 * the result, and when its new value fails the filter it leaves it, by an UPDATE_BEFORE with no
 * UPDATE_AFTER (the planner sends UPDATE_BEFORE into an upsert sink for this, EXPLAIN shows it). The
 * input comes from one source subtask, so that each key's records keep their order and its history
 * (entered, left, entered again) is the one {@link #replay} computes; the aggregate and the sink run
 * at parallelism 2, through a failure after 800 records. The expected result is computed here from
 * the input, not read from any sink.
 */
final class FilteredAggregates {

    /** Keys of the inputs: four kinds of history (by key % 4), ten keys of each. */
    static final int KEYS = 40;
    /** Records of each key. */
    static final int ROUNDS = 50;

    static final long RECORDS = (long) KEYS * ROUNDS;
    /** The HAVING bound: an account is in the result while its sum is below it. */
    static final long LIMIT = 100;

    private static final TypeInformation<Row> PAYMENT =
            Types.ROW_NAMED(new String[] {"account", "amount"}, Types.LONG, Types.LONG);
    private static final TypeInformation<Row> READING =
            Types.ROW_NAMED(new String[] {"k", "v"}, Types.LONG, Types.LONG);
    private static final Pattern CHANGELOG_MODE = Pattern.compile("changelogMode=\\[([^\\]]*)\\]");

    private FilteredAggregates() {}

    /**
     * Payment {@code i}: account {@code i % 40}, its round {@code r = i / 40}, and an amount by the
     * account's kind: 1 each round (its sum stays below {@link #LIMIT}); 3 (its sum passes it at round
     * 33 and stays above); +60 and -55 by turns (in and out of the result, out at the end); 1, but
     * +200 at round 10 and -200 at round 20 (out, then in again to the end).
     */
    static Row payment(long i) {
        long account = i % KEYS;
        long round = i / KEYS;
        long amount = switch ((int) (account % 4)) {
            case 0 -> 1;
            case 1 -> 3;
            case 2 -> round % 2 == 0 ? 60 : -55;
            default -> round == 10 ? 200 : round == 20 ? -200 : 1;
        };
        return Row.of(account, amount);
    }

    /**
     * Reading {@code i}: key {@code i % 40}, its round {@code r = i / 40}, and a value {@code r + 1} whose
     * sign follows the key's kind: always positive; negative from round 30 on; negative every other
     * round (positive at the end); negative in rounds 10 to 19 only.
     */
    static Row reading(long i) {
        long k = i % KEYS;
        long round = i / KEYS;
        boolean negative = switch ((int) (k % 4)) {
            case 0 -> false;
            case 1 -> round >= 30;
            case 2 -> round % 2 == 0;
            default -> round >= 10 && round < 20;
        };
        return Row.of(k, negative ? -(round + 1) : round + 1);
    }

    /**
     * {@code SELECT account, SUM(amount) FROM payments GROUP BY account HAVING SUM(amount) < 100} into
     * {@code filtered_sink (account BIGINT, total BIGINT, PRIMARY KEY (account))} with {@code options},
     * through a failure ({@code fail_once} under {@code failKey}); returns when the job has ended. Fails
     * unless the plan sends UPDATE_BEFORE into the sink.
     */
    static void having(String failKey, Map<String, String> options) throws Exception {
        run(
                failKey,
                options,
                FilteredAggregates::payment,
                PAYMENT,
                "payments",
                "account BIGINT, total BIGINT, " + "PRIMARY KEY (account) NOT ENFORCED",
                "SELECT account, SUM(amount) FROM payments GROUP BY account " + "HAVING SUM(amount) < " + LIMIT);
    }

    /** What {@link #having} leaves in the table, replayed from its input. */
    static Replayed havingResult() {
        return replay(FilteredAggregates::payment, Long::sum, total -> total < LIMIT);
    }

    /**
     * {@code SELECT k, v FROM (SELECT k, LAST_VALUE(v) AS v FROM readings GROUP BY k) WHERE v > 0} into
     * {@code filtered_sink (k BIGINT, v BIGINT, PRIMARY KEY (k))} with {@code options}, as {@link
     * #having} runs it: a filter on an updating input.
     */
    static void positiveLastValue(String failKey, Map<String, String> options) throws Exception {
        run(
                failKey,
                options,
                FilteredAggregates::reading,
                READING,
                "readings",
                "k BIGINT, v BIGINT, " + "PRIMARY KEY (k) NOT ENFORCED",
                "SELECT k, v FROM (SELECT k, LAST_VALUE(v) AS v FROM readings " + "GROUP BY k) WHERE v > 0");
    }

    /** What {@link #positiveLastValue} leaves in the table, replayed from its input. */
    static Replayed positiveLastValueResult() {
        return replay(FilteredAggregates::reading, (last, v) -> v, v -> v > 0);
    }

    private static void run(
            String failKey,
            Map<String, String> options,
            GeneratorFunction<Long, Row> records,
            TypeInformation<Row> type,
            String view,
            String sinkColumns,
            String query)
            throws Exception {
        StreamExecutionEnvironment env = TestJobs.env(2, SqlJobs.CHECKPOINT_MILLIS);
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(env);
        DataStream<Row> input = env.fromSource(
                        new DataGeneratorSource<>(records, RECORDS, RateLimiterStrategy.perSecond(2_000), type),
                        WatermarkStrategy.noWatermarks(),
                        view)
                .setParallelism(1) // one subtask, so that each key's records keep their order
                .map(SqlJobs.FailOnce.<Row>map(failKey, 800))
                .returns(type)
                .setParallelism(1);
        tEnv.createTemporaryView(view, tEnv.fromDataStream(input));
        tEnv.executeSql("CREATE TEMPORARY TABLE filtered_sink (" + sinkColumns + ") " + SqlJobs.with(options));
        String insert = "INSERT INTO filtered_sink " + query;
        assertThat(sinkInputChangelogMode(tEnv.explainSql(insert, ExplainDetail.CHANGELOG_MODE)))
                .as("the changes the planner sends into the sink")
                .contains("UB");
        tEnv.executeSql(insert).await();
    }

    /** The changelog mode of the node that feeds the sink, in a plan explained with CHANGELOG_MODE. */
    private static List<String> sinkInputChangelogMode(String plan) {
        String[] lines = plan.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].startsWith("Sink(table=[default_catalog.default_database.filtered_sink]")
                    && lines[i].contains("changelogMode=")) {
                Matcher mode = CHANGELOG_MODE.matcher(lines[i + 1]);
                assertThat(mode.find())
                        .as("the changelog mode of the sink's input in\n%s", plan)
                        .isTrue();
                return List.of(mode.group(1).split(","));
            }
        }
        throw new AssertionError("no sink with its changelog mode in the plan:\n" + plan);
    }

    /**
     * A key's value folded over its records in order ({@code fold} of the value so far and the record's),
     * in the result while {@code inResult}; the table at the end, and how many keys went each way.
     */
    private static Replayed replay(LongFunction<Row> records, LongBinaryOperator fold, LongPredicate inResult) {
        Map<Long, Long> value = new HashMap<>();
        Set<Long> in = new HashSet<>();
        Set<Long> everIn = new HashSet<>();
        Set<Long> left = new HashSet<>();
        for (long i = 0; i < RECORDS; i++) {
            Row r = records.apply(i);
            long key = (Long) r.getField(0);
            long x = (Long) r.getField(1);
            long v = value.containsKey(key) ? fold.applyAsLong(value.get(key), x) : x;
            value.put(key, v);
            if (inResult.test(v)) {
                in.add(key);
                everIn.add(key);
            } else if (in.remove(key)) {
                left.add(key); // an UPDATE_BEFORE without an UPDATE_AFTER
            }
        }
        Map<Long, List<Object>> result = new TreeMap<>();
        in.forEach(key -> result.put(key, List.of(value.get(key))));
        long stayed = in.stream().filter(key -> !left.contains(key)).count();
        long leftForGood = everIn.stream().filter(key -> !in.contains(key)).count();
        long cameBack = in.stream().filter(left::contains).count();
        return new Replayed(result, stayed, leftForGood, cameBack);
    }

    /**
     * The table a query leaves, as its final result: key -> [value]; and of its keys, how many are in
     * it and never left it, left it for good, or left it and came back.
     */
    static final class Replayed {
        final Map<Long, List<Object>> table;
        final long stayed;
        final long leftForGood;
        final long cameBack;

        Replayed(Map<Long, List<Object>> table, long stayed, long leftForGood, long cameBack) {
            this.table = table;
            this.stayed = stayed;
            this.leftForGood = leftForGood;
            this.cameBack = cameBack;
        }

        /** Each history happened to some keys: the test cannot pass without UPDATE_BEFOREs that delete. */
        void assertEveryHistory() {
            assertThat(stayed).as("keys that never left the result").isPositive();
            assertThat(leftForGood).as("keys that left the result for good").isPositive();
            assertThat(cameBack).as("keys that left the result and came back").isPositive();
        }
    }
}
