/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What operators run from sql/ works against a real server (hard case 16), and the sink keeps the
 * marker table from growing without bound.
 */
class OperatorToolsITCase extends ExactlyOnceTestBase {

    /** Hard case 16: list a dead job's prepared transactions by sink id with their age, then resolve them. */
    @Test
    void preparedTransactionsViewListsAndResolvesByAge() throws Exception {
        String committed = "eos1/" + sinkId + "/0/5/aaaaaaaa";
        String rolledBack = "eos1/" + sinkId + "/1/6/bbbbbbbb";
        stagePrepared(committed, 0, 10);
        stagePrepared(rolledBack, 10, 20);
        db.execute(Files.readString(repoFile("sql/03-prepared-transactions.sql")));

        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT sink_id, subtask, checkpoint_id, run, gid, age >= interval '0' FROM "
                                + "eosink_prepared_transactions WHERE sink_id = '" + sinkId
                                + "' ORDER BY checkpoint_id")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(sinkId);
            assertThat(rs.getInt(2)).isZero();
            assertThat(rs.getLong(3)).isEqualTo(5);
            assertThat(rs.getString(4)).isEqualTo("aaaaaaaa");
            assertThat(rs.getString(5)).isEqualTo(committed);
            assertThat(rs.getBoolean(6)).isTrue();
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(5)).isEqualTo(rolledBack);
            assertThat(rs.next()).isFalse();
        }
        // The resolution the file documents: commit what a completed checkpoint promised, roll back the rest.
        db.execute("COMMIT PREPARED '" + committed + "'");
        db.execute("ROLLBACK PREPARED '" + rolledBack + "'");
        assertThat(preparedLeft()).isEmpty();
        assertThat(rows()).isEqualTo(10);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE id >= 10"))
                .isZero();
    }

    /** Marker rows older than the retention are pruned by the committer; younger ones stay. */
    @Test
    void markersArePrunedAfterTheirRetention() throws Exception {
        StreamExecutionEnvironment env = env(2, 100);
        CheckpointPacedIds.ids(env, 3_000, 200)
                .sinkTo(FaultInjectingDatabase.wrap(sinkBuilder(sinkId, table)
                        .markerRetention(Duration.ofMillis(300))
                        .markerPruneInterval(Duration.ofMillis(100))
                        .build()));
        env.execute("pruning");
        assertExactlyOnce(3_000);
        // Paced by checkpoints, the job spans at least eight epochs with records per subtask, 100 ms
        // apart at least: the last commits prune every marker older than 300 ms, so fewer remain than
        // transactions were committed.
        long commits = Faults.hits(sinkId, Faults.Point.AFTER_COMMIT);
        long markers = db.count("SELECT count(*) FROM eosink_markers WHERE sink_id = ?", sinkId);
        assertThat(commits).isGreaterThan(4);
        assertThat(markers).isLessThan(commits);
        assertThat(db.count("SELECT count(*) FROM eosink_markers WHERE sink_id = ? AND checkpoint_id <= 2", sinkId))
                .as("markers of the first checkpoints are pruned")
                .isZero();
    }

    static Path repoFile(String relative) {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve(relative))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new AssertionError(
                    relative + " not found above " + Path.of("").toAbsolutePath());
        }
        return dir.resolve(relative);
    }
}
