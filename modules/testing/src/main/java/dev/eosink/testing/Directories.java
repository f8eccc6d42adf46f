/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Scratch directories of the fixtures and long tests (servers' data, clusters' logs). */
public final class Directories {

    private static final Logger LOG = LoggerFactory.getLogger(Directories.class);

    private Directories() {}

    /**
     * Deletes a directory and everything in it, best effort: what cannot be deleted is logged, never
     * thrown, since a leftover file must not fail a test that passed.
     */
    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}", dir, e);
        }
    }
}
