/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.jdbc.JdbcSinkBuilderBase;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.testing.FirebirdFixture;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.RetainedCheckpoints;
import dev.eosink.xa.XaBranchNames;

import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.firebirdsql.gds.TransactionParameterBuffer;
import org.firebirdsql.jaybird.fb.constants.TpbItems;
import org.firebirdsql.jdbc.FirebirdConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.sql.XAConnection;
import javax.transaction.xa.XAException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * eosink-admin against a job that really died: the job ({@link FrozenJob}) runs in a JVM of its own,
 * into a real PostgreSQL (the PostgreSQL sink) and a real MariaDB (the XA sink), and is killed with
 * SIGKILL while a completed checkpoint's transaction is still prepared (promised) and a transaction of
 * a checkpoint that never completed is prepared too (not promised). The tool refuses while the job
 * lives; afterwards {@code resolve --apply} leaves exactly the records of the retained checkpoint: the
 * numbers 1..K, K read from the generator's state in that checkpoint, no duplicate, none missing,
 * nothing prepared. The tool is called through its main entry, in this JVM.
 *
 * <p>The tests run in any order: the PostgreSQL case, which the error cases and the jar need a
 * retained checkpoint of, runs once, for whichever test comes first ({@link #postgresCase()}).
 */
class AdminITCase {

    private static final String POSTGRES_SINK = "admin-pg";
    /**
     * How long the job in its own JVM may take for a step (its first checkpoints, a savepoint, stopping):
     * a JVM and a MiniCluster start slowly on busy cores (the first checkpoints took over 60 s once), and
     * only a stuck job takes this long.
     */
    private static final Duration JOB_STEP = Duration.ofMinutes(3);

    @TempDir
    static Path dir;

    /** The PostgreSQL case's retained checkpoint, once it ran; or how it failed. */
    private static Path postgresCheckpoint;

    private static Throwable postgresFailure;

    private static final List<Process> STARTED = new ArrayList<>();

    /** The Firebird server of {@link #firebird()}, started by the first test that needs it. */
    private static FirebirdFixture firebird;

    private static String firebirdUrl;

    @AfterAll
    static void killLeftovers() {
        STARTED.forEach(Process::destroyForcibly);
        if (firebird != null) {
            firebird.close();
        }
    }

    /** One database as the test sees it: where, as whom, and a few queries. */
    private record Target(String kind, String url, String user, String password) {

        /** DDL, as an administrator where the sink's user may not drop tables. */
        void ddl(String sql) throws SQLException {
            if (kind.equals("mariadb") || kind.equals("mysql")) {
                MariaDbFixture.get().execute(sql);
            } else if (kind.equals("firebird")) {
                try (Connection c = DriverManager.getConnection(
                                url, FirebirdFixture.ADMIN_USER, FirebirdFixture.ADMIN_PASSWORD);
                        Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            } else {
                execute(sql);
            }
        }

        /**
         * A new, empty {@code table (v BIGINT NOT NULL)} the sink's user may write. Firebird 3 knows no {@code DROP
         * TABLE IF EXISTS} (RECREATE TABLE is its form), nor grants a table to a user who did not create it.
         */
        void newTable(String table) throws SQLException {
            if (kind.equals("firebird")) {
                ddl("RECREATE TABLE " + table + " (v BIGINT NOT NULL)");
                ddl("GRANT SELECT, INSERT ON " + table + " TO USER " + user);
            } else {
                ddl("DROP TABLE IF EXISTS " + table);
                ddl("CREATE TABLE " + table + " (v BIGINT NOT NULL)");
            }
        }

        /**
         * As the sink's user. On Firebird its READ COMMITTED transactions ignore limbo: a reader that meets a row of
         * a branch prepared by a session that is gone (the killed job's) fails there, where other databases' READ
         * COMMITTED readers pass over it; the test reads what is committed, as there.
         */
        Connection connect() throws SQLException {
            Connection c = DriverManager.getConnection(url, user, password);
            if (kind.equals("firebird")) {
                FirebirdConnection firebird = c.unwrap(FirebirdConnection.class);
                TransactionParameterBuffer tpb =
                        firebird.getTransactionParameters(Connection.TRANSACTION_READ_COMMITTED);
                tpb.addArgument(TpbItems.isc_tpb_ignore_limbo);
                firebird.setTransactionParameters(Connection.TRANSACTION_READ_COMMITTED, tpb);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            return c;
        }

        void execute(String sql) throws SQLException {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }

        long count(String sql) throws SQLException {
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        long prepared(String sinkId) throws SQLException {
            if (kind.equals("postgres")) {
                return count("SELECT count(*) FROM pg_prepared_xacts WHERE starts_with(gid, 'eos1/" + sinkId + "/')");
            }
            if (kind.equals("xa-postgres")) {
                long n = 0;
                try (Connection c = connect();
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT gid FROM pg_prepared_xacts")) {
                    while (rs.next()) {
                        n += PgXaGids.parse(rs.getString(1))
                                        .flatMap(x -> XaBranchNames.parse(x, sinkId))
                                        .isPresent()
                                ? 1
                                : 0;
                    }
                }
                return n;
            }
            if (kind.equals("firebird")) {
                // The dialect's listing: Jaybird's recover also lists branches finished from another connection.
                Properties p = new Properties();
                p.setProperty("user", user);
                p.setProperty("password", password);
                XAConnection xa = JdbcDialects.forUrl(url)
                        .xa()
                        .driver(url, AdminITCase.class.getClassLoader())
                        .orElseThrow()
                        .create(url, p, "admin-test")
                        .getXAConnection();
                try {
                    Connection c = xa.getConnection();
                    return JdbcDialects.forUrl(url).xa().preparedBranches(xa.getXAResource(), c).stream()
                            .filter(x -> XaBranchNames.parse(x, sinkId).isPresent())
                            .count();
                } catch (XAException e) {
                    throw new SQLException("XA recover failed: " + e.errorCode, e);
                } finally {
                    xa.close();
                }
            }
            return MariaDbFixture.get().xaRecover().stream()
                    .filter(x -> x[2].equals(sinkId))
                    .count();
        }

        /** The count, lowest and highest checkpoint of the sink's marker rows. */
        long[] markers(String sinkId) throws SQLException {
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*), min(checkpoint_id), max(checkpoint_id) FROM "
                            + JdbcSinkBuilderBase.DEFAULT_MARKER_TABLE + " WHERE sink_id = '" + sinkId + "'")) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
            }
        }

        Map<String, String> env() {
            return Map.of(Credentials.PASSWORD_ENV, password == null ? "" : password);
        }

        String[] args(String... command) {
            List<String> all = new ArrayList<>(List.of(command));
            all.addAll(List.of("--url", url, "--user", user));
            return all.toArray(String[]::new);
        }
    }

    private static Target postgres() {
        PostgresFixture pg = PostgresFixture.get();
        return new Target("postgres", pg.jdbcUrl(), pg.user(), pg.password());
    }

    private static Target mariadb() {
        return new Target(
                "mariadb", MariaDbFixture.get().jdbcUrl(), MariaDbFixture.SINK_USER, MariaDbFixture.SINK_PASSWORD);
    }

    /** MariaDB by {@code jdbc:mysql:} URLs: the sink and the tool through MySQL Connector/J's XA data source. */
    private static Target mysqlDriver() {
        return new Target(
                "mysql",
                MariaDbFixture.get().jdbcUrl().replaceFirst("^jdbc:mariadb:", "jdbc:mysql:"),
                MariaDbFixture.SINK_USER,
                MariaDbFixture.SINK_PASSWORD);
    }

    /**
     * The XA sink on Firebird 3: a server of the class's own (Debian's firebird3.0-server), its database, and the
     * sink's least-privileged user, who may create the sink's tables.
     */
    private static synchronized Target firebird() throws SQLException {
        if (firebirdUrl == null) {
            firebird = FirebirdFixture.start();
            firebird.createDatabase("admin");
            String url = firebird.url("admin");
            try (Connection c = DriverManager.getConnection(
                            url, FirebirdFixture.ADMIN_USER, FirebirdFixture.ADMIN_PASSWORD);
                    Statement s = c.createStatement()) {
                s.execute("GRANT CREATE TABLE TO USER " + FirebirdFixture.SINK_USER);
            }
            firebirdUrl = url;
        }
        return new Target("firebird", firebirdUrl, FirebirdFixture.SINK_USER, FirebirdFixture.SINK_PASSWORD);
    }

    /** The XA sink on PostgreSQL: its branches are prepared transactions in pgjdbc's form of an Xid. */
    private static Target xaPostgres() {
        PostgresFixture pg = PostgresFixture.get();
        return new Target("xa-postgres", pg.jdbcUrl(), pg.user(), pg.password());
    }

    /** What one run of the tool printed, and its exit code. */
    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    static Run admin(Map<String, String> env, String... args) {
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

    @Test
    void postgresKilledJobIsResolvedToExactlyItsRetainedCheckpoint() throws Exception {
        Path checkpoint = postgresCase();
        // Whichever test ran the case, what it resolved is still exact.
        assertExactly(postgres(), table(POSTGRES_SINK), generated(checkpoint));
        assertThat(postgres().prepared(POSTGRES_SINK))
                .as("prepared transactions of the sink left")
                .isZero();
    }

    @Test
    void mariaDbKilledJobIsResolvedToExactlyItsRetainedCheckpoint() throws Exception {
        killedJobIsResolvedToExactlyItsRetainedCheckpoint(mariadb(), "admin-xa");
    }

    @Test
    void mariaDbThroughMySqlConnectorJKilledJobIsResolvedToExactlyItsRetainedCheckpoint() throws Exception {
        killedJobIsResolvedToExactlyItsRetainedCheckpoint(mysqlDriver(), "admin-xa-mysql");
    }

    @Test
    void xaOnPostgresKilledJobIsResolvedToExactlyItsRetainedCheckpoint() throws Exception {
        killedJobIsResolvedToExactlyItsRetainedCheckpoint(xaPostgres(), "admin-xa-pg");
    }

    /** Firebird: branches in limbo once the job's sessions are gone, listed without the ones finished since. */
    @Test
    void firebirdKilledJobIsResolvedToExactlyItsRetainedCheckpoint() throws Exception {
        killedJobIsResolvedToExactlyItsRetainedCheckpoint(firebird(), "admin-xa-fb");
    }

    /**
     * The PostgreSQL case, run once for the class by whichever test needs it first: its retained
     * checkpoint. A failure of the case fails every test that needs it, with its cause.
     */
    private static synchronized Path postgresCase() throws Exception {
        if (postgresFailure != null) {
            throw new AssertionError("the PostgreSQL case failed in an earlier test", postgresFailure);
        }
        if (postgresCheckpoint == null) {
            try {
                postgresCheckpoint = killedJobIsResolvedToExactlyItsRetainedCheckpoint(postgres(), POSTGRES_SINK);
            } catch (Exception | AssertionError e) {
                postgresFailure = e;
                throw e;
            }
        }
        return postgresCheckpoint;
    }

    private static String table(String sinkId) {
        return sinkId.replace('-', '_') + "_numbers";
    }

    private static Path killedJobIsResolvedToExactlyItsRetainedCheckpoint(Target db, String sinkId) throws Exception {
        String table = table(sinkId);
        db.newTable(table);
        Path checkpoints = Files.createDirectories(dir.resolve(sinkId + "-checkpoints"));
        Path control = Files.createDirectories(dir.resolve(sinkId + "-control"));

        Process job = start(db, sinkId, table, checkpoints, control);
        awaitCheckpoints(job, checkpoints, 3);
        // The savepoint, not a retained checkpoint: the running job deletes those as it completes newer ones.
        Path savepoint = savepoint(job, control);
        Run refused = admin(db.env(), db.args("resolve", savepoint.toString(), "--sink-id", sinkId, "--apply"));
        assertThat(refused.exit()).as("%s", refused).isEqualTo(AdminException.REFUSED);
        assertThat(refused.err())
                .contains("refused: a live job holds the ownership guard of sink id '" + sinkId + "'")
                .contains("Remedy: stop the job");

        Run inspectSavepoint = admin(Map.of(), "inspect", savepoint.toString(), "--sink-id", sinkId);
        assertThat(inspectSavepoint.exit()).as("%s", inspectSavepoint).isZero();
        assertThat(inspectSavepoint.out())
                .contains("sink id " + sinkId + ": 2 writer state(s), parallelism 2")
                .contains("committables: eos1/" + sinkId + "/0/");

        Files.createFile(control.resolve("freeze"));
        awaitSignals(job, control);
        job.destroyForcibly(); // SIGKILL: no cleanup, the kernel drops the connections
        assertThat(job.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Path checkpoint = latestCheckpoint(checkpoints);
        long k = generated(checkpoint);
        long preparedAtDeath = db.prepared(sinkId);
        assertThat(preparedAtDeath)
                .as("transactions left prepared by the killed job")
                .isGreaterThanOrEqualTo(2);

        Run list = admin(db.env(), db.args("list", "--sink-id", sinkId));
        assertThat(list.exit()).as("%s", list).isZero();
        assertThat(list.out()).contains("prepared transactions of sink id " + sinkId + ": " + preparedAtDeath);

        Run inspect = admin(Map.of(), "inspect", checkpoint.toString(), "--sink-id", sinkId);
        assertThat(inspect.exit()).as("%s", inspect).isZero();
        assertThat(inspect.out())
                .contains("sink id " + sinkId + ": 2 writer state(s), parallelism 2")
                .contains("subtask 0: run ")
                .contains("subtask 1: run ")
                .contains("committables: eos1/" + sinkId + "/0/");

        long rowsBefore = db.count("SELECT count(*) FROM " + table);
        Run dryRun = resolveOnceTheGuardIsFree(db, checkpoint, sinkId);
        assertThat(dryRun.exit()).as("%s", dryRun).isZero();
        assertThat(dryRun.out())
                .as("the hard case: a completed checkpoint's transaction still prepared, and one of "
                        + "a checkpoint that never completed")
                .contains("COMMIT   eos1/" + sinkId + "/0/")
                .contains("ROLLBACK eos1/" + sinkId + "/1/")
                .contains("dry run: ")
                .contains("nothing changed")
                .as("of a transaction named after the checkpoint, only what the checkpoint tells")
                .contains("not promised by checkpoint ")
                .contains("NOTE: 1 transaction(s) above are named after checkpoint ")
                .doesNotContain("never completed");
        assertThat(db.prepared(sinkId)).as("a dry run changes nothing").isEqualTo(preparedAtDeath);
        assertThat(db.count("SELECT count(*) FROM " + table)).isEqualTo(rowsBefore);

        Run apply = admin(db.env(), db.args(resolve(checkpoint, sinkId, "--apply")));
        assertThat(apply.exit()).as("%s", apply).isZero();
        assertThat(apply.out())
                .contains("committed   eos1/" + sinkId + "/0/")
                .contains("rolled back eos1/" + sinkId + "/1/")
                .contains("still prepared")
                .contains(" 0 of sink id " + sinkId + " still prepared");
        assertExactly(db, table, k);
        assertThat(db.prepared(sinkId))
                .as("prepared transactions of the sink left")
                .isZero();

        List<Path> retained = RetainedCheckpoints.completed(checkpoints);
        Path older = retained.get(retained.size() - 2);
        Run olderRefused = admin(db.env(), db.args("resolve", older.toString(), "--sink-id", sinkId, "--apply"));
        assertThat(olderRefused.exit()).as("%s", olderRefused).isEqualTo(1);
        assertThat(olderRefused.err()).contains("is not the job's last").contains("Remedy: resolve with the newest");
        assertExactly(db, table, k);

        Run again = admin(db.env(), db.args(resolve(checkpoint, sinkId, "--apply")));
        assertThat(again.exit()).as("%s", again).isZero();
        assertThat(again.out())
                .contains("nothing to do")
                .contains("summary: 0 committed")
                .doesNotContain("LOST");
        assertExactly(db, table, k);
        return checkpoint;
    }

    /**
     * The server ends a killed client's sessions, and with them the guard's locks, once it notices
     * the closed connection: within moments, not at once. Until then the tool rightly refuses.
     */
    private static Run resolveOnceTheGuardIsFree(Target db, Path checkpoint, String sinkId, String... more)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            Run run = admin(db.env(), db.args(resolve(checkpoint, sinkId, more)));
            if (run.exit() != AdminException.REFUSED || System.nanoTime() > deadline) {
                return run;
            }
            Thread.sleep(200);
        }
    }

    /** {@code resolve <checkpoint> --sink-id <sinkId>} and {@code more}. */
    private static String[] resolve(Path checkpoint, String sinkId, String... more) {
        List<String> args = new ArrayList<>(List.of("resolve", checkpoint.toString(), "--sink-id", sinkId));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static void assertExactly(Target db, String table, long k) throws SQLException {
        assertThat(k).as("records the retained checkpoint covers").isPositive();
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(k);
        assertThat(db.count("SELECT count(DISTINCT v) FROM " + table))
                .as("distinct rows (no duplicates)")
                .isEqualTo(k);
        assertThat(db.count("SELECT min(v) FROM " + table)).isEqualTo(1);
        assertThat(db.count("SELECT max(v) FROM " + table))
                .as("none missing: 1..K")
                .isEqualTo(k);
    }

    /** How many numbers the generator had emitted at the checkpoint: the start of its remaining split. */
    private static long generated(Path checkpoint) throws Exception {
        List<byte[]> splits = CheckpointReader.listState(checkpoint.toString(), "SourceReaderState");
        assertThat(splits).as("the generator's split in the checkpoint").hasSize(1);
        SimpleVersionedSerializer<NumberSequenceSource.NumberSequenceSplit> serializer =
                new NumberSequenceSource(0, 1).getSplitSerializer();
        NumberSequenceSource.NumberSequenceSplit split =
                SimpleVersionedSerialization.readVersionAndDeSerialize(serializer, splits.get(0));
        return split.from();
    }

    @Test
    void errorsNameWhatIsWrongAndTheRemedy() throws Exception {
        Path checkpoint = postgresCase();
        Path empty = Files.createDirectories(dir.resolve("not-a-checkpoint"));
        Run wrongPath = admin(Map.of(), "inspect", empty.toString());
        assertThat(wrongPath.exit()).isEqualTo(1);
        assertThat(wrongPath.err())
                .contains("no checkpoint metadata at " + empty)
                .contains("Remedy");

        Run otherSink = admin(Map.of(), "inspect", checkpoint.toString(), "--sink-id", "orders");
        assertThat(otherSink.exit()).isEqualTo(1);
        assertThat(otherSink.err())
                .contains("holds no state of sink id 'orders'")
                .contains("sink id(s) " + POSTGRES_SINK)
                .contains("Remedy");

        Target pg = postgres();
        // The sink's markers as the database has them: their checkpoints depend on which epochs had records.
        long[] markers = pg.markers(POSTGRES_SINK);
        Run listAll = admin(pg.env(), pg.args("list"));
        assertThat(listAll.exit()).as("%s", listAll).isZero();
        assertThat(listAll.out())
                .contains("prepared transactions of every eosink sink: ")
                .containsPattern(
                        "\\n  " + POSTGRES_SINK + " +" + markers[0] + " +" + markers[1] + " +" + markers[2] + " ");

        Run noMarkers = admin(pg.env(), pg.args("list", "--marker-table", "no_such_markers"));
        assertThat(noMarkers.exit()).isEqualTo(1);
        assertThat(noMarkers.err())
                .contains("the marker table \"no_such_markers\" does not exist")
                .contains("Remedy");

        String wrong = "wrong-pw-" + System.nanoTime();
        Target maria = mariadb();
        Run badPassword = admin(Map.of(Credentials.PASSWORD_ENV, wrong), maria.args("list"));
        assertThat(badPassword.exit()).isEqualTo(1);
        assertThat(badPassword.err())
                .contains("refused user '" + MariaDbFixture.SINK_USER + "'")
                .contains("Remedy")
                .doesNotContain(wrong);
        assertThat(badPassword.out()).doesNotContain(wrong);
    }

    /** The packaged tool, as an operator runs it: one JVM of its own, the shaded jar alone on its path. */
    @Test
    void theJarRunsOnItsOwn() throws Exception {
        Path checkpoint = postgresCase();
        Path jar = Path.of("target", "eosink-admin.jar");
        assertThat(jar).as("packaged before the integration tests").exists();
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        jar.toString(),
                        "inspect",
                        checkpoint.toString(),
                        "--sink-id",
                        POSTGRES_SINK)
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        System.out.println("$ java -jar target/eosink-admin.jar inspect ...\n" + output);
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output)
                .startsWith("checkpoint ")
                .contains("sink id " + POSTGRES_SINK + ": 2 writer state(s), parallelism 2")
                .contains("committables: eos1/" + POSTGRES_SINK + "/0/");
    }

    // ---------------------------------------------------------------- the job's process

    private static Process start(Target db, String sinkId, String table, Path checkpoints, Path control)
            throws IOException {
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                FrozenJob.class.getName(),
                db.kind(),
                db.url(),
                db.user(),
                sinkId,
                table,
                checkpoints.toString(),
                control.toString());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JOB_PASSWORD", db.password() == null ? "" : db.password());
        pb.redirectErrorStream(true);
        pb.redirectOutput(dir.resolve(sinkId + "-job.log").toFile());
        Process p = pb.start();
        STARTED.add(p);
        return p;
    }

    private static void awaitCheckpoints(Process job, Path checkpoints, int n) throws Exception {
        long deadline = System.nanoTime() + JOB_STEP.toNanos();
        while (RetainedCheckpoints.completed(checkpoints).size() < n) {
            assertThat(job.isAlive())
                    .as("the job died; its log:%n%s", log(checkpoints))
                    .isTrue();
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        n + " checkpoints not completed within " + JOB_STEP + "; the job's log:\n" + log(checkpoints));
            }
            Thread.sleep(100);
        }
    }

    private static void awaitSignals(Process job, Path control) throws Exception {
        long deadline = System.nanoTime() + JOB_STEP.toNanos();
        while (!(signalled(control, "commit-stopped-") && signalled(control, "prepare-stopped-"))) {
            assertThat(job.isAlive()).as("the job died before it stopped").isTrue();
            assertThat(System.nanoTime())
                    .as("the committer and the writer stop within %s", JOB_STEP)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** Asks the job for a savepoint (its state files beside its _metadata, named relative to it). */
    private static Path savepoint(Process job, Path control) throws Exception {
        Files.createFile(control.resolve("savepoint"));
        Path done = control.resolve("savepoint-done");
        long deadline = System.nanoTime() + JOB_STEP.toNanos();
        while (!Files.exists(done)) {
            assertThat(job.isAlive()).as("the job died before its savepoint").isTrue();
            assertThat(System.nanoTime()).as("a savepoint within %s", JOB_STEP).isLessThan(deadline);
            Thread.sleep(50);
        }
        String pointer = Files.readString(done).strip();
        return Path.of(
                pointer.startsWith("file:") ? java.net.URI.create(pointer) : java.net.URI.create("file://" + pointer));
    }

    private static boolean signalled(Path control, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(control)) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith(prefix));
        }
    }

    private static String log(Path checkpoints) throws IOException {
        String name = checkpoints.getFileName().toString().replace("-checkpoints", "-job.log");
        Path log = checkpoints.resolveSibling(name);
        return Files.exists(log) ? Files.readString(log) : "(none)";
    }

    private static Path latestCheckpoint(Path checkpoints) throws IOException {
        return RetainedCheckpoints.newest(checkpoints)
                .orElseThrow(() -> new AssertionError("no completed checkpoint under " + checkpoints));
    }
}
