/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;

/**
 * What an exploration runs, from system properties (which {@code ./explore} and Maven pass on):
 * {@code explore.minutes} (the budget; each suite has its own for CI), {@code explore.seed} (the run's
 * seed, from which every scenario's is drawn; by default the commit checked out, so that CI explores
 * other scenarios at every commit and a run on the same commit explores the same), {@code
 * explore.replay} (the text of one scenario to run instead), {@code explore.shrink} (runs the shrinker
 * may spend on a violation).
 */
final class ExploreSettings {

    private static final Map<String, String> BACKEND_OPTIONS = Map.of(
            "PostgreSQL",
            "postgres",
            "MariaDB (XA)",
            "xa-mariadb",
            "PostgreSQL (XA)",
            "xa-postgres",
            "files",
            "file",
            "PostgreSQL with eosink-admin",
            "admin");

    private ExploreSettings() {}

    static Duration budget(Duration ciDefault) {
        String minutes = System.getProperty("explore.minutes", "");
        return minutes.isBlank() ? ciDefault : Duration.ofSeconds(Math.round(Double.parseDouble(minutes) * 60));
    }

    static Optional<String> replay() {
        String text = System.getProperty("explore.replay", "");
        return text.isBlank() ? Optional.empty() : Optional.of(text);
    }

    static int shrinkAttempts(int ciDefault) {
        String attempts = System.getProperty("explore.shrink", "");
        return attempts.isBlank() ? ciDefault : Integer.parseInt(attempts);
    }

    /** The run's seed: explore.seed if given, else drawn from the commit checked out (else from the date). */
    static long seed() {
        String given = System.getProperty("explore.seed", "");
        if (!given.isBlank()) {
            return Long.parseUnsignedLong(given, 36);
        }
        return commit().map(c -> Long.parseUnsignedLong(c.substring(0, 12), 16))
                .orElse((long) LocalDate.now().hashCode());
    }

    /** The seed of the {@code n}-th scenario of a run. */
    static long scenarioSeed(long runSeed, int n) {
        long z = runSeed + 0x9E3779B97F4A7C15L * (n + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static String backendOption(String backendName) {
        return BACKEND_OPTIONS.getOrDefault(backendName, backendName);
    }

    private static Optional<String> commit() {
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "HEAD")
                    .redirectErrorStream(true)
                    .start();
            try (InputStream in = git.getInputStream()) {
                String out = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
                return git.waitFor() == 0 && out.matches("[0-9a-f]{40}") ? Optional.of(out) : Optional.empty();
            }
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
