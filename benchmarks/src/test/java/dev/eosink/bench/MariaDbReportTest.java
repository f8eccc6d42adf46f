/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A MariaDB run of appends and a later one of upserts fill latest.csv and mariadb.md together: each
 * replaces its own case's lines and section only, and the PostgreSQL lines stay.
 */
class MariaDbReportTest {

    @Test
    void eachRunReplacesItsOwnCaseOnly(@TempDir Path dir) throws Exception {
        Files.writeString(
                dir.resolve("latest.csv"),
                Report.CSV_HEADER + "\n"
                        + "append,eo-copy,1,500000,0.950,postgresql\n"
                        + "append,eo-xa,1,100,0.100,mariadb\n"
                        + "upsert,eo-xa-upsert,1,50,,mariadb\n",
                StandardCharsets.UTF_8);

        report(
                        new String[] {"--database", "mariadb", "--writers", "raw-bulk,eo-xa", "--parallelism", "1"},
                        Map.of(Writer.RAW_BULK, 400_000.0, Writer.EO_XA, 300_000.0))
                .write(dir);
        report(
                        new String[] {"--database", "mariadb", "--writers", "eo-xa-upsert", "--parallelism", "1"},
                        Map.of(Writer.EO_XA_UPSERT, 150_000.0))
                .write(dir);

        assertThat(Files.readAllLines(dir.resolve("latest.csv"), StandardCharsets.UTF_8))
                .containsExactly(
                        Report.CSV_HEADER,
                        "append,eo-copy,1,500000,0.950,postgresql",
                        "append,raw-bulk,1,400000,1.000,mariadb",
                        "append,eo-xa,1,300000,0.750,mariadb",
                        "upsert,eo-xa-upsert,1,150000,,mariadb");
        String page = Files.readString(dir.resolve(MariaDbReport.PAGE), StandardCharsets.UTF_8);
        Map<String, String> sections = MariaDbReport.sections(page);
        assertThat(sections).containsOnlyKeys("append", "upsert");
        assertThat(sections.get("append"))
                .contains("--writers raw-bulk,eo-xa")
                .contains("| append | eo-xa | 1 | 300,000 | 0.75 |")
                .contains("| eo-xa ≥ 0.7 × raw-bulk, p1 | 0.75 | met |")
                .doesNotContain("upsert");
        assertThat(sections.get("upsert"))
                .contains("--writers eo-xa-upsert")
                .contains("| upsert | eo-xa-upsert | 1 | 150,000 |  |")
                .contains("| eo-xa-upsert > peer-alo-upsert, p1 | n/a | not measured |");
        assertThat(page.indexOf("## append")).isLessThan(page.indexOf("## upsert"));
    }

    private static MariaDbReport report(String[] args, Map<Writer, Double> rowsPerS) {
        BenchOptions o = BenchOptions.parse(args);
        List<Spec> specs = rowsPerS.keySet().stream()
                .sorted()
                .map(w -> new Spec(w, 1, o.intervalMs, Spec.Purpose.THROUGHPUT, o.rows))
                .toList();
        List<Measured> runs = specs.stream()
                .map(s -> new Measured(s, 1, null, null, rowsPerS.get(s.writer), 1, 1, "job end"))
                .toList();
        return new MariaDbReport(o, specs, runs, Map.of("server_version", "11.4.5", "source", "test"), 1.0);
    }
}
