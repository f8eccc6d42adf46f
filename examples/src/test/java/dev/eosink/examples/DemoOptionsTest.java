/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's command line as {@code ./demo} runs it: its own JVM, and the exit code it ends with. Asking for the
 * usage is no error (exit 0, the usage on standard output); a wrong option is (exit 2, the error and the usage on
 * standard error). Nothing runs in either case.
 */
class DemoOptionsTest {

    /** What one run of the demo's main printed, and its exit code. */
    private record Exit(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private static Exit demo(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Demo.class.getName()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("demo-out", ".txt");
        Path err = Files.createTempFile("demo-err", ".txt");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS))
                    .as("the demo's main ends by itself")
                    .isTrue();
            return new Exit(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Test
    void helpPrintsTheUsageAndExitsWithZero() throws Exception {
        for (String help : List.of("--help", "-h")) {
            Exit exit = demo(help);
            assertThat(exit.code()).as("%s", exit).isZero();
            assertThat(exit.out()).as("%s", exit).startsWith("usage: demo").contains("--postgres-url");
            assertThat(exit.err()).as("%s", exit).doesNotContain("error:");
        }
    }

    @Test
    void aWrongOptionExitsWithTwoNamingIt() throws Exception {
        Exit exit = demo("--no-such-option");
        assertThat(exit.code()).as("%s", exit).isEqualTo(2);
        assertThat(exit.err())
                .as("%s", exit)
                .contains("error: unknown argument: --no-such-option")
                .contains("usage: demo");
    }
}
