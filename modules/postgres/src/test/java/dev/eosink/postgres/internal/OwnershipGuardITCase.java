package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.GuardHolder;
import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

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
        long mark = GuardHolder.executionMark(sinkId, "this-execution");
        int lockClass = OwnershipGuard.lockClass(sinkId);
        try (Connection marked = pg.connect(); Connection unmarked = pg.connect(); Connection claimant = pg.connect()) {
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
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getObject(1);
        }
    }
}
