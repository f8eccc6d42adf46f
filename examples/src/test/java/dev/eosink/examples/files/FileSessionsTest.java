/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.CommitSession.Attempt;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The file sink's sessions on a temporary directory, without Flink: what each SPI method does to the
 * files, and the answers the protocol relies on (idempotent commits, NOT_FOUND decided by the committed
 * file, the guard held across sessions).
 */
class FileSessionsTest {

    private static final String SINK = "files-unit";

    @TempDir
    Path dir;

    private static SubtaskContext context(int subtask, int attempt) {
        return new SubtaskContext(SINK, subtask, 2, attempt, new JobRun("job-1", OptionalLong.empty()));
    }

    private static TransactionId id(int subtask, long checkpoint) {
        return new TransactionId(SINK, subtask, checkpoint, "abcd0000");
    }

    private FileTransactions<Long> database() {
        return new FileTransactions<>(dir, record -> Long.toString(record));
    }

    /** Writes ids {@code from..to-1} as the epoch of {@code id} and prepares it. */
    private static void epoch(WriterSession<Long> session, TransactionId id, long from, long to) throws Exception {
        session.epoch().begin(id);
        for (long i = from; i < to; i++) {
            session.epoch().write(i, i - from);
        }
        session.epoch().flush();
        session.epoch().prepare(id, to - from);
    }

    @Test
    void prepareMovesADurableFileIntoPendingAndCommitMovesItIntoCommittedOnce() throws Exception {
        FileTransactions<Long> db = database();
        TransactionId id = id(0, 3);
        SinkDirectory layout = new SinkDirectory(dir);
        try (WriterSession<Long> writer = db.openWriter(context(0, 0));
                CommitSession committer = db.openCommitter(context(0, 0))) {
            writer.recovery().claim(0, 0);
            long before = System.currentTimeMillis();
            writer.epoch().begin(id);
            writer.epoch().write(1L, 0);
            writer.epoch().write(2L, 1);
            assertThat(layout.inProgress(id)).as("the open epoch").exists();
            writer.epoch().flush();
            writer.epoch().prepare(id, 2);
            assertThat(layout.inProgress(id)).doesNotExist();
            assertThat(Files.readAllLines(layout.pending(id))).containsExactly("1", "2");
            assertThat(Files.getLastModifiedTime(layout.pending(id)).toMillis())
                    .as("dated by the epoch's start")
                    .isBetween(before, System.currentTimeMillis());
            assertThat(writer.recovery().listPrepared()).containsExactly(id);
            assertThat(committer.isMarked(id)).isFalse();

            assertThat(committer.commit(id)).isEqualTo(Attempt.COMMITTED);
            assertThat(layout.pending(id)).doesNotExist();
            assertThat(Files.readAllLines(layout.committed(id))).containsExactly("1", "2");
            assertThat(writer.recovery().listPrepared()).isEmpty();

            // Committed before: not found, and the committed file proves it ("already committed").
            assertThat(committer.commit(id)).isEqualTo(Attempt.NOT_FOUND);
            assertThat(committer.isMarked(id)).isTrue();
            assertThat(Files.readAllLines(layout.committed(id)))
                    .as("written once")
                    .containsExactly("1", "2");
            assertThat(committer.pruneMarkers(Duration.ZERO))
                    .as("the marker is the data: never pruned")
                    .isZero();
            assertThat(layout.committed(id)).exists();
        }
    }

    @Test
    void rollbackDeletesThePendingFileAndACommitAfterItIsNotFoundWithoutMarker() throws Exception {
        FileTransactions<Long> db = database();
        TransactionId id = id(0, 4);
        try (WriterSession<Long> writer = db.openWriter(context(0, 0));
                CommitSession committer = db.openCommitter(context(0, 0))) {
            writer.recovery().claim(0, 0);
            epoch(writer, id, 0, 10);
            writer.recovery().rollbackPrepared(id);
            writer.recovery().rollbackPrepared(id); // gone already: not an error
            assertThat(writer.recovery().listPrepared()).isEmpty();
            assertThat(committer.commit(id)).isEqualTo(Attempt.NOT_FOUND);
            assertThat(committer.isMarked(id))
                    .as("rolled back: no committed file, so the protocol calls it LOST")
                    .isFalse();
        }
    }

    @Test
    void listPreparedListsThisSinksPendingFilesOfEverySubtaskAndRunOnly() throws Exception {
        FileTransactions<Long> db = database();
        SinkDirectory layout = new SinkDirectory(dir);
        layout.create();
        TransactionId otherSubtask = new TransactionId(SINK, 3, 2, "zzzz1111");
        TransactionId otherSink = new TransactionId(SINK + "-b", 0, 2, "zzzz1111");
        for (TransactionId id : List.of(otherSubtask, otherSink)) {
            Files.writeString(layout.pending(id), "7\n");
        }
        Files.writeString(layout.base().resolve(SinkDirectory.PENDING).resolve("notes.txt"), "not a transaction");
        try (WriterSession<Long> writer = db.openWriter(context(0, 0))) {
            writer.recovery().claim(0, 0);
            epoch(writer, id(0, 5), 0, 1);
            assertThat(writer.recovery().listPrepared()).as("in name order").containsExactly(id(0, 5), otherSubtask);
        }
    }

    @Test
    void theGuardIsHeldAcrossSessionsUntilTheHolderCloses() throws Exception {
        FileTransactions<Long> db = database();
        Path lock = new SinkDirectory(dir).lock(SINK, 0);
        WriterSession<Long> first = db.openWriter(context(0, 0));
        first.recovery().claim(0, 0);
        first.recovery().claim(0, 0); // again by its holder: a no-op
        assertThat(OwnershipLocks.heldInThisJvm(dir, SINK)).isEqualTo(1);
        try (WriterSession<Long> second = db.openWriter(context(0, 1))) {
            assertThatThrownBy(() -> second.recovery().claim(0, 200))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining(
                            "another live session holds the ownership guard of sink id '" + SINK + "' subtask 0")
                    .hasMessageContaining("lock file " + lock)
                    .hasMessageContaining("sink '" + SINK + "' subtask 0/2 (attempt 0)")
                    .hasMessageContaining("a session of an earlier attempt of this job"); // the same job: going away
            second.recovery().claim(1, 0); // another index is free
            first.close();
            second.recovery().claim(0, 0);
            assertThat(OwnershipLocks.heldInThisJvm(dir, SINK)).isEqualTo(2);
            second.recovery().release(1);
            assertThat(OwnershipLocks.heldInThisJvm(dir, SINK)).isEqualTo(1);
        }
        assertThat(OwnershipLocks.heldInThisJvm(dir, SINK)).isZero();
    }

    /**
     * Whose session holds the guard decides whether a restart can help: a session of another execution (a
     * second job) is refused for good, one of an earlier attempt of the same execution fails the task as a
     * holder going away does, and the restarted one waits again.
     */
    @Test
    void aGuardHeldByAnotherExecutionIsRefusedForGood() throws Exception {
        FileTransactions<Long> db = database();
        try (WriterSession<Long> first = db.openWriter(context(0, 0))) {
            first.recovery().claim(0, 0);
            SubtaskContext otherJob = new SubtaskContext(SINK, 0, 2, 0, new JobRun("job-2", OptionalLong.empty()));
            try (WriterSession<Long> second = db.openWriter(otherJob)) {
                assertThatThrownBy(() -> second.recovery().claim(0, 100))
                        .isInstanceOf(MisconfigurationException.class)
                        .hasMessageContaining(
                                "another live session holds the ownership guard of sink id '" + SINK + "' subtask 0")
                        .hasMessageContaining("a session of another execution")
                        .hasMessageContaining("Remedy: stop the other job, or give this sink a different sink id");
            }
            try (WriterSession<Long> restarted = db.openWriter(context(0, 1))) {
                assertThatThrownBy(() -> restarted.recovery().claim(0, 100))
                        .isInstanceOf(SinkException.class)
                        .isNotInstanceOf(MisconfigurationException.class)
                        .hasMessageContaining("a session of an earlier attempt of this job");
            }
        }
    }

    /**
     * A lock this JVM holds through another channel (a session of another class loader, another job on
     * a session cluster): the JVM refuses a second lock with OverlappingFileLockException, which counts
     * as held.
     */
    @Test
    void aLockHeldInThisJvmOutsideTheSessionsCountsAsHeld() throws Exception {
        FileTransactions<Long> db = database();
        SinkDirectory layout = new SinkDirectory(dir);
        layout.create();
        try (FileChannel channel =
                        FileChannel.open(layout.lock(SINK, 0), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = channel.lock();
                WriterSession<Long> session = db.openWriter(context(0, 0))) {
            assertThat(held.isValid()).isTrue();
            assertThatThrownBy(() -> session.recovery().claim(0, 100))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("another live session holds the ownership guard");
        }
    }

    @Test
    void abortAndCloseDeleteTheOpenEpochAndAClaimDeletesWhatADeadAttemptLeft() throws Exception {
        FileTransactions<Long> db = database();
        SinkDirectory layout = new SinkDirectory(dir);
        TransactionId aborted = id(0, 6);
        TransactionId dead = new TransactionId(SINK, 0, 6, "dead0000");
        TransactionId otherSubtask = new TransactionId(SINK, 1, 6, "live0000");
        try (WriterSession<Long> writer = db.openWriter(context(0, 0))) {
            writer.epoch().begin(aborted);
            writer.epoch().write(1L, 0);
            writer.epoch().abortOpen();
            assertThat(layout.inProgress(aborted)).doesNotExist();

            Files.writeString(layout.inProgress(dead), "1\n");
            Files.writeString(layout.inProgress(otherSubtask), "1\n");
            writer.recovery().claim(0, 0);
            assertThat(layout.inProgress(dead)).as("an attempt that is gone").doesNotExist();
            assertThat(layout.inProgress(otherSubtask))
                    .as("another subtask's open epoch")
                    .exists();

            writer.epoch().begin(id(0, 7));
            writer.epoch().write(1L, 0);
        }
        assertThat(layout.inProgress(id(0, 7))).as("deleted on close").doesNotExist();
        assertThat(layout.list(SinkDirectory.PENDING, SINK)).isEmpty();
    }

    @Test
    void committedAfterCountsTheCommittedFilesOfLaterCheckpointsWhoseEpochBeganSince() throws Exception {
        FileTransactions<Long> db = database();
        try (WriterSession<Long> writer = db.openWriter(context(0, 0));
                CommitSession committer = db.openCommitter(context(0, 0))) {
            writer.recovery().claim(0, 0);
            epoch(writer, id(0, 2), 0, 3);
            committer.commit(id(0, 2));
            long since = System.currentTimeMillis();
            Thread.sleep(5);
            epoch(writer, id(0, 3), 3, 5);
            committer.commit(id(0, 3));
            epoch(writer, id(0, 4), 5, 10);
            committer.commit(id(0, 4));
            epoch(writer, id(0, 5), 10, 11); // prepared, not committed

            assertThat(writer.recovery().committedAfter(2, since, Optional.empty()))
                    .contains(new Committed(2, 7, 3, 4));
            assertThat(writer.recovery().committedAfter(1, 0, Optional.empty())).contains(new Committed(3, 10, 2, 4));
            assertThat(writer.recovery().committedAfter(4, 0, Optional.empty())).isEqualTo(Optional.empty());
            // Named by the execution that took checkpoint 4, nothing is later; by another, all of it is.
            String own = id(0, 4).executionTag();
            assertThat(writer.recovery().committedAfter(4, 0, Optional.of(own))).isEqualTo(Optional.empty());
            assertThat(writer.recovery().committedAfter(4, 0, Optional.of("zzzzzzzz")))
                    .contains(new Committed(3, 10, 2, 4));
        }
    }

    @Test
    void aLineWithALineBreakIsRefusedNamingTheRecord() throws Exception {
        FileTransactions<String> db = new FileTransactions<>(dir, record -> record);
        try (WriterSession<String> writer = db.openWriter(context(0, 0))) {
            writer.epoch().begin(id(0, 8));
            writer.epoch().write("fine", 0);
            assertThatThrownBy(() -> writer.epoch().write("two\nlines", 1))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("record 1 of the epoch of checkpoint 8")
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("Remedy");
        }
    }

    @Test
    void movesAndDeletesAreDurable() throws Exception {
        Path a = Files.createDirectory(dir.resolve("a"));
        Path b = Files.createDirectory(dir.resolve("b"));
        Path file = Files.writeString(a.resolve("f.txt"), "x\n", StandardCharsets.UTF_8);
        Durably.forceDirectory(a);
        Durably.move(file, b.resolve("f.txt"));
        assertThat(b.resolve("f.txt")).hasContent("x");
        assertThat(file).doesNotExist();
        assertThatThrownBy(() -> Durably.move(file, b.resolve("g.txt")))
                .isInstanceOf(java.nio.file.NoSuchFileException.class);
        assertThat(Durably.delete(b.resolve("f.txt"))).isTrue();
        assertThat(Durably.delete(b.resolve("f.txt"))).isFalse();
    }
}
