package dev.eosink.sql;

import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
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
        return tEnv;
    }

    /** {@code name (id BIGINT)}: ids 0..n-1, replayable from checkpoints, at about {@code perSecond} rows a second. */
    static void ids(StreamTableEnvironment tEnv, String name, long n, int perSecond) {
        tEnv.executeSql("CREATE TEMPORARY TABLE " + name + " (id BIGINT NOT NULL) WITH ('connector' = 'datagen', "
                + "'rows-per-second' = '" + perSecond + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', "
                + "'fields.id.end' = '" + (n - 1) + "')");
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
        return options.entrySet().stream().map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                .collect(Collectors.joining(", ", "WITH (", ")"));
    }

    /** A REST view of the MiniCluster, such as {@code /jobs/<id>/plan}. */
    static String rest(MiniCluster cluster, String path) throws Exception {
        URI base = cluster.getRestAddress().get();
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30)).build(),
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
