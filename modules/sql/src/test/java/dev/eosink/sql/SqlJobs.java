/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.RetainedCheckpoints;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the connector's integration tests share: a table environment over the test's MiniCluster that
 * checkpoints every 200 ms and restarts fast, a replayable bounded source of ids, a failure injected
 * once, and the WITH clause of a table.
 */
final class SqlJobs {

    /** The checkpoint interval of every job. */
    static final long CHECKPOINT_MILLIS = 200;

    private SqlJobs() {}

    /** A table environment of {@code parallelism} that checkpoints every 200 ms and restarts after 100 ms. */
    static StreamTableEnvironment tableEnvironment(int parallelism) {
        return tableEnvironment(TestJobs.env(parallelism, CHECKPOINT_MILLIS));
    }

    /** A table environment over {@code env} (of {@code TestJobs.env}), with {@code fail_once}. */
    static StreamTableEnvironment tableEnvironment(StreamExecutionEnvironment env) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.createTemporarySystemFunction("fail_once", FailOnce.class);
        ENVIRONMENTS.put(tEnv, env);
        return tEnv;
    }

    /** The environment of each table environment of {@link #tableEnvironment}, for {@link #ids}. */
    private static final Map<StreamTableEnvironment, StreamExecutionEnvironment> ENVIRONMENTS =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /**
     * {@code name (id BIGINT NOT NULL)}: ids 0..n-1, replayable from checkpoints, at about {@code perSecond}
     * rows a second, from a FLIP-27 source ({@link TestJobs#ids}). Not SQL's 'datagen' connector: that is a
     * legacy source function, whose thread takes a value from its state before the chained operators see
     * it; when one of them throws ({@code fail_once}), a checkpoint the task runs before it fails records
     * the state without that value, and the restored job never emits it (seen once under load: one id
     * missing, the one {@code fail_once} threw on).
     */
    /**
     * No restarts, and checkpoints retained under {@code checkpoints} when the job fails or is cancelled:
     * for a job that fails for good and is then resumed from its last checkpoint.
     */
    static Configuration noRestartsRetaining(Path checkpoints) {
        Configuration conf = TestJobs.noRestarts();
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        return conf;
    }

    /** Restore from the newest checkpoint retained under {@code checkpoints} (none yet: a fresh start), without restarts. */
    static Configuration resumeFrom(Path checkpoints) throws java.io.IOException {
        return RetainedCheckpoints.newest(checkpoints)
                .map(checkpoint -> TestJobs.restoreFrom(checkpoint.toUri().toString()))
                .orElseGet(TestJobs::noRestarts);
    }

    static void ids(StreamTableEnvironment tEnv, String name, long n, int perSecond) {
        StreamExecutionEnvironment env = ENVIRONMENTS.get(tEnv);
        if (env == null) {
            throw new IllegalStateException("ids needs a table environment of SqlJobs.tableEnvironment");
        }
        tEnv.createTemporaryView(
                name,
                tEnv.fromDataStream(
                                TestJobs.ids(env, n, perSecond),
                                Schema.newBuilder()
                                        .column("f0", DataTypes.BIGINT().notNull())
                                        .build())
                        .as("id"));
    }

    /**
     * A GROUP BY with retractions at parallelism 2, through a failure after 1,000 rows ({@code
     * fail_once} under {@code failKey}): ids 0..n-1 by {@code id % keys} into {@code per_key (k, cnt,
     * total)}, each key's count and sum updated as rows arrive, and into {@code per_count (cnt, keys)},
     * how many keys have each count, whose row is deleted when its last key moves on. Returns when the
     * job has ended.
     */
    static void aggregateWithRetractions(
            String failKey, long n, long keys, Map<String, String> perKey, Map<String, String> perCount)
            throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment(2);
        ids(tEnv, "ids", n, 3_000);
        tEnv.executeSql("CREATE TEMPORARY VIEW events AS SELECT MOD(fail_once(id, '" + failKey + "', 1000), " + keys
                + ") AS k, id FROM ids");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE per_key (k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
                        + with(perKey));
        tEnv.executeSql("CREATE TEMPORARY TABLE per_count (cnt BIGINT, `keys` BIGINT, PRIMARY KEY (cnt) NOT ENFORCED) "
                + with(perCount));
        StatementSet statements = tEnv.createStatementSet();
        statements.addInsertSql("INSERT INTO per_key SELECT k, COUNT(*), SUM(id) FROM events GROUP BY k");
        statements.addInsertSql("INSERT INTO per_count SELECT cnt, COUNT(*) FROM "
                + "(SELECT k, COUNT(*) AS cnt FROM events GROUP BY k) GROUP BY cnt");
        statements.execute().await();
    }

    /** What {@link #aggregateWithRetractions} leaves in {@code per_key}: key to [count, sum]. */
    static Map<Long, List<Long>> expectedPerKey(long n, long keys) {
        Map<Long, List<Long>> perKey = new TreeMap<>();
        for (long id = 0; id < n; id++) {
            perKey.merge(id % keys, List.of(1L, id), (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1)));
        }
        return perKey;
    }

    /** What {@link #aggregateWithRetractions} leaves in {@code per_count}: count to [keys], from {@code perKey}. */
    static Map<Long, List<Long>> expectedPerCount(Map<Long, List<Long>> perKey) {
        Map<Long, List<Long>> perCount = new TreeMap<>();
        perKey.values().forEach(v -> perCount.merge(v.get(0), List.of(1L), (a, b) -> List.of(a.get(0) + 1)));
        return perCount;
    }

    /** The options of a table on {@code db}, as its administrator: connector, URL, credentials, table, sink id. */
    static Map<String, String> postgresOptions(PostgresFixture db, String table, String sinkId) {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("connector", PostgresDynamicTableSinkFactory.IDENTIFIER);
        options.put("url", db.jdbcUrl());
        options.put("username", db.user());
        if (!db.password().isEmpty()) {
            options.put("password", db.password());
        }
        options.put("table-name", "public." + table);
        options.put("sink.id", sinkId);
        return options;
    }

    /** {@code WITH ('k' = 'v', ...)}. */
    static String with(Map<String, String> options) {
        return options.entrySet().stream()
                .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                .collect(Collectors.joining(", ", "WITH (", ")"));
    }

    /** A REST view of the MiniCluster, such as {@code /jobs/<id>/plan}. */
    static String rest(MiniCluster cluster, String path) throws Exception {
        URI base = cluster.getRestAddress().get();
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(base.resolve(path))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("HTTP status of %s", path).isEqualTo(200);
        return response.body();
    }

    /**
     * {@code fail_once(id, 'key', n)}: passes {@code id} through, and fails its task once per key, in the
     * first instance that has seen more than {@code n} rows: a failure in the middle of the input, which
     * the job recovers from by restarting from its last checkpoint.
     */
    public static final class FailOnce extends ScalarFunction {
        private static final long serialVersionUID = 1L;
        private static final Set<String> FAILED = ConcurrentHashMap.newKeySet();

        private long seen;

        public long eval(long id, String key, long after) {
            failOnce(++seen, key, after);
            return id;
        }

        /** Fails once per key, when the caller has seen more than {@code after} rows. */
        static void failOnce(long seen, String key, long after) {
            if (seen > after && FAILED.add(key)) {
                throw new IllegalStateException("injected failure after " + after + " rows (" + key + ")");
            }
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }

        /** {@code fail_once} in a DataStream: passes each record through, and fails once per key after {@code after}. */
        static <T> MapFunction<T, T> map(String key, long after) {
            return new MapFunction<>() {
                private static final long serialVersionUID = 1L;
                private long seen;

                @Override
                public T map(T record) {
                    failOnce(++seen, key, after);
                    return record;
                }
            };
        }

        /** Whether the failure of {@code key} happened. */
        static boolean failed(String key) {
            return FAILED.contains(key);
        }
    }
}
