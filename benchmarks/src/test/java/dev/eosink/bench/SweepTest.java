/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The sensitivity sweep without a database: its plan, its 20-column encoding, its report. */
class SweepTest {

    /** Rows per run by default, and the 20-column runs' default (half). */
    private static final long ROWS = BenchOptions.DEFAULT_ROWS;

    private static final long HALF = ROWS / 2;

    private static final List<String> WIDE_TYPES = List.of(
            "int8",
            "text",
            "int8",
            "timestamptz",
            "int8",
            "int8",
            "int8",
            "int4",
            "int4",
            "int4",
            "float8",
            "float8",
            "text",
            "text",
            "text",
            "timestamptz",
            "timestamptz",
            "bool",
            "bool",
            "numeric");

    @Test
    void rawCopyEncodesTheWideRowAsTheSinksEncoderDoes() {
        BinaryCopyEncoder encoder = BinaryCopyEncoder.forTypes(Arrays.asList(WideRow.COLUMNS.split(", ")), WIDE_TYPES)
                .orElseThrow();
        List<Long> indexes = new ArrayList<>(List.of(
                0L,
                1L,
                5L,
                99L,
                100L,
                101L,
                9_999L,
                10_000L,
                1_000_000L,
                123_456_789L,
                1_000_000_000L,
                Integer.MAX_VALUE - 1L));
        for (long i = 0; i < 5_000; i += 7) {
            indexes.add(i * 997);
        }
        for (long i : indexes) {
            WideRow r = WideRow.of(i);
            BinaryCopyEncoder.Buffer sink = new BinaryCopyEncoder.Buffer(64);
            encoder.row(sink, r.toRow());
            byte[] raw = new byte[1024];
            int n = RawCopy.wide(raw, 0, r);
            assertThat(Arrays.copyOf(raw, n)).as("record %d", i).isEqualTo(Arrays.copyOf(sink.array(), sink.size()));
            assertThat(RawCopy.wideSize(i)).isEqualTo(n);
        }
    }

    @Test
    void wideRecordsArePureFunctionsOfTheIndex() {
        WideRow a = WideRow.of(12_345);
        WideRow b = WideRow.of(12_345);
        assertThat(Arrays.deepToString(a.toRow())).isEqualTo(Arrays.deepToString(b.toRow()));
        assertThat(a.toRow()).hasSize(WideRow.COLUMN_COUNT);
        assertThat(WideRow.COLUMNS.split(", ")).hasSize(WideRow.COLUMN_COUNT);
        BenchRow narrow = Workload.row(Workload.Case.APPEND, 12_345, 1_000_000);
        assertThat(Arrays.asList(a.toRow()).subList(0, 4)).isEqualTo(Arrays.asList(narrow.toRow()));
        assertThat(Sinks.insertWideSql("t")).endsWith("?)").contains("(" + WideRow.COLUMNS + ")");
    }

    @Test
    void defaultPlanAddsTheSweepAfterTheCasesItReuses() {
        List<Spec> plain = new Bench(BenchOptions.parse(new String[] {"--no-sweep"})).plan();
        List<Spec> specs = new Bench(BenchOptions.parse(new String[0])).plan();
        assertThat(describe(specs.subList(0, plain.size()))).isEqualTo(describe(plain));
        List<String> added = describe(specs.subList(plain.size(), specs.size()));
        assertThat(added)
                .containsExactly(
                        "raw-copy p1 20c " + HALF,
                        "eo-copy p1 20c " + HALF + " 1000",
                        "raw-copy p2 20c " + HALF,
                        "eo-copy p2 20c " + HALF + " 1000",
                        "eo-copy p2 4c " + ROWS + " 10000");
        assertThat(specs.subList(plain.size(), specs.size())).allMatch(s -> s.purpose == Spec.Purpose.SWEEP);
    }

    @Test
    void smokePlanAddsOnlyTheWideRunsAtParallelismOne() {
        BenchOptions o = BenchOptions.parse(new String[] {"--smoke", "--out", "/tmp/x"});
        List<Spec> plain =
                new Bench(BenchOptions.parse(new String[] {"--smoke", "--out", "/tmp/x", "--no-sweep"})).plan();
        List<Spec> specs = new Bench(o).plan();
        assertThat(describe(specs.subList(plain.size(), specs.size())))
                .containsExactly("raw-copy p1 20c 1000", "eo-copy p1 20c 1000 300");
    }

    @Test
    void sweepWithoutTheMainWritersAddsItsReferences() {
        List<Spec> specs = new Bench(BenchOptions.parse(new String[] {
                    "--writers",
                    "eo-batch",
                    "--parallelism",
                    "1",
                    "--no-heap",
                    "--sweep-writers",
                    "peer-alo",
                    "--sweep-rows",
                    "10"
                }))
                .plan();
        assertThat(describe(specs))
                .containsExactly(
                        "eo-batch p1 4c " + ROWS + " 1000",
                        "raw-copy p1 4c " + ROWS,
                        "peer-alo p1 4c " + ROWS + " 1000",
                        "raw-copy p1 20c 10",
                        "peer-alo p1 20c 10 1000",
                        "eo-copy p1 4c " + ROWS + " 100",
                        "eo-copy p1 4c " + ROWS + " 1000",
                        "eo-copy p1 4c " + ROWS + " 10000");
    }

    @org.junit.jupiter.api.io.TempDir
    Path dir;

    @Test
    void reportKeepsLatestCsvAndWritesTheSweepApart() throws Exception {
        BenchOptions o = BenchOptions.parse(new String[] {"--rows", "1000", "--rounds", "2"});
        List<Spec> specs = new Bench(o).plan();
        List<Measured> runs = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            for (Spec s : specs) {
                RunResult r = new RunResult();
                r.set("status", "ok");
                r.setList("barrier_to_prepared_us", s.writer.isEosink() ? List.of(10_000L, 20_000L) : List.of());
                if (s.writer.flink && !s.wide()) {
                    r.set(Freshness.P50, s.intervalMs * 600);
                    r.set(Freshness.P99, s.intervalMs * 1500);
                    r.set(Freshness.MAX, s.intervalMs * 2000);
                }
                double rate = (s.writer == Writer.RAW_COPY ? 100_000 : 80_000)
                        / (s.wide() ? 4.0 : 1.0)
                        * (s.intervalMs == 100 && s.writer == Writer.EO_COPY ? 0.5 : 1);
                runs.add(new Measured(s, round, r, null, rate + round, s.rows / rate, 1, "commit timestamp"));
            }
        }
        Map<String, String> none = new LinkedHashMap<>();
        Report report = new Report(o, specs, runs, none, none, 1, true, Path.of("/tmp/x"), java.util.Optional.empty());
        for (Spec s : specs) {
            report.copyBytes(s, s.rows * (s.wide() ? 200L : 50L));
        }
        List<String> csv = report.csv().lines().collect(Collectors.toList());
        assertThat(csv.get(0)).isEqualTo("case,writer,parallelism,rows_per_s,ratio_to_copy,database");
        long postgresWriters = java.util.Arrays.stream(Writer.values())
                .filter(w -> w.runsOn(Database.POSTGRESQL))
                .count();
        assertThat(csv)
                .hasSize(1 + 2 * (int) postgresWriters)
                .contains(
                        "append,raw-copy,1,100002,1.000,postgresql",
                        "append,eo-copy,2,80002,0.800,postgresql",
                        "append,eo-sql,1,80002,0.800,postgresql",
                        "upsert,peer-sql-alo-upsert,2,80002,0.800,postgresql");

        List<String> sweep = report.sweepCsv().lines().collect(Collectors.toList());
        assertThat(sweep)
                .containsExactly(
                        Report.SWEEP_CSV_HEADER,
                        "width,raw-copy,1,4,,1000,100002,5.0,1.000,,",
                        "width,eo-copy,1,4,1000,1000,80002,4.0,0.800,10.0,20.0",
                        "width,raw-copy,2,4,,1000,100002,5.0,1.000,,",
                        "width,eo-copy,2,4,1000,1000,80002,4.0,0.800,10.0,20.0",
                        "width,raw-copy,1,20,,500,25002,5.0,1.000,,",
                        "width,eo-copy,1,20,1000,500,20002,4.0,0.800,10.0,20.0",
                        "width,raw-copy,2,20,,500,25002,5.0,1.000,,",
                        "width,eo-copy,2,20,1000,500,20002,4.0,0.800,10.0,20.0",
                        "interval,eo-copy,1,4,100,1000,40002,2.0,0.400,10.0,20.0",
                        "interval,eo-copy,1,4,1000,1000,80002,4.0,0.800,10.0,20.0",
                        "interval,eo-copy,1,4,10000,1000,80002,4.0,0.800,10.0,20.0",
                        "interval,eo-copy,2,4,100,1000,40002,2.0,0.400,10.0,20.0",
                        "interval,eo-copy,2,4,1000,1000,80002,4.0,0.800,10.0,20.0",
                        "interval,eo-copy,2,4,10000,1000,80002,4.0,0.800,10.0,20.0");
        String md = report.markdown();
        assertThat(md)
                .contains(
                        "| eo-sql ≥ 0.85 × raw COPY, p2 | 0.80 × | not met |",
                        "| eo-sql-upsert ≥ 2 × peer-sql-alo-upsert, p1 | 1.00 × | not met |");
        assertThat(md)
                .contains(
                        "## Sensitivity: row width and checkpoint interval",
                        "### Row width",
                        "### Checkpoint interval",
                        "eo-copy × raw COPY, p1: 0.80 at 4 columns, 0.80 at 20");
        // Freshness: every Flink writer on the 4-column table, at each interval it ran at; targets from it.
        assertThat(md)
                .contains(
                        "## Freshness",
                        "| append | eo-copy | 1 | 250 ms | 80,002 | 0.80 | 150 | 375 | 500 | 375, 375 |",
                        "| append | peer-alo | 2 | 1 s (flush 100 ms) | 80,002 | 0.80 | 600 | 1,500 | 2,000 |",
                        "| eo-copy p99 freshness ≤ 500 ms at 250 ms, p1 | 375 ms | met |",
                        "| eo-copy ≥ 0.8 × raw COPY at 100 ms, p2 | 0.40 × | not met |")
                .doesNotContain("| append | raw-copy | 1 | 1 s");
        assertThat(report.freshness().csv().lines())
                .contains(
                        FreshnessReport.CSV_HEADER,
                        "append,eo-copy,1,250,80002,0.800,150.0,375.0,500.0",
                        "upsert,eo-upsert,2,100,80002,0.800,60.0,150.0,200.0");
        // The checkpoint-cost tables (timings, the prepares' breakdown): the freshness runs' short intervals
        // are in them, the sweep's 20-column runs not.
        String cost = md.substring(md.indexOf("## Checkpoint cost"), md.indexOf("## Freshness"));
        assertThat(cost).contains("| eo-upsert | 2 | 250 ms |", "| eo-copy | 1 | 100 ms |", "| end of COPY |");
        assertThat(cost.lines().filter(l -> l.startsWith("| eo-copy | 1 | 1 s |")))
                .hasSize(2);

        // The files of the run: both charts drawn, at their sizes, with more than a background and a title.
        Path out = java.nio.file.Files.createDirectories(dir.resolve("out"));
        report.write(out);
        for (String png : List.of("latest.png", FreshnessReport.PNG)) {
            java.awt.image.BufferedImage image =
                    javax.imageio.ImageIO.read(out.resolve(png).toFile());
            assertThat(image.getWidth()).as(png).isEqualTo(1200);
            java.util.Set<Integer> colours = new java.util.HashSet<>();
            for (int x = 0; x < image.getWidth(); x += 3) {
                for (int y = 0; y < image.getHeight(); y += 3) {
                    colours.add(image.getRGB(x, y));
                }
            }
            assertThat(colours).as(png).hasSizeGreaterThan(8);
        }
        // The results page's block, with its links relative to the page (docs/ next to benchmarks/results/).
        Path page = dir.resolve(Report.RESULTS_PAGE);
        java.nio.file.Files.createDirectories(page.getParent());
        java.nio.file.Files.writeString(
                page, "intro\n" + Report.RESULTS_BEGIN + "\nold\n" + Report.RESULTS_END + "\nrest\n");
        Report atRoot = new Report(
                BenchOptions.parse(new String[] {
                    "--rows",
                    "1000",
                    "--rounds",
                    "2",
                    "--out",
                    dir.resolve(BenchOptions.DEFAULT_OUT).toString()
                }),
                specs,
                runs,
                none,
                none,
                1,
                true,
                Path.of("/tmp/x"),
                java.util.Optional.empty());
        atRoot.updateResultsPage(page);
        String block = java.nio.file.Files.readString(page);
        assertThat(block)
                .startsWith("intro\n" + Report.RESULTS_BEGIN)
                .endsWith(Report.RESULTS_END + "\nrest\n")
                .contains("](../benchmarks/results/latest.md)).\n", "![throughput](../benchmarks/results/latest.png)\n")
                .contains(
                        "| eo-copy | 250 ms | 0.80 | 150 / 375 ms | 0.80 | 150 / 375 ms |\n",
                        "| peer-alo | 1 s (flush 100 ms) | 0.80 | 600 / 1,500 ms | 0.80 | 600 / 1,500 ms |\n",
                        "![throughput against p99 freshness](../benchmarks/results/latest-freshness.png)\n")
                .contains(
                        "| append | eo-copy | 80,002 | 0.80 | 80,002 | 0.80 |\n",
                        "| eo-copy × raw COPY | p1 | p2 |\n|---|--:|--:|\n"
                                + "| 4 → 20 columns | 0.80 → 0.80 | 0.80 → 0.80 |\n"
                                + "| checkpoint 100 ms / 1 s / 10 s | 0.40 / 0.80 / 0.80 | 0.40 / 0.80 / 0.80 |\n");
    }

    private static List<String> describe(List<Spec> specs) {
        return specs.stream()
                .map(s -> s.writer.id + " p" + s.parallelism + " " + s.columns + "c " + s.rows
                        + (s.writer.flink ? " " + s.intervalMs : ""))
                .collect(Collectors.toList());
    }
}
