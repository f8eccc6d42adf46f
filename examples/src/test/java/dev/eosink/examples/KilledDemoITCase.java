/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo as a separate JVM, killed with SIGKILL twice at random moments and resumed each time from
 * its latest retained checkpoint: the final table is exact, with no prepared transaction left.
 *
 * <p>The demo is paced by checkpoints ({@code --per-checkpoint}): the job takes {@value #EVENTS} / {@value
 * #PER_CHECKPOINT} checkpoints, and each kill comes 1 to 3 retained checkpoints after the run's first, so
 * each run is killed while it still runs, on a slow machine as on a fast one.
 */
class KilledDemoITCase {

    private static final long EVENTS = 80_000;
    /** 80 checkpoints for all the orders, 300 ms apart at the least. */
    private static final int PER_CHECKPOINT = 1_000;

    @TempDir
    Path dir;

    private final PostgresFixture db = PostgresFixture.get();
    private final Random random = new Random();

    @Test
    void killedTwiceAndResumedEndsExact() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        String table = "killed_totals";
        String sinkId = "killed-demo";

        Process first = start(List.of(), checkpoints, table, sinkId, "run-1.log");
        Path firstCheckpoint = killAfterACheckpoint(first, checkpoints, Optional.empty());

        Process second = start(List.of("--resume"), checkpoints, table, sinkId, "run-2.log");
        killAfterACheckpoint(second, checkpoints, Optional.of(firstCheckpoint));

        Process third = start(List.of("--resume"), checkpoints, table, sinkId, "run-3.log");
        assertThat(third.waitFor(240, TimeUnit.SECONDS))
                .as("third run finishes")
                .isTrue();
        String log = Files.readString(dir.resolve("run-3.log"));
        assertThat(third.exitValue())
                .as("exit code of the resumed run; its output:%n%s", log)
                .isZero();
        assertThat(log).contains("restoring").contains("=> EXACT");

        try (Connection c = db.connect()) {
            Verdict v = Verdict.check(c, "windows", table, sinkId, OrderGenerator.defaults(), EVENTS);
            Verdicts.assertExact(v);
        }
    }

    /**
     * Waits for a retained checkpoint newer than {@code after}, then for 0 to 2 more, then a random moment
     * within a checkpoint interval, then SIGKILL.
     */
    private Path killAfterACheckpoint(Process p, Path checkpoints, Optional<Path> after) throws Exception {
        Path first = awaitCheckpointAfter(p, checkpoints, after);
        Path latest = first;
        for (int more = random.nextInt(3); more > 0; more--) {
            latest = awaitCheckpointAfter(p, checkpoints, Optional.of(latest));
        }
        Thread.sleep(random.nextInt(300));
        assertThat(p.isAlive())
                .as("still running when killed (a kill must interrupt it)")
                .isTrue();
        p.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup, connections dropped by the kernel
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(137);
        return Demo.latestCheckpoint(checkpoints).orElseThrow();
    }

    /** The newest retained checkpoint once there is one other than {@code after}. */
    private static Path awaitCheckpointAfter(Process p, Path checkpoints, Optional<Path> after) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Optional<Path> latest;
        while ((latest = Demo.latestCheckpoint(checkpoints)).isEmpty() || latest.equals(after)) {
            assertThat(p.isAlive())
                    .as("the demo died before its next checkpoint")
                    .isTrue();
            assertThat(System.nanoTime()).as("a checkpoint within 120 s").isLessThan(deadline);
            Thread.sleep(20);
        }
        return latest.get();
    }

    private Process start(List<String> extra, Path checkpoints, String table, String sinkId, String logName)
            throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Demo.class.getName());
        cmd.addAll(List.of(
                "--job",
                "windows",
                "--postgres-url",
                db.jdbcUrl(),
                "--user",
                db.user(),
                "--events",
                Long.toString(EVENTS),
                "--per-checkpoint",
                Integer.toString(PER_CHECKPOINT),
                "--chaos",
                "off",
                "--table",
                table,
                "--sink-id",
                sinkId,
                "--checkpoint-dir",
                checkpoints.toString(),
                "-Dexecution.checkpointing.interval=300ms"));
        cmd.addAll(extra);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("EOSINK_DEMO_PASSWORD", db.password() == null ? "" : db.password());
        pb.redirectErrorStream(true);
        pb.redirectOutput(dir.resolve(logName).toFile());
        return pb.start();
    }
}
