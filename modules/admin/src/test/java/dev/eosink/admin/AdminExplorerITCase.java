/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.postgres.PostgresBackend;
import dev.eosink.testing.explore.Explorer;
import dev.eosink.testing.explore.ExplorerSuite;
import dev.eosink.testing.explore.Resolver;
import dev.eosink.testing.hardcases.HardCaseBackend;
import dev.eosink.testing.hardcases.ResourceBackend;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * The explorer on PostgreSQL with the operator's tool as one more move: after a job ended by a stop or a
 * cancel, {@code eosink-admin resolve <its newest snapshot> --sink-id ID --apply}, as docs/operations.md
 * says to do for a dead job; later jobs then restore that snapshot or another, with or without the sink's
 * state, or start fresh, and the oracle judges the whole history as always. The tool must exit 0.
 */
class AdminExplorerITCase extends ExplorerSuite {

    AdminExplorerITCase() {
        super(new PostgresBackend(), Duration.ofSeconds(60), AdminExplorerITCase::resolver);
    }

    /**
     * What this suite found first: a savepoint taken at parallelism 1 and resolved after its job's cancel, a job
     * restored from it without the sink's state at parallelism 3 (its writers, in tasks with no state, name their
     * first transactions from checkpoint 1) and cancelled with transactions prepared, then the savepoint restored
     * with the sink's state at parallelism 2. Subtask 1 is new to the savepoint, gets no writer state, and refuses
     * the other run's transaction on its index (docs/guarantees.md, "A rescale up over another run's
     * transactions"); after the documented remedy the restore ends exact.
     */
    @Test
    void aResolvedSavepointRestoredAtAHigherParallelismOverARunWithoutTheSinksState(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        Explorer.assertKeepsItsPromises(
                new PostgresBackend(),
                client,
                dir,
                "mode insert; start fresh p1 state=kept "
                        + "jobid=new chaining=ON gate=apart leftover=FAIL rewind=FAIL; progress 192; savepoint; cancel; resolve; "
                        + "start newest p3 state=dropped jobid=fixed chaining=ON gate=apart leftover=FAIL rewind=WARN; progress 143; "
                        + "delay at=BEFORE_COMMIT ms=1241; progress 376; decline; cancel",
                AdminExplorerITCase::resolver);
    }

    /**
     * {@code eosink-admin resolve} in this JVM, against the server the explorer runs on; what a test pasted
     * from a report of this suite passes to {@code Explorer.assertKeepsItsPromises}.
     */
    static Resolver resolver(ResourceBackend backend) {
        HardCaseBackend database = (HardCaseBackend) backend;
        Properties login = database.connectionProperties();
        return (sinkId, snapshot) -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int exit;
            try (PrintStream printed = new PrintStream(out, true, StandardCharsets.UTF_8)) {
                exit = Admin.run(
                        new String[] {
                            "resolve",
                            snapshot.toString(),
                            "--sink-id",
                            sinkId,
                            "--apply",
                            "--url",
                            database.jdbcUrl(),
                            "--user",
                            login.getProperty("user")
                        },
                        printed,
                        printed,
                        Map.of("EOSINK_ADMIN_PASSWORD", login.getProperty("password", "")));
            }
            return new Resolver.Outcome(exit, out.toString(StandardCharsets.UTF_8));
        };
    }
}
