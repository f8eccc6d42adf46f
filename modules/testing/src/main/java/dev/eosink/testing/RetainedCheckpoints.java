/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The completed checkpoints under a checkpoint directory ({@code <dir>/<job id>/chk-N/_metadata}),
 * read while the job still writes there.
 *
 * <p>Flink changes the directory under a reader at every checkpoint: it creates {@code chk-N}, writes
 * the metadata to an in-progress file and renames it to {@code _metadata}, and deletes the directories
 * of subsumed checkpoints. So this never asks for the attributes of an entry it listed (a
 * {@code Files.walk} does, and fails with {@code NoSuchFileException} when the entry was renamed or
 * deleted meanwhile): it lists names, skips a directory that is gone by the time it is opened, and
 * takes a checkpoint as completed when its {@code _metadata} exists, which Flink's rename makes
 * atomic.
 */
public final class RetainedCheckpoints {

    private static final Pattern CHECKPOINT = Pattern.compile("chk-\\d+");

    private RetainedCheckpoints() {}

    /**
     * The {@code chk-N} directories of every job under {@code checkpoints} that hold a {@code _metadata}
     * file, by N, oldest first. A checkpoint listed here may be deleted by the job right after, once a
     * later one subsumes it; the newest one stays until the job completes another.
     */
    public static List<Path> completed(Path checkpoints) throws IOException {
        List<Path> completed = new ArrayList<>();
        for (Path job : entries(checkpoints)) {
            for (Path chk : entries(job)) {
                if (CHECKPOINT.matcher(chk.getFileName().toString()).matches()
                        && Files.isRegularFile(chk.resolve("_metadata"))) {
                    completed.add(chk);
                }
            }
        }
        completed.sort(Comparator.comparingLong(RetainedCheckpoints::number));
        return completed;
    }

    /** The newest completed checkpoint under {@code checkpoints}, if there is one yet. */
    public static Optional<Path> newest(Path checkpoints) throws IOException {
        List<Path> all = completed(checkpoints);
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** The N of a chk-N directory. */
    public static long number(Path checkpoint) {
        return Long.parseLong(checkpoint.getFileName().toString().substring("chk-".length()));
    }

    /** The entries of {@code dir}; none when it is gone, or is a file. */
    private static List<Path> entries(Path dir) throws IOException {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path entry : stream) {
                entries.add(entry);
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            // deleted (a subsumed checkpoint) since its parent was listed, or never a directory
        } catch (DirectoryIteratorException e) {
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e.getCause();
            }
        }
        return entries;
    }
}
