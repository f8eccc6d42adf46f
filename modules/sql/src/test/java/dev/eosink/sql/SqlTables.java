/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.admin.Admin;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.RetainedCheckpoints;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** What the database shows after a SQL job: the assertions the connector's ITs end with. */
final class SqlTables {

    private SqlTables() {}

    /** Exactly ids 0..n-1 in the table, each once, and no prepared transaction of the sink left. */
    static void assertExactlyOnce(PostgresFixture db, String table, String sinkId, long n) {
        long rows = db.count("SELECT count(*) FROM " + table);
        long distinct = db.count("SELECT count(DISTINCT id) FROM " + table);
        long inRange = db.count("SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ?", n);
        assertNothingPrepared(db, sinkId);
        assertThat(rows - distinct).as("duplicate rows in %s", table).isZero();
        assertThat(n - inRange)
                .as("missing ids in %s (the first of them: %s)", table, firstMissing(db, table, n))
                .isZero();
        assertThat(rows).as("rows in %s", table).isEqualTo(n);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE payload <> 'row-' || id"))
                .as("payloads")
                .isZero();
    }

    /**
     * Up to 20 of the ids 0..n-1 that {@code table} lacks: where a loss sits (at a failure, at the end of
     * the input) says which mechanism to look at. Computed only when some are missing.
     */
    private static Object firstMissing(PostgresFixture db, String table, long n) {
        return new Object() {
            @Override
            public String toString() {
                List<Long> missing = new ArrayList<>();
                try (Connection c = db.connect();
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery(
                                "SELECT g FROM generate_series(0, " + (n - 1) + ") g WHERE NOT EXISTS (SELECT 1 FROM "
                                        + table + " t WHERE t.id = g) ORDER BY g LIMIT 20")) {
                    while (rs.next()) {
                        missing.add(rs.getLong(1));
                    }
                } catch (SQLException e) {
                    return "(could not be read: " + e.getMessage() + ")";
                }
                return missing.toString();
            }
        };
    }

    /** The checkpoint whose epoch a refusal's message names ("epoch of checkpoint N"). */
    static long failedCheckpoint(String message) {
        Matcher epoch = Pattern.compile("epoch of checkpoint (\\d+)").matcher(message);
        assertThat(epoch.find())
                .as("the message names the epoch's checkpoint: %s", message)
                .isTrue();
        return Long.parseLong(epoch.group(1));
    }

    /**
     * After a job that does not restart failed in the epoch of {@code failedCheckpoint}: nothing of that
     * epoch or later is prepared. An earlier epoch may be: its checkpoint completed, but the job failed
     * before the notification reached the committer (on a busy machine the next barrier can come first),
     * and such a job leaves it to a restore from that checkpoint, which commits it.
     */
    static void assertNothingPreparedFrom(PostgresFixture db, String sinkId, long failedCheckpoint) {
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions of the failed epoch (checkpoint %d) or later", failedCheckpoint)
                .allSatisfy(
                        gid -> assertThat(TransactionId.parse(gid).orElseThrow().checkpointId())
                                .isLessThan(failedCheckpoint));
    }

    /**
     * The remedy for a job that failed for good on a record its table refused, before the table is changed:
     * the job may have left its last completed checkpoint's transaction prepared (the notification never
     * came), holding its row locks, and DDL on the table would wait for it for ever. {@code eosink-admin
     * resolve --apply} against the newest retained checkpoint commits what that checkpoint promised and rolls
     * back the rest. A job that failed before its first checkpoint completed retained none and promised
     * nothing: what it prepared is rolled back by hand (ROLLBACK PREPARED), and the job starts afresh. Then
     * {@code ddl} runs, with a lock timeout so that anything left holding the table fails the test in
     * seconds instead of hanging it.
     */
    static void resolveThenChange(PostgresFixture db, String sinkId, Path checkpoints, String ddl) throws Exception {
        Optional<Path> newest = RetainedCheckpoints.newest(checkpoints);
        if (newest.isPresent()) {
            resolve(db, sinkId, newest.get());
        } else {
            db.rollbackPrepared(TransactionId.sinkPrefix(sinkId));
        }
        assertNothingPrepared(db, sinkId);
        db.execute("SET lock_timeout = '20s'; " + ddl);
    }

    private static void resolve(PostgresFixture db, String sinkId, Path checkpoint) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            exit = Admin.run(
                    new String[] {
                        "resolve",
                        checkpoint.toString(),
                        "--sink-id",
                        sinkId,
                        "--apply",
                        "--url",
                        db.jdbcUrl(),
                        "--user",
                        db.user()
                    },
                    o,
                    o,
                    Map.of("EOSINK_ADMIN_PASSWORD", db.password() == null ? "" : db.password()));
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        System.out.println("$ eosink-admin resolve " + checkpoint + " --sink-id " + sinkId + " --apply\n" + printed);
        assertThat(exit)
                .as("eosink-admin resolve exit code; it printed:%n%s", printed)
                .isZero();
    }

    static void assertNothingPrepared(PostgresFixture db, String sinkId) {
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions of %s left", sinkId)
                .isEmpty();
    }

    /** The rows of {@code sql} as first column -> the other columns; fails on a duplicate first column. */
    static Map<Long, List<Object>> rows(PostgresFixture db, String sql) throws SQLException {
        try (Connection c = db.connect()) {
            return rows(c, sql);
        }
    }

    /** As {@link #rows(PostgresFixture, String)}, on MariaDB. */
    static Map<Long, List<Object>> rows(MariaDbFixture db, String sql) throws SQLException {
        try (Connection c = db.connect()) {
            return rows(c, sql);
        }
    }

    private static Map<Long, List<Object>> rows(Connection c, String sql) throws SQLException {
        Map<Long, List<Object>> rows = new TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> values = new ArrayList<>();
                for (int i = 2; i <= columns; i++) {
                    values.add(rs.getObject(i));
                }
                assertThat(rows.put(rs.getLong(1), values))
                        .as("duplicate key %s in %s", rs.getLong(1), sql)
                        .isNull();
            }
        }
        return rows;
    }
}
