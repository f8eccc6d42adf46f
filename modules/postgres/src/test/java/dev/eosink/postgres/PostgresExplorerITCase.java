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
        super(new PostgresBackend(), Duration.ofSeconds(90));
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
        Explorer.assertKeepsItsPromises(new PostgresBackend(), client, dir, "mode insert; start fresh p1 state=kept "
                + "jobid=new chaining=ON gate=chained leftover=FAIL rewind=WARN; progress 200; savepoint; start newest p2 "
                + "state=kept jobid=new chaining=ON gate=chained leftover=FAIL rewind=WARN; progress 200; checkpoint; "
                + "progress 200; savepoint; cancel; start snapshot#0 p2 state=kept jobid=new chaining=ON gate=chained "
                + "leftover=FAIL rewind=FAIL");
    }
}
