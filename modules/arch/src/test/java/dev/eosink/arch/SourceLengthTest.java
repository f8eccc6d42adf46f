/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.arch;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * No main source file of the modules that hold the sink's protocol, its databases and the events it replicates
 * ({@link #MODULES}) is longer than {@value #MAX_LINES} lines, license header included, counted as {@code wc -l}
 * counts them. A class that grows past it does more than one job: split it by job, each piece with a name a
 * maintainer would use and its invariant in its Javadoc (as {@code StartupRecovery} leaves its jobs to {@code
 * RewindCheck}, {@code StartWaits}, {@code CarriedCatchUp} and {@code StartRefusal}), never by squeezing
 * the code or dropping the comments that say why.
 *
 * <p>Reads the sources from the repository, not the compiled classes, which know nothing of a file's
 * length; and fails when it finds fewer than {@value #MIN_FILES} of them, so that it never passes by reading
 * nothing.
 */
class SourceLengthTest {

    static final int MAX_LINES = 450;

    /** Fewer sources than this: the modules were not found where the test looked. */
    static final int MIN_FILES = 100;

    private static final List<String> MODULES = List.of(
            "modules/core", "modules/jdbc", "modules/postgres", "modules/xa", "modules/cdc", "modules/replication");

    @Test
    void noMainSourceIsLongerThanTheLimit() throws IOException {
        Path root = repositoryRoot();
        List<String> tooLong = new ArrayList<>();
        int files = 0;
        for (String module : MODULES) {
            // src/main/java and the sources per Flink line (src/main/flink-*) alike.
            Path main = root.resolve(module).resolve("src/main");
            if (!Files.isDirectory(main)) {
                fail("no " + main + ": the test looks for the modules' sources under the repository root " + root);
            }
            List<Path> sources;
            try (Stream<Path> walk = Files.walk(main)) {
                sources = walk.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
                        .sorted()
                        .toList();
            }
            for (Path source : sources) {
                files++;
                long lines = lines(source);
                if (lines > MAX_LINES) {
                    tooLong.add(root.relativize(source) + ": " + lines + " lines");
                }
            }
        }
        if (files < MIN_FILES) {
            fail("found only " + files + " main sources in " + MODULES + " under " + root + ", expected at least "
                    + MIN_FILES + ": the test must read the modules' sources to check them");
        }
        if (!tooLong.isEmpty()) {
            fail("main sources longer than " + MAX_LINES + " lines (split each by job, see docs/architecture.md):\n  "
                    + String.join("\n  ", tooLong));
        }
    }

    /** The number of line feeds, as {@code wc -l} counts: a last line without one is not counted. */
    private static long lines(Path file) throws IOException {
        long count = 0;
        for (byte b : Files.readAllBytes(file)) {
            if (b == '\n') {
                count++;
            }
        }
        return count;
    }

    /** The directory with README.md and docs/: Maven runs this test in modules/arch, an IDE perhaps at the root. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no README.md with docs/ above " + Path.of("").toAbsolutePath());
    }
}
