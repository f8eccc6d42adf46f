/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code upsert(key)} keys the sink's input by the key's values itself: at parallelism 2, with both
 * source subtasks producing every key, each key is written by one writer subtask only, with no
 * {@code keyBy} of the job's (and still with one, which has become redundant). A trigger records
 * which session wrote each row: a writer's {@code application_name} names its subtask. Each job
 * goes through one failure and ends with every key once, in its value, and nothing prepared.
 */
class UpsertDistributionITCase extends ExactlyOnceTestBase {

    /** Odd: each source subtask (a contiguous range of ids) produces every key. */
    private static final int KEYS = 49;

    private static final long N = 2_000;

    @Test
    void eachKeyIsWrittenByOneSubtaskWithoutAKeyByOfTheJob() throws Exception {
        run(false);
    }

    @Test
    void aKeyByOfTheJobStillWorks() throws Exception {
        run(true);
    }

    private void run(boolean ownKeyBy) throws Exception {
        String kv = table + "_kv";
        db.execute("CREATE TABLE " + kv + " (k bigint PRIMARY KEY, label text NOT NULL); "
                + "CREATE TABLE " + kv + "_w (k bigint NOT NULL, writer text NOT NULL); "
                + "CREATE FUNCTION " + kv + "_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                + "INSERT INTO " + kv + "_w VALUES (NEW.k, current_setting('application_name')); RETURN NEW; END $$; "
                + "CREATE TRIGGER " + kv + "_t AFTER INSERT OR UPDATE ON " + kv + " FOR EACH ROW EXECUTE FUNCTION "
                + kv + "_log()");
        StreamExecutionEnvironment env = env(2, 200);
        DataStream<Long> keys =
                ids(env, N, 4_000).map(new FailOnce(sinkId, N / 4)).map(id -> id % KEYS);
        if (ownKeyBy) {
            keys = keys.keyBy(k -> k);
        }
        keys.sinkTo(PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .table(kv)
                .columns("k", "label")
                .rows(k -> new Object[] {k, "key-" + k})
                .upsert("k")
                .batchSize(50)
                .build());
        env.execute();

        assertThat(FailOnce.failed(sinkId)).as("the injected failure happened").isTrue();
        assertThat(preparedLeft()).as("prepared transactions left").isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + kv)).as("rows").isEqualTo(KEYS);
        assertThat(db.count(
                        "SELECT count(DISTINCT k) FROM " + kv + " WHERE k >= 0 AND k < ? AND label = 'key-' || k",
                        KEYS))
                .as("keys in their value")
                .isEqualTo(KEYS);
        assertThat(db.count("SELECT count(*) FROM " + kv + "_w")).as("writes").isGreaterThanOrEqualTo(KEYS);
        assertThat(db.count("SELECT count(DISTINCT writer) FROM " + kv + "_w WHERE writer LIKE 'eosink/%'"))
                .as("writer subtasks")
                .isEqualTo(2);
        assertThat(db.count("SELECT count(*) FROM (SELECT k FROM " + kv
                        + "_w GROUP BY k HAVING count(DISTINCT writer) > 1) s"))
                .as("keys written by more than one subtask")
                .isZero();
    }

    /** Passes ids through; fails its task once per key, in the first instance that has seen more than {@code after}. */
    private static final class FailOnce extends RichMapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private static final Set<String> FAILED = ConcurrentHashMap.newKeySet();

        private final String key;
        private final long after;
        private transient long seen;

        FailOnce(String key, long after) {
            this.key = key;
            this.after = after;
        }

        @Override
        public Long map(Long id) {
            if (++seen > after && FAILED.add(key)) {
                throw new IllegalStateException("injected failure (" + key + ")");
            }
            return id;
        }

        static boolean failed(String key) {
            return FAILED.contains(key);
        }
    }
}
