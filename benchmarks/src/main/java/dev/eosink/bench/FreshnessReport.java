/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The freshness section of latest.md, its chart (latest-freshness.png) and freshness.csv: every Flink
 * writer's run on the 4-column workload, at each checkpoint interval it ran at, with its throughput.
 */
final class FreshnessReport {

    static final String CSV = "freshness.csv";
    static final String PNG = "latest-freshness.png";
    static final String CSV_HEADER = "case,writer,parallelism,interval_ms,rows_per_s,ratio_to_copy,"
            + "freshness_p50_ms,freshness_p99_ms,freshness_max_ms";

    /** One writer at one parallelism and checkpoint interval: medians over the rounds. */
    static final class Point {
        final Spec spec;
        final List<Measured> rounds;
        final OptionalDouble rowsPerS;
        final OptionalDouble ratio;
        final OptionalDouble p50Ms;
        final OptionalDouble p99Ms;
        final OptionalDouble maxMs;

        Point(Spec spec, List<Measured> rounds, OptionalDouble copyRowsPerS) {
            this.spec = spec;
            this.rounds = rounds;
            this.rowsPerS = median(rounds, m -> m.rowsPerS);
            this.ratio = rowsPerS.isPresent() && copyRowsPerS.isPresent()
                    ? OptionalDouble.of(rowsPerS.getAsDouble() / copyRowsPerS.getAsDouble())
                    : OptionalDouble.empty();
            this.p50Ms = median(rounds, m -> m.result.getLong(Freshness.P50, 0) / 1000.0);
            this.p99Ms = median(rounds, m -> m.result.getLong(Freshness.P99, 0) / 1000.0);
            this.maxMs = median(rounds, m -> m.result.getLong(Freshness.MAX, 0) / 1000.0);
        }

        private static OptionalDouble median(List<Measured> rounds, ToDoubleFunction<Measured> value) {
            return Report.median(rounds.stream()
                    .filter(Freshness::of)
                    .map(value::applyAsDouble)
                    .collect(Collectors.toList()));
        }

        /** The interval as shown: the peer's at-least-once sinks flush on their own timer too. */
        String interval() {
            String i = Spec.interval(spec.intervalMs);
            return spec.writer.id.startsWith("peer-") && spec.writer.id.contains("alo")
                    ? i + " (flush " + Sinks.PEER_FLUSH_INTERVAL_MS + " ms)"
                    : i;
        }
    }

    private final List<Point> points = new ArrayList<>();

    FreshnessReport(List<Spec> specs, List<Measured> runs, long rows) {
        for (Spec s : specs) {
            if (!s.writer.flink || s.wide() || s.rows != rows) {
                continue;
            }
            List<Measured> rounds = runs.stream().filter(m -> m.spec == s).collect(Collectors.toList());
            if (rounds.stream().noneMatch(Freshness::of)) {
                continue;
            }
            OptionalDouble copy = Report.median(runs.stream()
                    .filter(m -> m.ok() && m.spec.is(Writer.RAW_COPY, s.parallelism, 0, Workload.NARROW, rows))
                    .map(m -> m.rowsPerS)
                    .collect(Collectors.toList()));
            points.add(new Point(s, rounds, copy));
        }
        points.sort(Comparator.<Point>comparingInt(p -> p.spec.writer.workload.ordinal())
                .thenComparingInt(p -> p.spec.writer.ordinal())
                .thenComparingInt(p -> p.spec.parallelism)
                .thenComparingLong(p -> p.spec.intervalMs));
    }

    boolean isEmpty() {
        return points.isEmpty();
    }

    List<Point> points() {
        return points;
    }

    /** The point of that writer, parallelism and interval, or null. */
    Point point(Writer w, int p, long intervalMs) {
        return points.stream()
                .filter(x -> x.spec.writer == w && x.spec.parallelism == p && x.spec.intervalMs == intervalMs)
                .findFirst()
                .orElse(null);
    }

    void write(Path dir, String title) throws IOException {
        Files.writeString(dir.resolve(CSV), csv(), StandardCharsets.UTF_8);
        FreshnessChart.draw(points, title, dir.resolve(PNG));
    }

    String csv() {
        StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
        for (Point p : points) {
            b.append(String.join(",", cells(p, Style.CSV))).append('\n');
        }
        return b.toString();
    }

    void markdown(StringBuilder b) {
        b.append("## Freshness\n\n");
        b.append("For every row: from its record's making in the job's source to the commit of the transaction ")
                .append("that made it visible (PostgreSQL's commit timestamp of the row's `xmin`), at full speed, so ")
                .append("with the records that wait in the job's buffers. p50, p99 and max over all rows of a run; ")
                .append("median of each over the rounds. rows/s and × raw COPY as in the throughput table, the runs ")
                .append("at other checkpoint intervals included. The at-least-once peers flush every ")
                .append(Sinks.PEER_FLUSH_INTERVAL_MS)
                .append(" ms or ")
                .append("batch, whichever comes first. Milliseconds.\n\n");
        b.append("| case | writer | p | checkpoint interval | rows/s | × raw COPY | freshness p50 | p99 | max ")
                .append("| p99 each round |\n|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
        for (Point p : points) {
            b.append("| ")
                    .append(String.join(" | ", cells(p, Style.TABLE)))
                    .append(" | ")
                    .append(p.rounds.stream()
                            .map(m -> Freshness.of(m)
                                    ? String.format(Locale.ROOT, "%,.0f", m.result.getLong(Freshness.P99, 0) / 1000.0)
                                    : "failed")
                            .collect(Collectors.joining(", ")))
                    .append(" |\n");
        }
        b.append("\n![throughput against p99 freshness](").append(PNG).append(")\n\n");
    }

    /**
     * The results page's freshness table: per writer and checkpoint interval, × raw COPY and freshness
     * p50 / p99 at each parallelism; then the chart, linked as {@code png}.
     */
    void summary(StringBuilder b, List<Integer> parallelisms, String png) {
        b.append("\n| writer | checkpoint interval");
        for (int p : parallelisms) {
            b.append(" | × raw COPY p")
                    .append(p)
                    .append(" | freshness p50 / p99 p")
                    .append(p);
        }
        b.append(" |\n|---|--:|").append("--:|--:|".repeat(parallelisms.size())).append('\n');
        List<String> done = new ArrayList<>();
        for (Point first : points) {
            String key = first.spec.writer.id + "/" + first.spec.intervalMs;
            if (done.contains(key)) {
                continue;
            }
            done.add(key);
            b.append("| ").append(first.spec.writer.id).append(" | ").append(first.interval());
            for (int p : parallelisms) {
                Point x = point(first.spec.writer, p, first.spec.intervalMs);
                b.append(" | ")
                        .append(x == null ? "" : Style.TABLE.ratio(x))
                        .append(" | ")
                        .append(x == null ? "" : Style.TABLE.ms(x.p50Ms) + " / " + Style.TABLE.ms(x.p99Ms) + " ms");
            }
            b.append(" |\n");
        }
        b.append("\n![throughput against p99 freshness](").append(png).append(")\n");
    }

    /** The freshness targets, as lines of latest.md's target table. */
    void targets(StringBuilder b, List<Integer> parallelisms) {
        for (int p : parallelisms) {
            Point at250 = point(Writer.EO_COPY, p, 250);
            Report.target(
                    b,
                    "eo-copy p99 freshness ≤ 500 ms at 250 ms, p" + p,
                    at250 == null ? null : at250.p99Ms,
                    "%,.0f ms",
                    v -> v <= 500);
            Report.target(
                    b,
                    "eo-copy ≥ 0.85 × raw COPY at 250 ms, p" + p,
                    at250 == null ? null : at250.ratio,
                    "%.2f ×",
                    v -> v >= 0.85);
            Point at100 = point(Writer.EO_COPY, p, 100);
            Report.target(
                    b,
                    "eo-copy ≥ 0.8 × raw COPY at 100 ms, p" + p,
                    at100 == null ? null : at100.ratio,
                    "%.2f ×",
                    v -> v >= 0.8);
        }
    }

    /** How figures are written: plain numbers, empty when missing, in the CSV; grouped, a dash, in tables. */
    private enum Style {
        CSV("", "%.0f", "%.3f", "%.1f"),
        TABLE("–", "%,.0f", "%.2f", "%,.0f");

        private final String missing;
        private final String rate;
        private final String ratio;
        private final String ms;

        Style(String missing, String rate, String ratio, String ms) {
            this.missing = missing;
            this.rate = rate;
            this.ratio = ratio;
            this.ms = ms;
        }

        String ratio(Point p) {
            return format(p.ratio, ratio);
        }

        String ms(OptionalDouble v) {
            return format(v, ms);
        }

        private String format(OptionalDouble v, String format) {
            return v.isPresent() ? String.format(Locale.ROOT, format, v.getAsDouble()) : missing;
        }
    }

    /** A point's fields in {@link #CSV_HEADER}'s order (the table shows the interval as {@link Point#interval}). */
    private static List<String> cells(Point p, Style style) {
        return List.of(
                p.spec.writer.workload.id(),
                p.spec.writer.id,
                String.valueOf(p.spec.parallelism),
                style == Style.CSV ? String.valueOf(p.spec.intervalMs) : p.interval(),
                style.format(p.rowsPerS, style.rate),
                style.ratio(p),
                style.ms(p.p50Ms),
                style.ms(p.p99Ms),
                style.ms(p.maxMs));
    }
}
