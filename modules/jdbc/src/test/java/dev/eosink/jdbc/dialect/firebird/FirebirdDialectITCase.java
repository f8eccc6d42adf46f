/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.dialect.XaTraits.MarkerRow;
import dev.eosink.jdbc.sql.GuardHolder;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.FirebirdFixture;

import org.firebirdsql.ds.FBXADataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Firebird dialect against a real Firebird 3 ({@link FirebirdFixture}, Debian's firebird3.0-server), through the
 * data sources its own driver creates: every statement it gives runs, with exact counts; the ownership guard; the
 * error kinds on real errors; and the XA additions (prepared branches listed by state, a repeated commit or
 * rollback sorted as finished, reads past a branch in limbo, the marker probe). One database per test.
 */
class FirebirdDialectITCase {

    private static final SqlIdentifier MARKERS = new SqlIdentifier(null, "eosink_markers");
    /** The sink's format id, as the XA sink builds its Xids; bqual with bytes outside ASCII. */
    private static final int FORMAT_ID = 0x45534B31;

    private static FirebirdFixture firebird;

    private final JdbcDialect dialect = JdbcDialects.forUrl("jdbc:firebird://h:1/x");
    private final List<AutoCloseable> open = new ArrayList<>();
    private String database;
    private String url;

    @BeforeAll
    static void startServer() {
        firebird = FirebirdFixture.start();
    }

    @AfterAll
    static void stopServer() {
        if (firebird != null) {
            firebird.close();
        }
    }

    @BeforeEach
    void createDatabase(TestInfo test) throws SQLException {
        database = test.getTestMethod().orElseThrow().getName();
        firebird.createDatabase(database);
        url = firebird.url(database);
        // The sink's user creates and uses its tables, as a sink would; it needs CREATE TABLE for that.
        try (Connection c = admin();
                Statement s = c.createStatement()) {
            s.execute("GRANT CREATE TABLE TO USER " + FirebirdFixture.SINK_USER);
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception ignored) {
                // a connection the test ended on the server
            }
        }
        open.clear();
    }

    @Test
    void isFoundByBothUrlSchemesAndRefusesASchema() {
        assertThat(JdbcDialects.forUrl("jdbc:firebird://h:3050//db.fdb")).isInstanceOf(FirebirdDialect.class);
        assertThat(JdbcDialects.forUrl("jdbc:firebirdsql:h/3050:db")).isInstanceOf(FirebirdDialect.class);
        assertThatThrownBy(() -> dialect.markers(new SqlIdentifier("s", "t")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Firebird 3 has no schemas");
        assertThatThrownBy(() -> dialect.writes().insertSql(new SqlIdentifier("s", "t"), List.of("a"), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Firebird 3 has no schemas");
        assertThatThrownBy(() -> dialect.quote("x".repeat(32))).hasMessageContaining("at most 31 bytes");
    }

    @Test
    void markerSqlRunsOnFirebird() throws Exception {
        MarkerSql markers = dialect.markers(MARKERS);
        try (Connection c = sinkConnection()) {
            execute(c, markers.createSql());
            execute(c, markers.createSql());
            assertThat(count(
                            c, "SELECT COUNT(*) FROM RDB$INDICES WHERE RDB$INDEX_NAME = 'eosink_markers_sink_created'"))
                    .isEqualTo(1);
            for (int i = 1; i <= 4; i++) {
                assertThat(update(c, markers.insertSql(), "eos1/s/0/" + i, i < 4 ? "s" : "t", 0, (long) i, 10L * i))
                        .isEqualTo(1);
            }
            assertThat(query(c, markers.existsSql(), "eos1/s/0/2")).containsExactly(List.of(1));
            assertThat(query(c, markers.existsSql(), "eos1/s/0/9")).isEmpty();
            assertThat(query(c, markers.rowCountSql(), "eos1/s/0/3")).containsExactly(List.of(30L));
            List<List<Object>> one = query(c, markers.bySinkSql(true), "s");
            assertThat(one).hasSize(1);
            assertThat(one.get(0).subList(0, 4)).containsExactly("s", 3L, 1L, 3L);
            assertThat(query(c, markers.bySinkSql(false)))
                    .extracting(r -> r.get(0))
                    .containsExactly("s", "t");
            assertThat(query(c, markers.rowsOfSql(), "s"))
                    .extracting(r -> r.get(0))
                    .containsExactly("eos1/s/0/1", "eos1/s/0/2", "eos1/s/0/3");
            // A made-up history: two of sink s's markers two hours old, by the server's clock.
            assertThat(update(
                            c,
                            "UPDATE \"eosink_markers\" SET \"created_at\" = DATEADD(-2 HOUR TO CURRENT_TIMESTAMP)"
                                    + " WHERE \"gid\" IN ('eos1/s/0/1', 'eos1/s/0/2', 'eos1/s/0/4')"))
                    .isEqualTo(3);
            int pruned = dialect.xa().pastPrepared(c, () -> update(c, markers.pruneSql(), "s", 3600));
            assertThat(pruned).isEqualTo(2);
            assertThat(query(c, "SELECT \"gid\" FROM \"eosink_markers\" ORDER BY 1"))
                    .extracting(r -> r.get(0))
                    .containsExactly("eos1/s/0/3", "eos1/s/0/4");

            // The rewind check's query, with checkpoints taken at times by this JVM's clock: a marker written now
            // (s's third) is after a checkpoint taken a minute ago, not after one a minute ahead; t's marker, two
            // hours old by the server's clock, is after a checkpoint three hours ago, not after one an hour ago. The
            // fixture's server runs 5 h 45 min ahead of UTC: a comparison that let its zone in would miss both.
            long now = System.currentTimeMillis();
            long minute = 60_000;
            java.sql.Timestamp serverTime = (java.sql.Timestamp) query(c, "SELECT CURRENT_TIMESTAMP FROM RDB$DATABASE")
                    .get(0)
                    .get(0);
            long serverAhead = serverTime.toLocalDateTime().toEpochSecond(java.time.ZoneOffset.UTC) * 1000 - now;
            assertThat(serverAhead).as("the server's local time ahead of UTC").isBetween(340 * minute, 350 * minute);
            assertThat(committedAfter(c, markers, "s", now - minute)).containsExactly(1L, 30L, 3L, 3L);
            assertThat(committedAfter(c, markers, "s", now + minute)).containsExactly(0L, 0L, null, null);
            assertThat(committedAfter(c, markers, "t", now - 180 * minute)).containsExactly(1L, 40L, 4L, 4L);
            assertThat(committedAfter(c, markers, "t", now - 60 * minute)).containsExactly(0L, 0L, null, null);
        }
    }

    /** The rewind check's row for sink {@code sinkId}: every marker after checkpoint 0, by any execution. */
    private List<Object> committedAfter(Connection c, MarkerSql markers, String sinkId, long sinceEpochMillis)
            throws SQLException {
        String sql = markers.committedAfterSql().orElseThrow();
        List<List<Object>> rows = dialect.xa()
                .pastPrepared(c, () -> query(c, sql, sinkId, 0L, "%", markers.committedAfterTime(sinceEpochMillis)));
        assertThat(rows).hasSize(1);
        return rows.get(0).stream()
                .map(v -> v == null ? null : ((Number) v).longValue())
                .collect(java.util.stream.Collectors.toList());
    }

    @Test
    void writeSqlRunsOnFirebirdWithExactCounts() throws Exception {
        WriteSql writes = dialect.writes();
        SqlIdentifier table = new SqlIdentifier(null, "Up");
        List<String> columns = List.of("k", "j", "v");
        try (Connection c = sinkConnection()) {
            execute(
                    c,
                    "CREATE TABLE \"Up\" (\"k\" INTEGER NOT NULL, \"j\" VARCHAR(10) NOT NULL, \"v\" VARCHAR(20), "
                            + "CONSTRAINT \"Up_pk\" PRIMARY KEY (\"k\", \"j\"), CONSTRAINT \"Up_v\" UNIQUE (\"v\"))");
            assertThat(writes.uniqueKeys(c, table)).containsExactlyInAnyOrder(List.of("k", "j"), List.of("v"));

            assertThat(update(c, writes.insertSql(table, columns, 1), 0, "a", "v0"))
                    .isEqualTo(1);
            int rows = writes.maxRowsPerStatement(); // the most one statement takes: FirebirdWriteSqlITCase
            String many = writes.insertSql(table, columns, rows);
            assertThat((long) many.getBytes(StandardCharsets.UTF_8).length).isLessThan(writes.maxStatementBytes(c));
            Object[] params = new Object[rows * 3];
            for (int i = 0; i < rows; i++) {
                params[3 * i] = i + 1;
                params[3 * i + 1] = "r" + i;
                params[3 * i + 2] = "v" + (i + 1);
            }
            assertThat(update(c, many, params)).isEqualTo(rows);
            assertThat(count(c, "SELECT COUNT(*) FROM \"Up\"")).isEqualTo(rows + 1);

            // Two existing keys (one of them twice: the later row wins) and one new: three records changed, which is
            // what Firebird counts (a record changed twice in one block counts once).
            String upsert =
                    writes.upsertSql(table, columns, List.of("k", "j"), 4).orElseThrow();
            assertThat(update(c, upsert, 1, "r0", "x1", 2, "r1", "x2", 1, "r0", "y1", 500, "n", "x500"))
                    .isEqualTo(3);
            assertThat(query(c, "SELECT \"k\", \"v\" FROM \"Up\" WHERE \"k\" IN (1, 2, 500) ORDER BY 1"))
                    .containsExactly(List.of(1, "y1"), List.of(2, "x2"), List.of(500, "x500"));
            assertThat(update(
                            c,
                            writes.upsertSql(table, columns, List.of("k", "j"), 1)
                                    .orElseThrow(),
                            3,
                            "r2",
                            "z3"))
                    .isEqualTo(1);
            assertThat(count(c, "SELECT COUNT(*) FROM \"Up\"")).isEqualTo(rows + 2);

            String delete = writes.deleteSql(table, List.of("k", "j"));
            assertThat(update(c, delete, 1, "r0")).isEqualTo(1);
            assertThat(update(c, delete, 1, "r0")).isZero();
            assertThat(count(c, "SELECT COUNT(*) FROM \"Up\"")).isEqualTo(rows + 1);

            SqlIdentifier dead = new SqlIdentifier(null, "eosink_dead_letters");
            execute(c, writes.deadLetterDdl(dead).orElseThrow());
            execute(c, writes.deadLetterDdl(dead).orElseThrow());
            List<String> deadColumns =
                    List.of("gid", "sink_id", "subtask", "checkpoint_id", "position", "record", "sqlstate", "error");
            String record = "{\"name\": \"Zoë 日本\"}" + "x".repeat(40_000);
            assertThat(update(
                            c,
                            writes.insertSql(dead, deadColumns, 2),
                            "g",
                            "s",
                            0,
                            7L,
                            1L,
                            record,
                            "23000",
                            "dup",
                            "g",
                            "s",
                            0,
                            7L,
                            2L,
                            "r2",
                            null,
                            "e2"))
                    .isEqualTo(2);
            assertThat(query(c, "SELECT \"record\" FROM \"eosink_dead_letters\" WHERE \"position\" = 1"))
                    .containsExactly(List.of(record));
        }
    }

    @Test
    void errorsSortOnRealFirebirdErrors() throws Exception {
        ErrorKinds errors = dialect.errors();
        Connection other = handle(dataSource(Duration.ofSeconds(2)));
        try (Connection c = sinkConnection()) {
            execute(
                    c,
                    "CREATE TABLE \"t\" (\"id\" INTEGER NOT NULL PRIMARY KEY, \"v\" VARCHAR(3), \"d\" DATE, "
                            + "CONSTRAINT \"pos\" CHECK (\"id\" >= 0))");
            update(c, "INSERT INTO \"t\" (\"id\") VALUES (1)");
            for (Object[] refused : List.of(
                    new Object[] {null, "a", null},
                    new Object[] {-1, "a", null},
                    new Object[] {2, "long", null},
                    new Object[] {3, "a", "not a date"})) {
                SQLException e =
                        failure(() -> update(c, "INSERT INTO \"t\" (\"id\", \"v\", \"d\") VALUES (?, ?, ?)", refused));
                assertThat(errors.rejectsRecord(e))
                        .as(Arrays.toString(refused) + ": " + e)
                        .isTrue();
                assertThat(errors.isLockTimeout(e)).isFalse();
            }
            // A duplicate key is no refused record on Firebird: a prepared branch's key fails the same way
            // (FirebirdErrorsITCase).
            SQLException duplicate =
                    failure(() -> update(c, "INSERT INTO \"t\" (\"id\", \"v\", \"d\") VALUES (?, ?, ?)", 1, "a", null));
            assertThat(duplicate.getErrorCode()).isEqualTo(335544665);
            assertThat(errors.rejectsRecord(duplicate)).isFalse();
            SQLException conversion = failure(() -> query(c, "SELECT CAST('abc' AS INTEGER) FROM RDB$DATABASE"));
            assertThat(conversion.getErrorCode()).isEqualTo(335544334);
            assertThat(errors.rejectsRecord(conversion)).isTrue();

            SQLException missing = failure(() -> query(c, "SELECT 1 FROM \"nope\""));
            assertThat(errors.isMissingTable(missing)).isTrue();
            assertThat(errors.rejectsRecord(missing)).isFalse();

            // A lock conflict: the guard's NO WAIT transaction meets another's row lock.
            c.setAutoCommit(false);
            update(c, "UPDATE \"t\" SET \"v\" = 'x' WHERE \"id\" = 1");
            dialect.lockTimeout().orElseThrow().set(other, Duration.ofSeconds(2));
            other.setAutoCommit(false);
            long t0 = System.nanoTime();
            SQLException lock = failure(() -> update(other, "UPDATE \"t\" SET \"v\" = 'y' WHERE \"id\" = 1"));
            long waited = (System.nanoTime() - t0) / 1_000_000;
            // It waited (a NO WAIT conflict fails in a few ms), then ran into the timeout: Firebird counts whole
            // seconds of its lock manager's clock, so an n s timeout fires within n-1 to n s (a 1 s one measured 18,
            // 384 and 961 ms): 2 s, so that the wait shows.
            assertThat(waited).isBetween(500L, 6_000L);
            assertThat(errors.isLockTimeout(lock)).isTrue();
            assertThat(errors.rejectsRecord(lock)).isFalse();
            c.rollback();
            other.rollback();
        }
    }

    @Test
    void theGuardIsARowLockThatASecondSessionCannotTake() throws Exception {
        SessionLocks locks = dialect.sessionLocks().orElseThrow();
        XADataSource ds = dataSource(null);
        String hash = LockNames.sinkHash("orders");
        Connection a = handle(ds);
        Connection b = handle(ds);
        long sessionA = locks.sessionId(a);
        locks.markExecution(a, hash, "exec0001", sessionA);
        assertThat(locks.guardHolder(b, hash, 0)).isZero();
        assertThat(locks.tryGuard(a, hash, 0)).isTrue();
        assertThat(a.getAutoCommit()).isFalse();
        assertThat(locks.tryGuard(a, hash, 0)).as("held already").isTrue();
        assertThat(locks.tryGuard(a, hash, 1)).isTrue();

        long t0 = System.nanoTime();
        assertThat(locks.tryGuard(b, hash, 0)).isFalse();
        assertThat((System.nanoTime() - t0) / 1_000_000)
                .as("a try does not wait")
                .isLessThan(1_000);
        assertThat(b.getAutoCommit()).as("back to autocommit: b holds nothing").isTrue();
        assertThat(locks.guardHolder(b, hash, 0)).isEqualTo(sessionA);
        assertThat(locks.holderExecution(b, hash, "exec0001", sessionA)).isEqualTo(GuardHolder.THIS);
        assertThat(locks.holderExecution(b, hash, "exec0002", sessionA)).isEqualTo(GuardHolder.OTHER);
        assertThat(locks.sessionAlive(b, sessionA)).isTrue();

        // Other work on the guard's connection, the guard's MON$ reads included, leaves the guards held.
        assertThat(locks.sessionAlive(a, locks.sessionId(b))).isTrue();
        assertThat(count(a, "SELECT COUNT(*) FROM RDB$RELATIONS")).isPositive();
        assertThat(locks.tryGuard(b, hash, 1)).isFalse();

        // Releasing the first guard undoes the second's savepoint too; the release takes it again.
        locks.releaseGuard(a, hash, 0);
        assertThat(a.getAutoCommit()).isFalse();
        assertThat(locks.tryGuard(b, hash, 1)).isFalse();
        assertThat(locks.tryGuard(b, hash, 0)).isTrue();
        assertThat(locks.guardHolder(a, hash, 0)).isEqualTo(locks.sessionId(b));
        locks.releaseGuard(a, hash, 1);
        assertThat(a.getAutoCommit()).as("none held: autocommit again").isTrue();
        assertThat(a.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
        assertThat(locks.guardHolder(a, hash, 1)).isZero();

        // The guard's session ended by an operator: the guard is free at once, its holder gone.
        long sessionB = locks.sessionId(b);
        try (Connection admin = admin()) {
            assertThat(update(admin, locks.endSessionSql(sessionB))).isEqualTo(1);
        }
        assertThat(locks.sessionAlive(a, sessionB)).isFalse();
        assertThat(locks.guardHolder(a, hash, 0)).isZero();
        assertThat(locks.tryGuard(a, hash, 0)).isTrue();

        assertThat(locks.locksBranches()).isFalse();
        assertThat(locks.tryBranchLock(a, hash, 0)).isTrue();
        assertThat(locks.branchLockHolder(a, hash, 0)).isZero();
        assertThat(locks.guardHoldsTransaction()).isTrue();
    }

    /** A plain Jaybird connection can guard too (its transaction options are set on it); a killed client frees it. */
    @Test
    void theGuardIsFreedWhenTheHoldersProcessIsKilled() throws Exception {
        SessionLocks locks = dialect.sessionLocks().orElseThrow();
        String hash = LockNames.sinkHash("orders");
        Connection plain = open(DriverManager.getConnection(url, sinkProperties()));
        assertThat(locks.tryGuard(plain, hash, 3)).isTrue();
        locks.releaseGuard(plain, hash, 3);
        assertThat(plain.getAutoCommit()).isTrue();

        // isql-fb, another process, holds the guard's row lock; SIGKILL ends it without a goodbye.
        Process isql = firebird.isqlProcess(
                        "-q",
                        "-user",
                        FirebirdFixture.SINK_USER,
                        "-password",
                        FirebirdFixture.SINK_PASSWORD,
                        firebird.host() + "/" + firebird.port() + ":" + firebird.databasePath(database))
                .redirectErrorStream(true)
                .start();
        try {
            OutputStream in = isql.getOutputStream();
            in.write(("SET TRANSACTION READ COMMITTED NO WAIT;\nUPDATE \"eosink_locks\" SET \"session\" = "
                            + "CURRENT_CONNECTION WHERE \"name\" = '" + LockNames.guard(hash, 3) + "';\n"
                            + "SELECT 'taken' FROM RDB$DATABASE;\n")
                    .getBytes(StandardCharsets.UTF_8));
            in.flush();
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(isql.getInputStream(), StandardCharsets.UTF_8));
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = out.readLine()) != null && !line.contains("taken")) {
                seen.append(line).append('\n');
            }
            assertThat(line).as("isql-fb output: " + seen).isNotNull();
            assertThat(locks.tryGuard(plain, hash, 3)).isFalse();
        } finally {
            isql.destroyForcibly();
            isql.waitFor();
        }
        long t0 = System.nanoTime();
        boolean taken = false;
        while (!taken && System.nanoTime() - t0 < 10_000_000_000L) {
            taken = locks.tryGuard(plain, hash, 3);
            if (!taken) {
                Thread.sleep(5);
            }
        }
        assertThat(taken).as("taken within 10 s of the kill").isTrue();
    }

    @Test
    void preparedBranchesAreThoseInLimboAndARepeatedEndIsFinished() throws Exception {
        XaTraits xa = dialect.xa();
        MarkerSql markers = dialect.markers(MARKERS);
        XADataSource ds = dataSource(null);
        try (Connection c = sinkConnection()) {
            execute(c, markers.createSql());
        }
        Xid committed = xid("eos1/orders/0/7/a", new byte[] {0, (byte) 0xff});
        Xid rolledBack = xid("eos1/orders/0/8/a", new byte[] {1});
        Xid alive = xid("eos1/orders/0/9/a", new byte[] {2});
        prepareAndClose(ds, committed, markers);
        prepareAndClose(ds, rolledBack, markers);
        XAConnection preparer = ds.getXAConnection();
        open.add(preparer::close);
        prepare(preparer, alive, markers);

        XAConnection recovery = ds.getXAConnection();
        open.add(recovery::close);
        Connection plain = recovery.getConnection();
        XAResource resource = recovery.getXAResource();
        assertThat(keys(xa.preparedBranches(resource, plain)))
                .containsExactlyInAnyOrder(key(committed), key(rolledBack), key(alive));

        Connection reader = handle(ds);
        // In limbo (its session gone): the default reader fails on the row, the probe says HELD, a read past
        // prepared branches skips it. Alive: the default reader skips it, the probe says HELD.
        SQLException limbo = failure(() -> query(reader, markers.existsSql(), gid(committed)));
        assertThat(limbo.getErrorCode()).isEqualTo(FirebirdErrors.RECORD_IN_LIMBO);
        assertThat(dialect.errors().rejectsRecord(limbo)).isFalse();
        assertThat(xa.markerRow(reader, markers, gid(committed))).isEqualTo(MarkerRow.HELD);
        assertThat(xa.markerRow(reader, markers, gid(alive))).isEqualTo(MarkerRow.HELD);
        assertThat(query(reader, markers.existsSql(), gid(alive))).isEmpty();
        assertThat(xa.pastPrepared(reader, () -> count(reader, "SELECT COUNT(*) FROM \"eosink_markers\"")))
                .isZero();
        assertThat(reader.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);

        resource.commit(committed, false);
        resource.rollback(rolledBack);
        resource.commit(alive, false);
        // Jaybird's recover still lists the two resolved from this connection (not the preparing one)...
        assertThat(keys(Arrays.asList(resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN))))
                .contains(key(committed), key(rolledBack));
        // ...the dialect lists none.
        assertThat(xa.preparedBranches(resource, plain)).isEmpty();
        assertThat(xa.markerRow(reader, markers, gid(committed))).isEqualTo(MarkerRow.COMMITTED);
        assertThat(xa.markerRow(reader, markers, gid(alive))).isEqualTo(MarkerRow.COMMITTED);
        assertThat(xa.markerRow(reader, markers, gid(rolledBack))).isEqualTo(MarkerRow.ABSENT);
        assertThat(count(reader, "SELECT COUNT(*) FROM \"eosink_markers\"")).isEqualTo(2);

        for (Xid again : List.of(committed, rolledBack)) {
            XAException commit = xaFailure(() -> resource.commit(again, false));
            assertThat(commit.errorCode).isEqualTo(XAException.XA_HEURCOM);
            assertThat(xa.answersFinished(commit)).isTrue();
            XAException rollback = xaFailure(() -> resource.rollback(again));
            assertThat(rollback.errorCode).isEqualTo(XAException.XA_HEURCOM);
            assertThat(xa.answersFinished(rollback)).isTrue();
        }
        XAException unknown = xaFailure(() -> resource.commit(xid("eos1/orders/0/99/a", new byte[] {9}), false));
        assertThat(unknown.errorCode).isEqualTo(XAException.XAER_NOTA);
        assertThat(xa.answersFinished(unknown)).isFalse();
        assertThat(xa.keepsConnectionAfterPrepare()).isTrue();
        assertThat(xa.provesOutcomesByMarker()).isFalse();
    }

    /** The guard's connection recovers: lists, commits and rolls back branches, and keeps its guard throughout. */
    @Test
    void theGuardSurvivesRecoveryOnItsConnection() throws Exception {
        XaTraits xa = dialect.xa();
        SessionLocks locks = dialect.sessionLocks().orElseThrow();
        MarkerSql markers = dialect.markers(MARKERS);
        XADataSource ds = dataSource(null);
        try (Connection c = sinkConnection()) {
            execute(c, markers.createSql());
        }
        Xid first = xid("eos1/orders/1/1/b", new byte[] {1});
        Xid second = xid("eos1/orders/1/2/b", new byte[] {2});
        prepareAndClose(ds, first, markers);
        prepareAndClose(ds, second, markers);

        XAConnection guardXa = ds.getXAConnection();
        open.add(guardXa::close);
        Connection guard = guardXa.getConnection();
        String hash = LockNames.sinkHash("orders");
        xa.checkServer(guard, context(), "the test database", 2);
        assertThat(locks.tryGuard(guard, hash, 1)).isTrue();
        assertThat(keys(xa.preparedBranches(guardXa.getXAResource(), guard)))
                .containsExactlyInAnyOrder(key(first), key(second));
        guardXa.getXAResource().commit(first, false);
        guardXa.getXAResource().rollback(second);
        assertThat(xa.preparedBranches(guardXa.getXAResource(), guard)).isEmpty();

        Connection other = handle(ds);
        assertThat(locks.tryGuard(other, hash, 1)).isFalse();
        assertThat(locks.guardHolder(other, hash, 1)).isEqualTo(locks.sessionId(guard));
        assertThat(count(other, "SELECT COUNT(*) FROM \"eosink_markers\"")).isEqualTo(1);
    }

    @Test
    void aLockTimeoutBoundsAnXaBranchThroughItsDataSource() throws Exception {
        try (Connection c = sinkConnection()) {
            execute(c, "CREATE TABLE \"t\" (\"id\" INTEGER NOT NULL PRIMARY KEY, \"v\" VARCHAR(3))");
            update(c, "INSERT INTO \"t\" (\"id\") VALUES (1)");
        }
        XADataSource ds = dataSource(Duration.ofMillis(1500));
        Connection holder = handle(ds);
        holder.setAutoCommit(false);
        update(holder, "UPDATE \"t\" SET \"v\" = 'a' WHERE \"id\" = 1");

        XAConnection writer = ds.getXAConnection();
        open.add(writer::close);
        dialect.lockTimeout().orElseThrow().set(writer.getConnection(), Duration.ofMillis(1200));
        assertThatThrownBy(() -> dialect.lockTimeout().orElseThrow().set(writer.getConnection(), Duration.ofSeconds(5)))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("lock timeout of 5 s");
        Xid xid = xid("eos1/orders/2/1/c", new byte[] {3});
        writer.getXAResource().start(xid, XAResource.TMNOFLAGS);
        long t0 = System.nanoTime();
        SQLException e = failure(() -> update(writer.getConnection(), "UPDATE \"t\" SET \"v\" = 'b' WHERE \"id\" = 1"));
        long waited = (System.nanoTime() - t0) / 1_000_000;
        // 1.5 s rounded up to 2 s, which fires within 1-2 s of the lock manager's whole seconds.
        assertThat(waited)
                .as("waited up to 2 s (1.5 s rounded up), not forever")
                .isBetween(500L, 6_000L);
        assertThat(dialect.errors().isLockTimeout(e)).isTrue();
        writer.getXAResource().end(xid, XAResource.TMSUCCESS);
        writer.getXAResource().rollback(xid);
        holder.rollback();
    }

    @Test
    void startChecksRefuseWhatCannotWork() throws Exception {
        XaTraits xa = dialect.xa();
        FBXADataSource foreign = new FBXADataSource();
        foreign.setDatabaseName(url.substring("jdbc:firebird:".length()));
        foreign.setUser(FirebirdFixture.SINK_USER);
        foreign.setPassword(FirebirdFixture.SINK_PASSWORD);
        Connection made = handle(foreign);
        assertThatThrownBy(() -> xa.checkServer(made, context(), "the test database", 2))
                .isInstanceOf(MisconfigurationException.class)
                .hasMessageContaining("let the sink create its XADataSource");
        assertThatThrownBy(() -> dialect.sessionLocks().orElseThrow().tryGuard(made, "0123456789abcdef", 0))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("The ownership guard needs");

        try (Connection c = sinkConnection()) {
            execute(c, "CREATE GLOBAL TEMPORARY TABLE \"tmp\" (\"id\" INTEGER)");
            execute(c, "CREATE TABLE \"ok\" (\"id\" INTEGER)");
            xa.checkTransactional(c, context(), new SqlIdentifier(null, "ok"));
            assertThatThrownBy(() -> xa.checkTransactional(c, context(), new SqlIdentifier(null, "tmp")))
                    .isInstanceOf(MisconfigurationException.class)
                    .hasMessageContaining("global temporary table");
        }
    }

    private XADataSource dataSource(Duration lockTimeout) throws SQLException {
        Properties p = sinkProperties();
        return lockTimeout == null
                ? dialect.xa()
                        .driver(url, getClass().getClassLoader())
                        .orElseThrow()
                        .create(url, p, "eosink-test")
                : dialect.xa()
                        .driver(url, getClass().getClassLoader())
                        .orElseThrow()
                        .create(url, p, "eosink-test", lockTimeout);
    }

    /** A connection of {@code ds} (an XAConnection's handle, as the XA sink uses), closed after the test. */
    private Connection handle(XADataSource ds) throws SQLException {
        XAConnection x = ds.getXAConnection();
        open.add(x::close);
        return x.getConnection();
    }

    private Connection sinkConnection() throws SQLException {
        return handle(dataSource(null));
    }

    private Connection admin() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.ADMIN_USER);
        p.setProperty("password", FirebirdFixture.ADMIN_PASSWORD);
        return DriverManager.getConnection(url, p);
    }

    private <T extends AutoCloseable> T open(T c) {
        open.add(c);
        return c;
    }

    private static Properties sinkProperties() {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.SINK_USER);
        p.setProperty("password", FirebirdFixture.SINK_PASSWORD);
        return p;
    }

    private static SubtaskContext context() {
        return new SubtaskContext("orders", 0, 1, 0, new SubtaskContext.JobRun("job", OptionalLong.empty()));
    }

    private void prepareAndClose(XADataSource ds, Xid xid, MarkerSql markers) throws Exception {
        XAConnection c = ds.getXAConnection();
        try {
            prepare(c, xid, markers);
        } finally {
            c.close();
        }
    }

    /** A branch that writes its marker row, as the sink's do, prepared. */
    private static void prepare(XAConnection c, Xid xid, MarkerSql markers) throws Exception {
        c.getXAResource().start(xid, XAResource.TMNOFLAGS);
        assertThat(update(c.getConnection(), markers.insertSql(), gid(xid), "orders", 0, 1L, 0L))
                .isEqualTo(1);
        c.getXAResource().end(xid, XAResource.TMSUCCESS);
        assertThat(c.getXAResource().prepare(xid)).isEqualTo(XAResource.XA_OK);
    }

    private static String gid(Xid xid) {
        return new String(xid.getGlobalTransactionId(), StandardCharsets.US_ASCII);
    }

    private static Xid xid(String gtrid, byte[] bqual) {
        byte[] g = gtrid.getBytes(StandardCharsets.US_ASCII);
        return new Xid() {
            @Override
            public int getFormatId() {
                return FORMAT_ID;
            }

            @Override
            public byte[] getGlobalTransactionId() {
                return g.clone();
            }

            @Override
            public byte[] getBranchQualifier() {
                return bqual.clone();
            }
        };
    }

    private static String key(Xid xid) {
        return FirebirdXids.key(xid);
    }

    private static List<String> keys(List<Xid> xids) {
        return xids.stream().map(FirebirdXids::key).toList();
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            return s.executeUpdate();
        }
    }

    private static List<List<Object>> query(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            List<List<Object>> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        row.add(rs.getObject(i));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        return ((Number) query(c, sql).get(0).get(0)).longValue();
    }

    private interface SqlCall {
        Object run() throws Exception;
    }

    private static SQLException failure(SqlCall call) {
        try {
            call.run();
        } catch (SQLException e) {
            return e;
        } catch (Exception e) {
            throw new AssertionError("expected an SQLException, got " + e, e);
        }
        throw new AssertionError("expected an SQLException, got none");
    }

    private interface XaCall {
        void run() throws XAException;
    }

    private static XAException xaFailure(XaCall call) {
        try {
            call.run();
        } catch (XAException e) {
            return e;
        }
        throw new AssertionError("expected an XAException, got none");
    }
}
