/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who holds a sink's ownership guard, as a claim that gave up on it asks ({@link OwnershipGuard#HOLDER}):
 * the holding session and whether it carries the claimant's execution mark.
 */
class OwnershipGuardITCase {

    /**
     * Both answers come from one read of pg_locks. Each call of pg_lock_status(), which the view pg_locks
     * is, copies the lock table anew: a holder that ended between two copies would be seen holding the
     * guard in the first and without its mark in the second, and the claim would take a task of its own
     * job going away for another job's, which fails the job without restarts. No test can stop a server
     * between two scans of one statement, so the plan shows the reads; the answers are checked for a
     * holder with the mark and one without.
     */
    @Test
    void whoHoldsAGuardAndWhetherItCarriesTheMarkComeFromOneReadOfTheLockTable() throws Exception {
        PostgresFixture pg = PostgresFixture.get();
        String sinkId = "guard-holder-" + System.nanoTime() % 100000;
        long mark = LockNames.executionMarkKey(sinkId, "this-execution");
        int lockClass = OwnershipGuard.lockClass(sinkId);
        try (Connection marked = pg.connect();
                Connection unmarked = pg.connect();
                Connection claimant = pg.connect()) {
            query(marked, "SELECT pg_try_advisory_lock_shared(" + mark + ")");
            query(marked, "SELECT pg_try_advisory_lock(" + lockClass + ", 0)");
            query(unmarked, "SELECT pg_try_advisory_lock(" + lockClass + ", 1)");

            assertThat(holder(claimant, mark, lockClass, 0)).containsExactly(pid(marked) + " marked");
            assertThat(holder(claimant, mark, lockClass, 1)).containsExactly(pid(unmarked) + " unmarked");

            List<String> plan = new ArrayList<>();
            try (PreparedStatement s = claimant.prepareStatement("EXPLAIN " + OwnershipGuard.HOLDER)) {
                bind(s, mark, lockClass, 0);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            }
            assertThat(plan.stream().filter(line -> line.contains("Function Scan on pg_lock_status")))
                    .as("reads of the lock table in the plan:%n%s", String.join("\n", plan))
                    .hasSize(1);
        }
    }

    /**
     * Advisory locks are per database, so a sink with the same id in another database of the same server
     * is another sink: it holds guards of the same keys, which pg_locks shows beside this database's. The
     * holder a claim names, and whose execution it takes it for, must be of the claimant's database: a
     * session of an earlier attempt of this job, going away, must not be taken for the other database's
     * live job (a refusal without restarts), nor the other database's job named when no one here holds it.
     */
    @Test
    void aGuardOfTheSameSinkIdInAnotherDatabaseIsNotThisSinksHolder() throws Exception {
        PostgresFixture pg = PostgresFixture.get();
        String sinkId = "guard-other-db-" + System.nanoTime() % 100000;
        String otherDatabase = sinkId.replace('-', '_');
        SubtaskContext context =
                new SubtaskContext(sinkId, 0, 1, 1, new JobRun("this-execution", OptionalLong.empty()));
        long mark = LockNames.executionMarkKey(sinkId, context.execution());
        long otherMark = LockNames.executionMarkKey(sinkId, "other-execution");
        int lockClass = OwnershipGuard.lockClass(sinkId);
        pg.execute("CREATE DATABASE " + otherDatabase);
        String otherUrl = pg.jdbcUrl().replaceFirst("/postgres(\\?|$)", "/" + otherDatabase + "$1");
        assertThat(otherUrl).as("the URL of the other database").isNotEqualTo(pg.jdbcUrl());
        try (Connection other = DriverManager.getConnection(otherUrl, pg.connectionProperties());
                Connection earlier = pg.connect();
                Connection claimant = pg.connect()) {
            // A live job of the same sink id in the other database holds the guards of subtasks 0 and 1.
            query(other, "SELECT pg_try_advisory_lock_shared(" + otherMark + ")");
            query(other, "SELECT pg_try_advisory_lock(" + lockClass + ", 0)");
            query(other, "SELECT pg_try_advisory_lock(" + lockClass + ", 1)");

            assertThat(holder(claimant, mark, lockClass, 1))
                    .as("holders of subtask 1 in the claimant's database")
                    .isEmpty();

            // Here, a session of an earlier attempt of this job, going away, holds the guard of subtask 0.
            query(earlier, "SELECT pg_try_advisory_lock_shared(" + mark + ")");
            query(earlier, "SELECT pg_try_advisory_lock(" + lockClass + ", 0)");
            assertThat(holder(claimant, mark, lockClass, 0))
                    .as("holders of subtask 0 in the claimant's database")
                    .containsExactly(pid(earlier) + " marked");
            OwnershipGuard guard = new OwnershipGuard(claimant, context, null);
            assertThatThrownBy(() -> guard.claim(0, 300))
                    .isInstanceOf(SinkException.class)
                    .isNotInstanceOf(MisconfigurationException.class)
                    .hasMessageContaining("held by backend pid " + pid(earlier) + ",")
                    .hasMessageNotContaining("pid " + pid(other) + ",");
        } finally {
            pg.execute("DROP DATABASE " + otherDatabase + " WITH (FORCE)");
        }
    }

    /** The rows of {@link OwnershipGuard#HOLDER} for {@code subtask}: "pid marked" or "pid unmarked". */
    private static List<String> holder(Connection c, long mark, int lockClass, int subtask) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(OwnershipGuard.HOLDER)) {
            bind(s, mark, lockClass, subtask);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getInt(1) + (rs.getBoolean(5) ? " marked" : " unmarked"));
                }
            }
        }
        return rows;
    }

    private static void bind(PreparedStatement s, long mark, int lockClass, int subtask) throws SQLException {
        s.setLong(1, mark >>> 32);
        s.setLong(2, mark & 0xFFFF_FFFFL);
        s.setLong(3, Integer.toUnsignedLong(lockClass));
        s.setLong(4, subtask);
    }

    private static int pid(Connection c) throws SQLException {
        return ((Number) query(c, "SELECT pg_backend_pid()")).intValue();
    }

    private static Object query(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql);
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getObject(1);
        }
    }
}
