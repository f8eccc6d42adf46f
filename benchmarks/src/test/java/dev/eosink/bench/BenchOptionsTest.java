/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/** The options that shape what a run measures: the warm-up, the embedded server's settings, COPY flow control. */
class BenchOptionsTest {

    @Test
    void runsAreWarmedUpByDefaultAndCanBeCold() {
        assertThat(BenchOptions.parse(new String[0]).warmupPercent).isEqualTo(30);
        assertThat(BenchOptions.parse(new String[] {"--warmup", "0"}).warmupPercent)
                .isZero();
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--warmup", "101"}))
                .hasMessageContaining("--warmup")
                .hasMessageContaining("0 to 100");
    }

    @Test
    void serverSettingsKeepTheirOrderAndAreCheckedForShape() {
        BenchOptions o = BenchOptions.parse(new String[] {
            "--server-setting", "wal_writer_delay=10ms", "--server-setting", "wal_writer_flush_after=128kB"
        });
        assertThat(o.serverSettings)
                .containsExactly(entry("wal_writer_delay", "10ms"), entry("wal_writer_flush_after", "128kB"));
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--server-setting", "wal_writer_delay"}))
                .hasMessageContaining("name=value");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--server-setting", "x; DROP TABLE t=1"}))
                .hasMessageContaining("name=value");
    }

    @Test
    void serverSettingsAreRefusedForAnExternalServer() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {
                    "--postgres-url", "jdbc:postgresql://db/x", "--server-setting", "wal_writer_delay=10ms"
                }))
                .hasMessageContaining("--postgres-url")
                .hasMessageContaining("wal_writer_delay");
    }

    @Test
    void copyFlowControlIsTheBuildersDefaultAndCanBeTurnedOff() {
        assertThat(BenchOptions.parse(new String[0]).maxCopyBacklog)
                .isEqualTo(dev.eosink.postgres.PostgresSinkBuilder.DEFAULT_MAX_COPY_BACKLOG);
        assertThat(BenchOptions.parse(new String[] {"--max-copy-backlog", "0"}).maxCopyBacklog)
                .isZero();
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--max-copy-backlog", "100"}))
                .hasMessageContaining("--max-copy-backlog")
                .hasMessageContaining("at least 65536");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--max-copy-backlog", "lots"}))
                .hasMessageContaining("--max-copy-backlog");
    }
}
