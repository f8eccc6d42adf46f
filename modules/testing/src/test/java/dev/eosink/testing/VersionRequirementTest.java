/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VersionRequirementTest {

    @Test
    void unsetOrBlankAsksForNothing() {
        assertThat(VersionRequirement.of("S", null)).isEmpty();
        assertThat(VersionRequirement.of("S", "")).isEmpty();
        assertThat(VersionRequirement.of("S", "  ")).isEmpty();
    }

    @Test
    void aMajorAcceptsEveryReleaseOfIt() {
        VersionRequirement fourteen = VersionRequirement.of("S", "14").orElseThrow();
        assertThat(fourteen.accepts("14.20")).isTrue();
        assertThat(fourteen.accepts("14.20 (Debian 14.20-1.pgdg120+1)")).isTrue();
        assertThat(fourteen.accepts("14")).isTrue();
        assertThat(fourteen.accepts("17.6")).isFalse();
        assertThat(fourteen.accepts("140.1")).isFalse();
        assertThat(fourteen.accepts("1.4")).isFalse();
        assertThat(fourteen.accepts("(unreachable: connection refused)")).isFalse();
        assertThat(fourteen.accepts(null)).isFalse();
    }

    @Test
    void aMajorAndMinorAcceptOnlyThatMinor() {
        VersionRequirement lts = VersionRequirement.of("S", " 10.11 ").orElseThrow();
        assertThat(lts.accepts("10.11.14-MariaDB-0+deb12u2")).isTrue();
        assertThat(lts.accepts("10.11")).isTrue();
        assertThat(lts.accepts("10.1.48-MariaDB")).isFalse();
        assertThat(lts.accepts("10")).isFalse();
        assertThat(lts.accepts("11.4.5-MariaDB")).isFalse();
        assertThat(lts).hasToString("10.11");
    }

    @Test
    void anotherVersionFailsWithWhatWasAskedAndWhatStarted() {
        VersionRequirement sixteen =
                VersionRequirement.of("EOSINK_TEST_POSTGRES_VERSION", "16").orElseThrow();
        sixteen.check("PostgreSQL", "16.10", "server", "remedy");
        assertThatThrownBy(() -> sixteen.check("PostgreSQL", "17.6", "embedded at localhost:5432", "Build with X."))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("PostgreSQL 16 was asked for (EOSINK_TEST_POSTGRES_VERSION=16), but the server that started"
                        + " is PostgreSQL 17.6: embedded at localhost:5432. Build with X.");
    }

    @Test
    void notAVersionIsRejected() {
        assertThatThrownBy(() -> VersionRequirement.of("EOSINK_TEST_POSTGRES_VERSION", "latest"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("EOSINK_TEST_POSTGRES_VERSION must be a version such as 14 or 10.11");
    }
}
