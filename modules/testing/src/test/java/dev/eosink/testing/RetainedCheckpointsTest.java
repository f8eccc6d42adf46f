/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RetainedCheckpointsTest {

    private static final int CHECKPOINTS = 500;
    private static final int RETAINED = 3;

    @TempDir
    Path dir;

    /**
     * Reads the directory over and over while a writer does what Flink's file system storage does at
     * every checkpoint: a new chk-N directory with state files, metadata written to an in-progress
     * file and renamed to _metadata, and the oldest retained checkpoint deleted. Every read sees only
     * completed checkpoints, in order, and never fails on a file that changed under it.
     */
    @Test
    void readsCompletedCheckpointsWhileTheJobWritesRenamesAndDeletes() throws Exception {
        Path job = Files.createDirectories(dir.resolve("0123456789abcdef0123456789abcdef"));
        Files.createDirectories(job.resolve("shared"));
        Files.createDirectories(job.resolve("taskowned"));
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                for (int n = 1; n <= CHECKPOINTS; n++) {
                    checkpoint(job, n);
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        long reads = 0;
        while (!writer.isDone()) {
            List<Path> completed = RetainedCheckpoints.completed(dir);
            List<Long> ids = new ArrayList<>();
            for (Path chk : completed) {
                assertThat(chk.getParent()).isEqualTo(job);
                ids.add(Long.parseLong(chk.getFileName().toString().substring(4)));
            }
            assertThat(ids).isSorted();
            RetainedCheckpoints.newest(dir);
            reads++;
        }
        writer.get(1, TimeUnit.SECONDS);
        assertThat(reads).as("reads while the writer ran").isPositive();
        List<Path> last = new ArrayList<>();
        for (int n = CHECKPOINTS - RETAINED + 1; n <= CHECKPOINTS; n++) {
            last.add(job.resolve("chk-" + n));
        }
        assertThat(RetainedCheckpoints.completed(dir)).containsExactlyElementsOf(last);
        assertThat(RetainedCheckpoints.newest(dir)).contains(job.resolve("chk-" + CHECKPOINTS));
    }

    @Test
    void aDirectoryWithoutCheckpointsHasNone() throws Exception {
        assertThat(RetainedCheckpoints.completed(dir)).isEmpty();
        assertThat(RetainedCheckpoints.newest(dir)).isEmpty();
        Files.createDirectories(dir.resolve("job").resolve("chk-1"));
        Files.writeString(dir.resolve("job").resolve("chk-1").resolve("._metadata.inprogress.x"), "m");
        assertThat(RetainedCheckpoints.completed(dir))
                .as("a checkpoint whose metadata is still being written")
                .isEmpty();
    }

    private static void checkpoint(Path job, int n) throws IOException {
        Path chk = Files.createDirectories(job.resolve("chk-" + n));
        Files.writeString(chk.resolve(UUID.randomUUID().toString()), "state");
        Path inProgress = Files.writeString(chk.resolve("._metadata.inprogress." + UUID.randomUUID()), "metadata");
        Files.move(inProgress, chk.resolve("_metadata"), StandardCopyOption.ATOMIC_MOVE);
        Path subsumed = job.resolve("chk-" + (n - RETAINED));
        if (Files.exists(subsumed)) {
            try (var files = Files.list(subsumed)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(subsumed);
        }
    }
}
