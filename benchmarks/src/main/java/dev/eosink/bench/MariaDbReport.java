/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The results of {@code ./bench --database mariadb}: its lines replace the {@code mariadb} lines of
 * latest.csv of the cases it measured (append, upsert; the PostgreSQL run's lines and the other case's
 * stay: one CSV, a {@code database} column), and its section of {@value #PAGE}, one per case, holds its
 * table, ratios and targets (a run of appends, 2,000,000 rows, and one of upserts, whose peer needs
 * far fewer, fill the page together). Ratios are to {@code raw-bulk} at the same parallelism in the
 * same run.
 */
final class MariaDbReport {

    static final String PAGE = "mariadb.md";

    private final BenchOptions o;
    private final List<Spec> specs;
    private final List<Measured> runs;
    private final Map<String, String> server;
    private final double minutes;

    MariaDbReport(BenchOptions o, List<Spec> specs, List<Measured> runs, Map<String, String> server, double minutes) {
        this.o = o;
        this.specs = specs;
        this.runs = runs;
        this.server = server;
        this.minutes = minutes;
    }

    /** The median rows/s of a writer at a parallelism over the rounds that succeeded; empty if none did. */
    OptionalDouble median(Writer w, int p) {
        for (Spec s : specs) {
            if (s.writer == w && s.parallelism == p) {
                return Report.median(runs.stream()
                        .filter(m -> m.spec == s && m.ok())
                        .map(m -> m.rowsPerS)
                        .collect(Collectors.toList()));
            }
        }
        return OptionalDouble.empty();
    }

    private OptionalDouble ratio(Writer a, Writer b, int p) {
        OptionalDouble x = median(a, p);
        OptionalDouble y = median(b, p);
        return x.isPresent() && y.isPresent() && y.getAsDouble() > 0
                ? OptionalDouble.of(x.getAsDouble() / y.getAsDouble())
                : OptionalDouble.empty();
    }

    /** This run's lines of latest.csv. */
    List<String> csvLines() {
        List<String> lines = new ArrayList<>();
        for (Spec s : specs) {
            OptionalDouble rows = median(s.writer, s.parallelism);
            OptionalDouble r = ratio(s.writer, Writer.RAW_BULK, s.parallelism);
            lines.add(s.writer.workload.id() + "," + s.writer.id + "," + s.parallelism + ","
                    + (rows.isPresent() ? String.valueOf(Math.round(rows.getAsDouble())) : "") + ","
                    + (r.isPresent() ? String.format(Locale.ROOT, "%.3f", r.getAsDouble()) : "") + ","
                    + Database.MARIADB.id());
        }
        return lines;
    }

    /** The table of each case this run measured. */
    String tables() {
        return cases().stream().map(this::table).collect(Collectors.joining("\n"));
    }

    String table(Workload.Case c) {
        StringBuilder b =
                new StringBuilder("| case | writer | p | rows/s (median) | × raw-bulk |\n|---|---|---|---|---|\n");
        for (Spec s : specs) {
            if (s.writer.workload != c) {
                continue;
            }
            OptionalDouble rows = median(s.writer, s.parallelism);
            OptionalDouble r = ratio(s.writer, Writer.RAW_BULK, s.parallelism);
            b.append("| ")
                    .append(s.writer.workload.id())
                    .append(" | ")
                    .append(s.writer.id)
                    .append(" | ")
                    .append(s.parallelism)
                    .append(" | ")
                    .append(rows.isPresent() ? String.format(Locale.ROOT, "%,.0f", rows.getAsDouble()) : "failed")
                    .append(" | ")
                    .append(r.isPresent() ? String.format(Locale.ROOT, "%.2f", r.getAsDouble()) : "")
                    .append(" |\n");
        }
        return b.toString();
    }

    private String targets(Workload.Case c) {
        StringBuilder b = new StringBuilder("| target | measured | |\n|---|---|---|\n");
        for (int p : o.parallelisms) {
            if (c == Workload.Case.APPEND) {
                target(b, "eo-xa ≥ 0.7 × raw-bulk, p" + p, ratio(Writer.EO_XA, Writer.RAW_BULK, p), 0.7);
                target(b, "eo-xa ≥ 2 × peer-eo-xa, p" + p, ratio(Writer.EO_XA, Writer.PEER_EO_XA, p), 2.0);
            } else {
                target(
                        b,
                        "eo-xa-upsert > peer-alo-upsert, p" + p,
                        ratio(Writer.EO_XA_UPSERT, Writer.PEER_ALO_UPSERT, p),
                        1.0);
            }
        }
        return b.toString();
    }

    /** The cases this run measured, in their order. */
    private List<Workload.Case> cases() {
        return specs.stream().map(sp -> sp.writer.workload).distinct().sorted().collect(Collectors.toList());
    }

    private static void target(StringBuilder b, String what, OptionalDouble ratio, double bound) {
        b.append("| ")
                .append(what)
                .append(" | ")
                .append(ratio.isPresent() ? String.format(Locale.ROOT, "%.2f", ratio.getAsDouble()) : "n/a")
                .append(" | ")
                .append(ratio.isEmpty() ? "not measured" : ratio.getAsDouble() >= bound ? "met" : "missed")
                .append(" |\n");
    }

    void write(Path dir) throws IOException {
        List<String> measured = cases().stream().map(Workload.Case::id).collect(Collectors.toList());
        Path csv = dir.resolve("latest.csv");
        List<String> merged = new ArrayList<>();
        merged.add(Report.CSV_HEADER);
        if (Files.exists(csv)) {
            List<String> old = Files.readAllLines(csv, StandardCharsets.UTF_8);
            for (String line : old.subList(Math.min(1, old.size()), old.size())) {
                String[] f = line.split(",", -1);
                if (f.length == 5) {
                    merged.add(line + "," + Database.POSTGRESQL.id()); // written before the column existed
                } else if (f.length == 6 && !(Database.MARIADB.id().equals(f[5]) && measured.contains(f[0]))) {
                    merged.add(line);
                }
            }
        }
        merged.addAll(csvLines());
        Files.writeString(csv, String.join("\n", merged) + "\n", StandardCharsets.UTF_8);

        Path page = dir.resolve(PAGE);
        Map<String, String> sections = new TreeMap<>(); // append before upsert
        if (!o.smoke && Files.exists(page)) {
            sections.putAll(sections(Files.readString(page, StandardCharsets.UTF_8)));
        }
        for (Workload.Case c : cases()) {
            sections.put(c.id(), section(c));
        }
        StringBuilder md = new StringBuilder("# eosink benchmark on MariaDB: ")
                .append(o.smoke ? "smoke run (checks that it works, not speed)" : "latest results")
                .append("\n\n")
                .append("One section per case, each from its own run (the peer's upserts are slow enough to need "
                        + "fewer rows).\n");
        sections.values().forEach(section -> md.append('\n').append(section));
        Files.writeString(page, md.toString(), StandardCharsets.UTF_8);
    }

    /** The sections of a page this class wrote, by case: from a case's heading to the next one. */
    static Map<String, String> sections(String page) {
        Map<String, String> sections = new TreeMap<>();
        String[] parts = page.split("(?m)^(?=" + Pattern.quote(SECTION) + ")");
        for (String part : parts) {
            if (part.startsWith(SECTION)) {
                String id = part.substring(
                                SECTION.length(), part.indexOf('\n') < 0 ? part.length() : part.indexOf('\n'))
                        .trim();
                sections.put(id, part.stripTrailing() + "\n");
            }
        }
        return sections;
    }

    /** The heading of a case's section, before the case's id. */
    private static final String SECTION = "## ";

    private String section(Workload.Case c) {
        StringBuilder md = new StringBuilder(SECTION).append(c.id()).append("\n\n");
        md.append("Made by `")
                .append(o.commandLine)
                .append("` on ")
                .append(ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z")))
                .append(String.format(
                        Locale.ROOT,
                        ", in %.1f min, against MariaDB %s (%s), load average at the end %s. ",
                        minutes,
                        server.get("server_version"),
                        server.get("source"),
                        Bench.loadAverage()))
                .append(String.format(
                        Locale.ROOT,
                        "%,d rows per run, %d round(s) (medians), checkpoint interval %s, "
                                + "batch size %d, warm-up %d%%. Throughput: rows / (job end − first row at the sink): an "
                                + "exactly-once sink pays for its last checkpoint, and MariaDB keeps no commit time of a row.%n%n",
                        o.rows,
                        o.rounds,
                        Spec.interval(o.intervalMs),
                        o.batchSize,
                        o.warmupPercent));
        md.append(table(c)).append('\n').append(targets(c));
        for (Measured m : runs) {
            if (!m.ok() && m.spec.writer.workload == c) {
                md.append("\n- round ")
                        .append(m.round)
                        .append(", ")
                        .append(m.spec.writer.id)
                        .append(" p")
                        .append(m.spec.parallelism)
                        .append(": failed: ")
                        .append(m.failure);
            }
        }
        return md.append('\n').toString();
    }
}
