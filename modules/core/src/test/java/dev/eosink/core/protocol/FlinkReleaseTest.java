/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Which Flink releases a writer refuses to run on: those before its line's oldest supported patch release. */
class FlinkReleaseTest {

    @ParameterizedTest
    @ValueSource(strings = {"1.20.0", "1.20.1", "2.0.0"})
    void releasesBeforeTheirLinesOldestSupportedOneAreRefusedNamingItAndTheRemedy(String version) {
        String line = version.substring(0, version.lastIndexOf('.'));
        assertThat(FlinkRelease.refusal(version))
                .hasValueSatisfying(why -> assertThat(why)
                        .contains("runs Flink " + version + ", older than the oldest patch release of the " + line
                                + " line")
                        .contains("docs/flink-versions.md")
                        .contains("Remedy: run the job on Flink " + line + "."));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "1.20.2",
                "1.20.3",
                "1.20.5",
                "1.20.10",
                "2.0.1",
                "2.0.2",
                "2.1.0",
                "2.1.3",
                "2.2.0",
                "2.2.1",
                "2.3.0",
                "2.4.0",
                "<unknown>",
                "1.20-SNAPSHOT",
                ""
            })
    void supportedUnlistedAndUnreadableReleasesRun(String version) {
        assertThat(FlinkRelease.refusal(version)).isEmpty();
    }

    @Test
    void theOldestOfThe120LineIs1202() {
        assertThat(FlinkRelease.refusal("1.20.1"))
                .hasValueSatisfying(
                        why -> assertThat(why).contains(", 1.20.2: ").contains("Received element after endOfInput"));
    }
}
