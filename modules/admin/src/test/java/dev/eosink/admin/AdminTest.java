/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line: what is refused before anything is read or connected. */
class AdminTest {

    private String err;

    private int run(String... args) {
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int exit;
        try (PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
                PrintStream errors = new PrintStream(e, true, StandardCharsets.UTF_8)) {
            exit = Admin.run(args, out, errors, Map.of());
        }
        err = e.toString(StandardCharsets.UTF_8);
        return exit;
    }

    @Test
    void aPasswordOnTheCommandLineIsRefusedWithoutEchoingIt() {
        assertThat(run("list", "--url", "jdbc:postgresql://localhost/db", "--password", "s3cret-pw"))
                .isEqualTo(2);
        assertThat(err)
                .contains("no password on the command line")
                .contains(Credentials.PASSWORD_ENV)
                .doesNotContain("s3cret-pw");
    }

    @Test
    void wrongUsageExitsWithTwoAndTheUsage() {
        assertThat(run()).isEqualTo(2);
        assertThat(err).contains("no command given").contains("usage: eosink-admin");
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err).contains("unknown command 'frobnicate'");
        assertThat(run("resolve", "--apply")).isEqualTo(2);
        assertThat(err).contains("resolve takes one checkpoint path");
        assertThat(run("list")).isEqualTo(2);
        assertThat(err).contains("--url is required");
        assertThat(run("list", "--url", "jdbc:h2:mem:x")).isEqualTo(2);
        assertThat(err).contains("jdbc:postgresql://").contains("jdbc:mariadb://");
        assertThat(run("inspect", "/tmp", "--sink-id", "has/slash")).isEqualTo(2);
        assertThat(err).contains("--sink-id: Invalid sink id 'has/slash'");
        assertThat(run("carried", "--sink-id", "orders", "--apply")).isEqualTo(2);
        assertThat(err).contains("carried --table/--apply needs the checkpoint or savepoint");
        assertThat(run("carried", "/tmp", "--sink-id", "orders", "--apply")).isEqualTo(2);
        assertThat(err).contains("carried --apply needs --table [schema.]name");
        assertThat(run("carried", "/a", "/b", "--sink-id", "orders")).isEqualTo(2);
        assertThat(err).contains("carried takes at most one checkpoint path");
        assertThat(run("--help")).isZero();
    }
}
