/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The temporary directory a suite of file sink hard cases keeps each test's files under. */
final class TemporaryRoot {

    private TemporaryRoot() {}

    static Path create() {
        try {
            return Files.createTempDirectory("eosink-file-hard-cases");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
