/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.explore.Explorer;
import dev.eosink.testing.explore.ExplorerSuite;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

/** The explorer ({@link ExplorerSuite}) against PostgreSQL's own two-phase commit, and what it found. */
class PostgresExplorerITCase extends ExplorerSuite {

    PostgresExplorerITCase() {
        super(new PostgresBackend(), Duration.ofSeconds(60));
    }

    /**
     * A refused rewind after a rescale up: S0 taken at parallelism 1, a run restored from it at 2 commits a
     * checkpoint and takes a plain savepoint S1 (its transactions stay prepared), then S0 is restored at 2 under
     * rewindPolicy(FAIL). Subtask 0 refuses the rewind; subtask 1, new to S0, has no writer state to check it
     * with, and rolled back S1's transaction on its index (named after S0) before the refusal ended the job:
     * the refusal's remedy, restoring S1, would then report it LOST. Such a subtask now waits for the subtasks
     * that can check before it rolls back what a later snapshot may have promised.
     */
    @Test
    void aRefusedRewindAtAHigherParallelismLeavesTheNewerSavepointsTransactionsOnNewIndices(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        Explorer.assertKeepsItsPromises(
                new PostgresBackend(),
                client,
                dir,
                "mode insert; start fresh p1 state=kept "
                        + "jobid=new chaining=ON gate=chained leftover=FAIL rewind=WARN; progress 200; savepoint; start newest p2 "
                        + "state=kept jobid=new chaining=ON gate=chained leftover=FAIL rewind=WARN; progress 200; checkpoint; "
                        + "progress 200; savepoint; cancel; start snapshot#0 p2 state=kept jobid=new chaining=ON gate=chained "
                        + "leftover=FAIL rewind=FAIL");
    }

    /**
     * A rewind across lines of history in an upsert table: S0 taken at record 1,300, then a fresh run of the sink
     * id re-inserts keys from the first record on and stops; S0 is restored. The fresh run's keys whose last record
     * (their delete) comes before S0 are never written again, so they keep its value: announced by the sink, whose
     * rewind check sees the fresh run's commits by their execution though their checkpoint numbers are no higher
     * than S0's, and allowed by the oracle as that rewind's leftovers; under FAIL, the restore is refused.
     */
    @Test
    void aRewindAcrossLinesLeavesTheOtherLinesKeysAndIsAnnounced(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        String steps = "mode changelog; start fresh p1 state=kept jobid=new chaining=ON gate=chained leftover=FAIL "
                + "rewind=WARN; progress 1300; stop drain=false; start fresh p1 state=kept jobid=new chaining=ON "
                + "gate=chained leftover=FAIL rewind=WARN; progress 450; stop drain=false; start snapshot#0 p1 state=kept "
                + "jobid=new chaining=ON gate=chained leftover=FAIL rewind=";
        Explorer.assertKeepsItsPromises(new PostgresBackend(), client, dir.resolve("warn"), steps + "WARN");
        Explorer.assertKeepsItsPromises(new PostgresBackend(), client, dir.resolve("fail"), steps + "FAIL");
    }

    /**
     * A rewind across lines refused at a higher parallelism: S0 (p1, checkpoint 3) taken by a stop; a fresh run at
     * p2 commits its checkpoints 1 to 3, takes a plain savepoint (checkpoint 4, prepared on both indices) and is
     * cancelled; S0 restored at p2 under rewindPolicy(FAIL). Subtask 0 refuses (the fresh run's commits, by
     * another execution); subtask 1, new to S0, cannot check, and took the missing commits after checkpoint 3 for
     * proof of no rewind: it rolled back the fresh run's index-1 transaction, which its savepoint promised. It now
     * waits for the subtasks that can check whenever it would roll back another execution's later transactions.
     */
    @Test
    void aRefusedRewindAcrossLinesAtAHigherParallelismLeavesTheOtherLinesSavepointIntact(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        Explorer.assertKeepsItsPromises(
                new PostgresBackend(),
                client,
                dir,
                "mode insert; start fresh p1 state=kept "
                        + "jobid=new chaining=ON gate=chained leftover=FAIL rewind=WARN; progress 200; checkpoint; progress 200; "
                        + "checkpoint; progress 200; stop drain=false; start fresh p2 state=kept jobid=new chaining=ON "
                        + "gate=chained leftover=FAIL rewind=WARN; progress 150; checkpoint; progress 150; checkpoint; progress "
                        + "150; checkpoint; progress 150; savepoint; cancel; start snapshot#0 p2 state=kept jobid=new "
                        + "chaining=ON gate=chained leftover=FAIL rewind=FAIL");
    }
}
