/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where the tests find the programs of Debian's packages they run (PgBouncer, Firebird 3): installed in the system,
 * or unpacked by the test command ({@code ./test}) into the directory named by {@link #VARIABLE}, laid out as the
 * packages are ({@code usr/sbin/pgbouncer}, {@code usr/lib/<arch>/firebird/3.0}, ...), with the libraries they need
 * that the machine lacks. When the variable is set, only that directory counts: an installed copy is never used
 * instead.
 */
public final class DebianPackages {

    /** The environment variable (or system property {@code eosink.test.packages}) naming the unpacked packages. */
    public static final String VARIABLE = "EOSINK_TEST_PACKAGES";

    private DebianPackages() {}

    /** The unpacked packages' directory, or {@code /} for the installed ones. */
    public static Path root() {
        String dir = System.getProperty("eosink.test.packages", System.getenv(VARIABLE));
        return dir == null || dir.isBlank() ? Path.of("/") : Path.of(dir).toAbsolutePath();
    }

    /** Whether the packages come from {@link #VARIABLE}'s directory rather than the system. */
    public static boolean unpacked() {
        return !root().equals(Path.of("/"));
    }

    /** {@code path} (absolute, as the package installs it: {@code /usr/sbin/pgbouncer}) where the tests find it. */
    public static Path file(String path) {
        return root().resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    /**
     * {@code path} with its symbolic links followed inside {@link #root()}: a link to an absolute path (Debian's
     * {@code /usr/lib/<arch>/firebird/3.0/plugins.conf -> /etc/firebird/3.0/plugins.conf}) leads into the unpacked
     * directory, not into the system.
     */
    public static Path followLinks(Path path) throws IOException {
        Path p = path;
        for (int hops = 0; Files.isSymbolicLink(p); hops++) {
            if (hops > 40) {
                throw new IOException("too many symbolic links: " + path);
            }
            Path target = Files.readSymbolicLink(p);
            p = target.isAbsolute()
                    ? file(target.toString())
                    : p.getParent().resolve(target).normalize();
        }
        return p;
    }

    /** The process environment a program of the packages needs: the unpacked libraries on its library path. */
    public static Map<String, String> environment() {
        if (!unpacked()) {
            return Map.of();
        }
        List<String> dirs = new ArrayList<>();
        for (String lib : List.of("usr/lib", "lib")) {
            Path parent = root().resolve(lib);
            if (!Files.isDirectory(parent)) {
                continue;
            }
            try (DirectoryStream<Path> arches = Files.newDirectoryStream(parent, "*-linux-gnu*")) {
                for (Path arch : arches) {
                    dirs.add(arch.toString());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        String inherited = System.getenv("LD_LIBRARY_PATH");
        if (inherited != null && !inherited.isEmpty()) {
            dirs.add(inherited);
        }
        return Map.of("LD_LIBRARY_PATH", String.join(":", dirs));
    }

    /** A {@link ProcessBuilder} of {@code command} with {@link #environment()}. */
    public static ProcessBuilder process(List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment());
        return builder;
    }

    /**
     * What a test says when {@code path} is missing: where it looked, and the remedy ({@code ./test} obtains the
     * package {@code debianPackage}).
     */
    public static String missing(Path path, String debianPackage) {
        return path + " is missing"
                + (unpacked() ? " from " + VARIABLE + "=" + root() : "")
                + ": run the tests with ./test, which obtains Debian's " + debianPackage
                + " package without root (or apt-get install " + debianPackage + ")";
    }
}
