/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The file system operations a transaction's outcome rests on, each durable when it returns. A rename
 * is atomic (readers see the old name or the new one, never half a file), but it is durable only once
 * the directory that holds the new name is flushed: without that, a power loss after a commit could
 * bring back the pending file and lose the committed one, and the marker would lie.
 */
final class Durably {

    private Durably() {}

    /** Flushes a directory's entries (the names created, moved or deleted in it) to the disk. */
    static void forceDirectory(Path dir) throws IOException {
        // Linux and macOS open a directory for reading and fsync it; Windows cannot open one, and its
        // file system journals renames itself.
        if (System.getProperty("os.name", "").startsWith("Windows")) {
            return;
        }
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * Moves {@code from} to {@code to} atomically (ATOMIC_MOVE: one rename, same file system), then
     * flushes the target directory and, if another, the source directory.
     *
     * @throws java.nio.file.NoSuchFileException when {@code from} is gone (another session moved or
     *     deleted it): the caller decides what that means
     */
    static void move(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        forceDirectory(to.getParent());
        if (!from.getParent().equals(to.getParent())) {
            forceDirectory(from.getParent());
        }
    }

    /** Deletes {@code file} if it exists and flushes its directory; whether it existed. */
    static boolean delete(Path file) throws IOException {
        boolean existed = Files.deleteIfExists(file);
        if (existed) {
            forceDirectory(file.getParent());
        }
        return existed;
    }
}
