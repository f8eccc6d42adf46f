/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.HeldPastTheBarrier;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;
import dev.eosink.testing.records.UpsertRecords;
import dev.eosink.xa.XaSink;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static dev.eosink.testing.records.UpsertRecords.replay;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code eosink-admin carried} against writes an upsert job really carried past a barrier into a savepoint, on
 * PostgreSQL (the PostgreSQL sink) and on MariaDB (the XA sink): checkpoint 2 declined once both writers prepared
 * it, an epoch of hot keys whose writes must follow its commit, then stop-with-savepoint ({@link
 * HeldPastTheBarrier}), so both writers carry writes into the savepoint and notice them in the marker table. The
 * tool lists the notices, shows the savepoint's writes and that they are the noticed ones, changes nothing in a dry
 * run, writes them (the table then equals the replay of the records before the savepoint, exact), and writes
 * nothing the second time; then a job restored from the savepoint without the sink's state (a new uid) starts, as
 * no notice is left, and the table ends as the replay of every record: no key missing, none extra, no value
 * stale, nothing prepared.
 *
 * <p>Each case has its own sink id and table, and reads the savepoint only once its job is gone; nothing depends on
 * another case or on the order of the cases. The tool is called through its main entry, in this JVM.
 */
class AdminCarriedITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    /** Records in all: three epochs before the savepoint, one after. */
    private static final long N = 4 * HeldPastTheBarrier.EPOCH;

    /** 300 hot keys, each written about every 300 records: an epoch rewrites every one. */
    static long hotKey(long i) {
        return (i * 7919) % 300;
    }

    /** The note column: NULL for every fifth record. */
    static String note(long i) {
        return i % 5 == 0 ? null : "n" + i;
    }

    /** One database, as the test and the tool see it. */
    private interface Db {
        String url();

        String user();

        String password();

        void createKv(String table) throws SQLException;

        ExactlyOnceSink<Long> sink(String sinkId, String table);

        long prepared(String sinkId) throws SQLException;

        default Connection connect() throws SQLException {
            return DriverManager.getConnection(url(), user(), password());
        }

        default Map<String, String> env() {
            return Map.of(Credentials.PASSWORD_ENV, password() == null ? "" : password());
        }

        default String[] args(String... command) {
            List<String> all = new ArrayList<>(List.of(command));
            all.addAll(List.of("--url", url(), "--user", user()));
            return all.toArray(String[]::new);
        }
    }

    private static final class Postgres implements Db {
        private final PostgresFixture pg = PostgresFixture.get();

        @Override
        public String url() {
            return pg.jdbcUrl();
        }

        @Override
        public String user() {
            return pg.user();
        }

        @Override
        public String password() {
            return pg.password();
        }

        @Override
        public void createKv(String table) throws SQLException {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                s.execute("CREATE TABLE " + table + " (k bigint PRIMARY KEY, v bigint NOT NULL, note text)");
            }
        }

        @Override
        public ExactlyOnceSink<Long> sink(String sinkId, String table) {
            return PostgresSink.<Long>builder()
                    .jdbcUrl(url())
                    .username(user())
                    .password(password())
                    .sinkId(sinkId)
                    .table(table)
                    .columns("k", "v", "note")
                    .rows(i -> new Object[] {hotKey(i), i, note(i)})
                    .upsert("k")
                    .changelog(UpsertRecords::hotKind)
                    .batchSize(500)
                    .claimWait(Duration.ofSeconds(20))
                    .commitRetryBackoff(Duration.ofMillis(50))
                    .build();
        }

        @Override
        public long prepared(String sinkId) throws SQLException {
            try (Connection c = connect();
                    PreparedStatement s =
                            c.prepareStatement("SELECT count(*) FROM pg_prepared_xacts WHERE starts_with(gid, ?)")) {
                s.setString(1, "eos1/" + sinkId + "/");
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }

    private static final class MariaDb implements Db {
        private final MariaDbFixture maria = MariaDbFixture.get();

        @Override
        public String url() {
            return maria.jdbcUrl();
        }

        @Override
        public String user() {
            return MariaDbFixture.SINK_USER;
        }

        @Override
        public String password() {
            return MariaDbFixture.SINK_PASSWORD;
        }

        @Override
        public void createKv(String table) {
            maria.execute("DROP TABLE IF EXISTS " + table);
            maria.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL, v BIGINT NOT NULL, note VARCHAR(40), "
                    + "PRIMARY KEY (k)) ENGINE=InnoDB");
            maria.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '"
                    + MariaDbFixture.SINK_USER + "'@'%'");
        }

        @Override
        public ExactlyOnceSink<Long> sink(String sinkId, String table) {
            return XaSink.<Long>builder()
                    .jdbcUrl(url())
                    .username(user())
                    .password(password())
                    .sinkId(sinkId)
                    .table(table)
                    .columns("k", "v", "note")
                    .rows(i -> new Object[] {hotKey(i), i, note(i)})
                    .upsert("k")
                    .changelog(UpsertRecords::hotKind)
                    .batchSize(50)
                    .lockTimeout(Duration.ofSeconds(5))
                    .claimWait(Duration.ofSeconds(20))
                    .commitRetryBackoff(Duration.ofMillis(50))
                    .build();
        }

        @Override
        public long prepared(String sinkId) {
            return maria.xaRecover().stream().filter(x -> x[2].equals(sinkId)).count();
        }
    }

    @Test
    void postgresCarriedWritesAreShownAndWrittenByHand(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        carriedWritesAreShownAndWrittenByHand(client, savepoints, new Postgres(), "admin-carried-pg");
    }

    @Test
    void mariaDbCarriedWritesAreShownAndWrittenByHand(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        carriedWritesAreShownAndWrittenByHand(client, savepoints, new MariaDb(), "admin-carried-xa");
    }

    private void carriedWritesAreShownAndWrittenByHand(ClusterClient<?> client, Path savepoints, Db db, String sinkId)
            throws Exception {
        String table = sinkId.replace('-', '_');
        db.createKv(table);
        reset(sinkId);
        try {
            HeldPastTheBarrier held = new HeldPastTheBarrier(sinkId);
            JobClient job = held.declineThenFeedAnEpoch(
                    client,
                    "admin: carried writes of " + sinkId,
                    env -> job(env, db, sinkId, table, held.decliner(), "sink"));
            String savepoint;
            try {
                savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                TestJobs.cancelUnlessDone(job);
            }
            // The job is gone: its savepoint is complete, and nothing renames files under it any more.
            assertThat(TestJobs.checkpointIdOf(savepoint))
                    .as("the savepoint's checkpoint")
                    .isEqualTo(3);
            assertThat(db.prepared(sinkId)).as("prepared after the stop").isZero();
            Map<Integer, Long> noticed = notices(db, sinkId);
            assertThat(noticed).as("notices of the carried writes, by subtask").containsOnlyKeys(0, 1);
            Map<Long, Long> atStop = kvRows(db, table);
            assertThat(atStop)
                    .as("the carried writes are in no table yet")
                    .isNotEqualTo(
                            replay(3 * HeldPastTheBarrier.EPOCH, AdminCarriedITCase::hotKey, UpsertRecords::hotKind));

            // resolve does not ignore them: nothing is prepared, and it says what the checkpoint carries.
            Run resolve = admin(db.env(), db.args("resolve", savepoint, "--sink-id", sinkId));
            assertThat(resolve.exit()).as("%s", resolve).isZero();
            assertThat(resolve.out())
                    .contains("nothing to do")
                    .contains(
                            "CARRIED: the writer state(s) of subtask(s) 0, 1 carry writes past the barrier of checkpoint 3 "
                                    + "(2 notice(s) visible now)")
                    .contains("eosink-admin carried " + savepoint + " --sink-id " + sinkId);

            Run list = admin(db.env(), db.args("carried", "--sink-id", sinkId));
            assertThat(list.exit()).as("%s", list).isZero();
            assertThat(list.out())
                    .contains("notices of carried writes of sink id " + sinkId + ": 2")
                    .containsPattern("\\n  0 +3 +" + noticed.get(0) + " ")
                    .containsPattern("\\n  1 +3 +" + noticed.get(1) + " ")
                    .contains("eosink-admin carried <checkpoint> --sink-id " + sinkId);

            Run show = admin(db.env(), db.args("carried", savepoint, "--sink-id", sinkId));
            assertThat(show.exit()).as("%s", show).isZero();
            for (int subtask = 0; subtask < 2; subtask++) {
                assertThat(show.out())
                        .contains("subtask " + subtask + ": writer state of checkpoint 3, run ")
                        .contains("carries " + noticed.get(subtask) + " write(s) (");
            }
            assertThat(show.out())
                    .contains("for columns (k, v, note), key (k)")
                    .containsPattern("\\n    upsert k=\\d+: v=\\d+, note=")
                    .contains("the snapshot's carried writes are the ones the notices announce: subtask(s) 0, 1")
                    .contains("to write them: eosink-admin carried " + savepoint);

            Run dryRun = admin(db.env(), db.args("carried", savepoint, "--sink-id", sinkId, "--table", table));
            assertThat(dryRun.exit()).as("%s", dryRun).isZero();
            assertThat(dryRun.out())
                    .contains("ownership guard: free")
                    .contains("dry run: would write ")
                    .contains("and delete their 2 notice(s), in one transaction");
            assertThat(kvRows(db, table)).as("a dry run changes nothing").isEqualTo(atStop);
            assertThat(notices(db, sinkId)).isEqualTo(noticed);

            Run apply =
                    admin(db.env(), db.args("carried", savepoint, "--sink-id", sinkId, "--table", table, "--apply"));
            assertThat(apply.exit()).as("%s", apply).isZero();
            assertThat(apply.out())
                    .contains("wrote ")
                    .contains("deleted 2 notice(s) of subtask(s) 0, 1")
                    .contains("notices of carried writes of sink id " + sinkId + " left: 0");
            assertThat(notices(db, sinkId)).isEmpty();
            Map<Long, Long> beforeTheSavepoint =
                    replay(3 * HeldPastTheBarrier.EPOCH, AdminCarriedITCase::hotKey, UpsertRecords::hotKind);
            assertKv(db, table, beforeTheSavepoint);

            Run again =
                    admin(db.env(), db.args("carried", savepoint, "--sink-id", sinkId, "--table", table, "--apply"));
            assertThat(again.exit()).as("%s", again).isZero();
            assertThat(again.out())
                    .contains("no notice of carried writes of sink id " + sinkId + ": nothing to write")
                    .doesNotContain("wrote ");
            assertKv(db, table, beforeTheSavepoint);

            // Restored without the sink's state: no notice left, so it starts, and replays the rest.
            IdValve.openFully(sinkId);
            Configuration unmatched = TestJobs.restoreFrom(savepoint);
            unmatched.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
            StreamExecutionEnvironment renamed = TestJobs.env(2, 200, unmatched);
            job(
                    renamed,
                    db,
                    sinkId,
                    table,
                    new CheckpointDecliner(sinkId, 0, Integer.MAX_VALUE, CheckpointDecliner.How.ASYNC_DECLINE),
                    "sink-renamed");
            renamed.execute("admin: restored without the sink's state, " + sinkId);
            assertKv(db, table, replay(N, AdminCarriedITCase::hotKey, UpsertRecords::hotKind));
            assertThat(db.prepared(sinkId))
                    .as("prepared transactions of the sink left")
                    .isZero();
            assertThat(notices(db, sinkId)).isEmpty();
        } finally {
            reset(sinkId);
        }
    }

    /** What one run of the tool printed, and its exit code. */
    private record Run(int exit, String out, String err) {
        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Run other && exit == other.exit && out.equals(other.out) && err.equals(other.err);
        }

        @Override
        public int hashCode() {
            return Objects.hash(exit, out, err);
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private static Run admin(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Admin.run(args, o, e, env);
        }
        Run run = new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        System.out.println("$ eosink-admin " + String.join(" ", args) + "\n" + run);
        return run;
    }

    private static void reset(String sinkId) {
        CheckpointDecliner.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        IdValve.reset(sinkId);
    }

    /** Valved ids through a decliner (in the source's task) into the traced upsert sink, each with a uid. */
    private static void job(
            StreamExecutionEnvironment env,
            Db db,
            String sinkId,
            String table,
            CheckpointDecliner decliner,
            String sinkUid) {
        IdValve.ids(env, sinkId, N)
                .map(decliner)
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(ProtocolTrace.wrap(db.sink(sinkId, table)))
                .uid(sinkUid);
    }

    /** The sink's notices of carried writes in the marker table: subtask -> writes (one notice each here). */
    private static Map<Integer, Long> notices(Db db, String sinkId) throws SQLException {
        Map<Integer, Long> notices = new TreeMap<>();
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT subtask, row_count FROM eosink_markers WHERE sink_id = ? ORDER BY subtask")) {
            s.setString(1, CarriedNotices.sinkIdOf(sinkId));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    assertThat(notices.put(rs.getInt(1), rs.getLong(2)))
                            .as("one notice of subtask %d", rs.getInt(1))
                            .isNull();
                }
            }
        }
        return notices;
    }

    private static Map<Long, Long> kvRows(Db db, String table) throws SQLException {
        Map<Long, Long> rows = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v FROM " + table)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return rows;
    }

    /** The table is exactly {@code expected}: every key's row its last record's (value and note), no other row. */
    private static void assertKv(Db db, String table, Map<Long, Long> expected) throws SQLException {
        Map<Long, Long> actual = new HashMap<>();
        List<String> wrongNotes = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v, note FROM " + table)) {
            while (rs.next()) {
                long k = rs.getLong(1);
                long v = rs.getLong(2);
                assertThat(actual.put(k, v)).as("key %d twice", k).isNull();
                if (!Objects.equals(rs.getString(3), note(v))) {
                    wrongNotes.add(k + ": " + rs.getString(3));
                }
            }
        }
        Map<Long, Long> missing = new HashMap<>(expected);
        missing.keySet().removeAll(actual.keySet());
        Map<Long, Long> extra = new HashMap<>(actual);
        extra.keySet().removeAll(expected.keySet());
        Map<Long, Long> stale = new TreeMap<>();
        expected.forEach((k, v) -> {
            if (actual.containsKey(k) && !actual.get(k).equals(v)) {
                stale.put(k, actual.get(k));
            }
        });
        assertThat(missing).as("keys missing").isEmpty();
        assertThat(extra).as("keys that should not be there").isEmpty();
        assertThat(stale).as("keys at another value than their last record's").isEmpty();
        assertThat(wrongNotes).as("notes").isEmpty();
        assertThat(actual).hasSize(expected.size());
    }
}
