/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One committer subtask's session on a file sink's directory: a commit moves the transaction's file
 * from {@code pending/} into {@code committed/}, atomically and durably, and the committed file is the
 * marker that proves it afterwards. Holds nothing open: any committer may commit any transaction.
 */
final class FileCommitSession implements CommitSession {

    private final SubtaskContext context;
    private final SinkDirectory directory;

    FileCommitSession(SubtaskContext context, SinkDirectory directory) {
        this.context = context;
        this.directory = directory;
    }

    /**
     * Moves the pending file into {@code committed/}. {@link Attempt#NOT_FOUND NOT_FOUND} when no pending
     * file has that name: committed before (the protocol then finds the committed file by {@link
     * #isMarked}: "already committed"), or rolled back by someone else (no committed file: LOST). A
     * file that vanishes between the look and the move was taken by another session: also NOT_FOUND,
     * and the marker decides.
     */
    @Override
    public Attempt commit(TransactionId id) throws IOException {
        Path pending = directory.pending(id);
        if (!Files.exists(pending)) {
            return Attempt.NOT_FOUND;
        }
        try {
            Durably.move(pending, directory.committed(id));
            return Attempt.COMMITTED;
        } catch (NoSuchFileException gone) {
            return Attempt.NOT_FOUND;
        } catch (IOException e) {
            throw new SinkException(
                    context + ": could not commit " + id + " (checkpoint " + id.checkpointId()
                            + ", written by subtask " + id.subtask() + ") in directory " + directory + ": moving "
                            + pending
                            + " into " + directory.committed(id).getParent() + " failed: " + e.getMessage()
                            + ". The restarted "
                            + "task commits it again. Remedy: check the disk (permissions, space)",
                    e);
        }
    }

    /** The committed file is the marker: present exactly when the transaction committed. */
    @Override
    public boolean isMarked(TransactionId id) {
        return Files.exists(directory.committed(id));
    }

    /**
     * Prunes nothing, returns 0: the marker is the committed data itself, and deleting it would delete
     * the records. Whoever consumes the committed files owns their lifetime; the sink only needs a
     * file to stay while a checkpoint that names its transaction may still be restored.
     */
    @Override
    public long pruneMarkers(Duration retention) {
        return 0;
    }

    @Override
    public void close() {}
}
