/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.arch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The check of the compatibility page's claims against the version matrix's committed evidence, on a docs
 * directory laid out as the repository's: {@code compatibility.md} with its table of claimed cells between
 * the {@value #BEGIN} and {@value #END} markers (written by {@code ./matrix} from {@code matrix/claims.txt}),
 * and one log summary per cell in {@code matrix/cells/*.txt} ({@code key: value} lines up to the first blank
 * line, as {@code ./matrix} writes them).
 *
 * <p>A claim holds when the cell's summary says the hard-case suite of its database passed: result {@code
 * pass}, tests run, none failed or skipped, and the versions that ran, as the run's log says, are the cell's:
 * its Flink line, its database version and its JDK. The claims hold together when every claimed cell's summary names one commit of the repository's history (when the docs are in a git work tree), a commit and not a
 * tree with uncommitted changes, and the page states that commit.
 */
final class CompatibilityClaims {

    static final String BEGIN = "<!-- claimed cells: begin";
    static final String END = "<!-- claimed cells: end -->";
    static final String REMEDY = "run ./matrix --claimed at one commit and commit docs/matrix/cells/ and"
            + " docs/compatibility.md (./matrix --write-page only regenerates the page's table)";

    private static final Pattern RULE = Pattern.compile("\\|[-:| ]*");
    private static final Pattern CELL =
            Pattern.compile("Flink (\\S+)(?: \\(default\\))?, (PostgreSQL|MariaDB) (\\S+), Java (\\S+)");
    private static final Pattern DEFAULT_FLINK =
            Pattern.compile("<flink.version>(\\d+\\.\\d+)\\.[^<]*</flink.version>");
    private static final Pattern MEASURED_AT = Pattern.compile("Measured at commit `([^`]+)`");

    private CompatibilityClaims() {}

    /** Every way the page's claims lack their evidence under {@code docs}; empty when they hold. */
    static List<String> problems(Path docs) throws IOException {
        List<String> problems = new ArrayList<>();
        Path page = docs.resolve("compatibility.md");
        String name = "docs/compatibility.md";
        String text = Files.readString(page, StandardCharsets.UTF_8);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            problems.add(name + " has no table of claimed cells between '" + BEGIN + " ...' and '" + END
                    + "': restore the markers and run ./matrix --write-page");
            return problems;
        }
        int begins = occurrences(text, BEGIN);
        int ends = occurrences(text, END);
        if (begins != 1 || ends != 1) {
            problems.add(name + " has '" + BEGIN + "' " + begins + " times and '" + END + "' " + ends
                    + " times: one table of claimed cells, the one ./matrix --write-page rewrites; remove the others");
        }
        String section = text.substring(begin, end);
        List<List<String>> rows = rows(section);
        List<String> claimed = rows.stream().map(row -> row.get(0)).toList();
        if (claimed.isEmpty()) {
            problems.add(name + " claims no cell: its table of claimed cells has no row; list the cells in "
                    + "docs/matrix/claims.txt and run ./matrix --write-page");
            return problems;
        }
        List<String> listed = claimsListed(docs, problems);
        if (listed.size() != claimed.size()) {
            problems.add(name + " claims " + claimed.size() + " cells, docs/matrix/claims.txt lists " + listed.size()
                    + ": the page's table is stale; run ./matrix --write-page");
        } else if (!listed.equals(claimed)) {
            List<String> notListed = new ArrayList<>(claimed);
            notListed.removeAll(listed);
            List<String> notClaimed = new ArrayList<>(listed);
            notClaimed.removeAll(claimed);
            problems.add(name + "'s table of claimed cells is not docs/matrix/claims.txt's: it claims " + notListed
                    + ", which claims.txt does not list, and lacks " + notClaimed + " (or repeats a cell, or orders"
                    + " them otherwise): the page's table is stale or was edited by hand; run ./matrix --write-page");
        }

        Map<String, Map<String, String>> evidence = summaries(docs.resolve("matrix/cells"), problems);
        Set<String> commits = new LinkedHashSet<>();
        List<String> unbacked = new ArrayList<>();
        for (String cell : claimed) {
            Map<String, String> summary = evidence.get(cell);
            if (summary == null) {
                unbacked.add(cell);
                continue;
            }
            String source = summary.get("file");
            if (!passed(summary)) {
                problems.add("the page claims " + cell + ", but its summary " + source + " says result "
                        + summary.get("result") + ", " + summary.get("tests") + " tests, "
                        + summary.get("failures") + " failed, " + summary.get("skipped") + " skipped"
                        + note(summary) + ": fix the cell or drop it from docs/matrix/claims.txt");
            }
            String ran = summary.getOrDefault("versions", "");
            if (!ranTheCell(cell, ran)) {
                problems.add("the page claims " + cell + ", but its summary " + source
                        + (ran.isEmpty() ? " does not say which versions ran" : " says " + ran + " ran")
                        + ": the run did not measure the cell; fix the cell's profile, database or JDK and run it"
                        + " again");
            }
            List<String> row = rows.get(claimed.indexOf(cell));
            List<String> expected = Stream.of(
                            cell,
                            summary.getOrDefault("result", ""),
                            summary.getOrDefault("tests", ""),
                            ran,
                            summary.getOrDefault("date", ""),
                            summary.getOrDefault("commit", ""),
                            "[" + slug(source) + "](matrix/" + source + ")")
                    .map(column -> column.replace("|", "/"))
                    .toList();
            if (!row.equals(expected)) {
                problems.add("the page's row of " + cell + " says " + row + ", its summary " + expected
                        + ": the table was edited by hand; run ./matrix --write-page");
            }
            String suite = cell.contains(", MariaDB ") ? "XaMariaDbHardCasesITCase" : "PostgresHardCasesITCase";
            if (!suite.equals(summary.get("suite"))) {
                problems.add("the page claims " + cell + ", but its summary " + source + " is of "
                        + summary.get("suite") + ", not of the hard-case suite " + suite
                        + ": run ./matrix --claimed without --postgres-tests or --mariadb-tests");
            }
            String command = summary.getOrDefault("command", "");
            List<String> chosen = Stream.of(command.split("\\s+"))
                    .filter(argument -> argument.startsWith("-Dit.test="))
                    .toList();
            if (!chosen.equals(List.of("-Dit.test=" + suite))) {
                problems.add("the page claims " + cell + ", but its summary " + source + " ran " + command
                        + ", whose tests are " + chosen + ", not only -Dit.test=" + suite
                        + ": run ./matrix --claimed without an -Dit.test in --maven-args");
            }
            String commit = summary.getOrDefault("commit", "");
            if (commit.isEmpty() || commit.equals("unknown") || commit.contains("+")) {
                problems.add(source + " ran at '" + commit + "', not at a commit (uncommitted changes or no" + " git): "
                        + REMEDY);
            }
            commits.add(commit);
        }
        if (!unbacked.isEmpty()) {
            problems.add("the page claims " + unbacked.size() + " of its " + claimed.size() + " cells without a"
                    + " summary of them in docs/matrix/cells/ (" + String.join("; ", unbacked) + "): " + REMEDY);
        }
        Path root = docs.toAbsolutePath().getParent();
        if (git(root, "rev-parse", "--is-inside-work-tree") != null) {
            // A shallow clone (CI may clone with --depth 1) lacks older commits: it cannot tell about those.
            String shallowAnswer = git(root, "rev-parse", "--is-shallow-repository");
            boolean shallow = shallowAnswer != null && shallowAnswer.strip().equals("true");
            for (String commit : commits) {
                if (commit.isEmpty() || commit.equals("unknown") || commit.contains("+")) {
                    continue;
                }
                boolean hex = commit.matches("[0-9a-f]{7,40}");
                String full = hex ? git(root, "rev-parse", "--verify", "--quiet", commit + "^{commit}") : null;
                if (full == null && hex && shallow) {
                    continue;
                }
                if (full == null || git(root, "merge-base", "--is-ancestor", full.strip(), "HEAD") == null) {
                    problems.add("the claimed cells' summaries name " + commit + ", but " + commit + " is not a commit"
                            + " of this repository's history (nor an abbreviation of only one): " + REMEDY);
                }
            }
        }
        if (commits.size() > 1) {
            problems.add("the claimed cells' summaries come from " + commits.size() + " commits " + commits
                    + ", not one: " + REMEDY);
        }
        Matcher measured = MEASURED_AT.matcher(section);
        if (!measured.find()) {
            problems.add(name + " does not say at which commit its claims were measured (no \"Measured at"
                    + " commit `...`\"): " + REMEDY);
        } else if (commits.size() == 1 && !commits.contains(measured.group(1))) {
            problems.add(name + " says it was measured at " + measured.group(1) + ", its evidence at "
                    + commits.iterator().next() + ": run ./matrix --write-page");
        }
        return problems;
    }

    /**
     * The table's rows, its header and rule aside: each a list of its columns, trimmed. A row is any line
     * that Markdown takes for one, with or without spaces around its bars.
     */
    static List<List<String>> rows(String section) {
        List<List<String>> rows = new ArrayList<>();
        for (String line : section.split("\n")) {
            String row = line.strip();
            if (!row.startsWith("|") || RULE.matcher(row).matches()) {
                continue;
            }
            row = row.substring(1);
            if (row.endsWith("|")) {
                row = row.substring(0, row.length() - 1);
            }
            List<String> columns =
                    Stream.of(row.split("\\|", -1)).map(String::strip).toList();
            if (!columns.get(0).equals("Cell")) {
                rows.add(columns);
            }
        }
        return rows;
    }

    /** The names of the cells docs/matrix/claims.txt lists, as ./matrix names them. */
    private static List<String> claimsListed(Path docs, List<String> problems) throws IOException {
        Path claims = docs.resolve("matrix/claims.txt");
        List<String> cells = new ArrayList<>();
        if (!Files.isRegularFile(claims)) {
            return cells;
        }
        String defaultLine = "default";
        Path pom = docs.toAbsolutePath().getParent().resolve("pom.xml");
        if (Files.isRegularFile(pom)) {
            Matcher flink = DEFAULT_FLINK.matcher(Files.readString(pom, StandardCharsets.UTF_8));
            if (flink.find()) {
                defaultLine = flink.group(1);
            }
        }
        for (String line : Files.readAllLines(claims, StandardCharsets.UTF_8)) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] fields = trimmed.split("\\s+");
            if (fields.length != 4) {
                problems.add("docs/matrix/claims.txt: '" + trimmed + "' is not 'kind flink-profile database-version"
                        + " java'");
                continue;
            }
            String flinkLine = fields[1].equals("default")
                    ? defaultLine + " (default)"
                    : fields[1].startsWith("flink-") ? fields[1].substring("flink-".length()) : fields[1];
            String cell = "Flink " + flinkLine + ", " + (fields[0].equals("postgres") ? "PostgreSQL " : "MariaDB ")
                    + fields[2] + ", Java " + fields[3];
            if (cells.contains(cell)) {
                problems.add("docs/matrix/claims.txt lists " + cell + " twice: list each cell once");
            }
            cells.add(cell);
        }
        return cells;
    }

    /** Whether the versions a run's log says ran are the cell's: its Flink line, database and JDK. */
    static boolean ranTheCell(String cell, String versions) {
        Matcher asked = CELL.matcher(cell);
        if (!asked.matches()) {
            return false;
        }
        for (String version :
                List.of("Flink " + asked.group(1), asked.group(2) + " " + asked.group(3), "Java " + asked.group(4))) {
            if (!Pattern.compile("(^|, )" + Pattern.quote(version) + "([.+-][^,]*)?(,|$)")
                    .matcher(versions)
                    .find()) {
                return false;
            }
        }
        return true;
    }

    private static String slug(String source) {
        String file = source.substring(source.lastIndexOf('/') + 1);
        return file.endsWith(".txt") ? file.substring(0, file.length() - ".txt".length()) : file;
    }

    /** git's output in {@code dir}, or null when it fails. */
    private static String git(Path dir, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for " + command, e);
        }
        return process.exitValue() == 0 ? output : null;
    }

    private static int occurrences(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    /** Each summary's {@code key: value} lines by its cell, with "file" its path. */
    private static Map<String, Map<String, String>> summaries(Path dir, List<String> problems) throws IOException {
        Map<String, Map<String, String>> byCell = new LinkedHashMap<>();
        if (!Files.isDirectory(dir)) {
            return byCell;
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
        }
        for (Path file : files) {
            Map<String, String> fields = new LinkedHashMap<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    break;
                }
                int colon = line.indexOf(':');
                if (colon > 0) {
                    fields.put(
                            line.substring(0, colon).trim(),
                            line.substring(colon + 1).trim());
                }
            }
            fields.put("file", dir.getFileName() + "/" + file.getFileName());
            String cell = fields.get("cell");
            if (cell == null) {
                problems.add("docs/matrix/cells/" + file.getFileName()
                        + " has no 'cell:' line: it is not a summary ./matrix wrote; delete it");
            } else if (byCell.put(cell, fields) != null) {
                problems.add("two summaries of " + cell + " in docs/matrix/cells/: keep the one ./matrix wrote last");
            }
        }
        return byCell;
    }

    private static boolean passed(Map<String, String> summary) {
        return "pass".equals(summary.get("result"))
                && number(summary.get("tests")) > 0
                && number(summary.get("failures")) == 0
                && number(summary.get("skipped")) == 0;
    }

    private static long number(String value) {
        try {
            return Long.parseLong(value == null ? "" : value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String note(Map<String, String> summary) {
        String note = summary.getOrDefault("note", "");
        return note.isEmpty() ? "" : " (" + note + ")";
    }
}
