/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documentation cannot rot: every {@code java} block of {@code README.md} and {@code docs/*.md} is a
 * region of a class in this package's main sources, which the build compiles, and every relative link
 * of those pages and of {@code CHANGELOG.md} names a file that exists (and, for a page, a heading it has).
 *
 * <p>A {@code java} block is preceded by {@code <!-- sample: File.java#name -->}, and {@code File.java}
 * holds {@code // [START name]} ... {@code // [END name]}; block and region must be the same lines once
 * their common indentation is stripped. A {@code sql} block preceded by {@code <!-- sample:
 * script.sql#name -->} is likewise a region ({@code -- [START name]} ... {@code -- [END name]}) of a
 * script in {@code examples/sql}, which SqlScriptsITCase and {@code ./demo --sql} run. Other blocks
 * (bash, xml, gradle, unmarked sql, ...) are not checked. Run with {@code -Dsamples.update=true} to
 * rewrite every marked block from its region instead of failing.
 */
class DocSamplesTest {

    private static final Path ROOT = repositoryRoot();
    private static final Path SAMPLES = ROOT.resolve("examples/src/main/java/dev/eosink/examples/docs");
    /** The SQL scripts of the examples, which {@code sql} blocks show regions of (run by SqlScriptsITCase). */
    private static final Path SQL_SAMPLES = ROOT.resolve("examples/sql");

    private static final String HOW_TO_FIX = "edit the sample class and copy its region into the page (or run "
            + "this test with -Dsamples.update=true, which rewrites the page's blocks from the samples)";

    private static final Pattern FENCE = Pattern.compile("^\\s*(```+|~~~+)\\s*([^\\s`]*).*$");
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*sample:\\s*([^#\\s]+)#(\\S+)\\s*-->\\s*$");
    private static final Pattern REGION = Pattern.compile("^\\s*(?://|--)\\s*\\[(START|END)\\s+(\\S+)]\\s*$");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    /** A markdown link or image, [text](target) or ![alt](target), its text perhaps over several lines. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(([^)\\s]+)\\)");

    private static final Pattern CODE_SPAN = Pattern.compile("(`+).*?\\1");

    @Test
    void everyJavaBlockIsACompiledSample() throws IOException {
        boolean update = Boolean.getBoolean("samples.update");
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = read(page);
            boolean changed = false;
            for (Block block : blocks(lines)) {
                String at = ROOT.relativize(page) + ":" + (block.fenceLine + 1);
                if (block.marker == null) {
                    if (block.language.equals("java")) {
                        problems.add(at + ": a java block without a sample line before it; add "
                                + "<!-- sample: File.java#name --> and the region // [START name] ... // [END name] "
                                + "to a class in " + ROOT.relativize(SAMPLES));
                    }
                    continue;
                }
                String expected = language(block.marker.group(1));
                if (!block.language.equals(expected)) {
                    problems.add(at + ": a sample line naming a ." + expected + " file before a block that is not "
                            + expected + " (" + block.language + ")");
                    continue;
                }
                List<String> region;
                try {
                    region = region(block.marker.group(1), block.marker.group(2));
                } catch (IllegalArgumentException e) {
                    problems.add(at + ": " + e.getMessage());
                    continue;
                }
                List<String> shown = dedent(lines.subList(block.fenceLine + 1, block.endLine));
                if (shown.equals(region)) {
                    continue;
                }
                if (update) {
                    lines.subList(block.fenceLine + 1, block.endLine).clear();
                    lines.addAll(block.fenceLine + 1, region);
                    changed = true;
                    break; // the later blocks' line numbers are stale now: write the page and read it again
                }
                problems.add(at + ": the " + block.language + " block differs from " + block.marker.group(1) + "#"
                        + block.marker.group(2) + " " + firstDifference(shown, region, block.fenceLine + 2) + "; "
                        + HOW_TO_FIX);
            }
            if (changed) {
                // Blocks are rewritten one page at a time; a rewrite shifts later lines, so go again.
                Files.write(page, lines, StandardCharsets.UTF_8);
                everyJavaBlockIsACompiledSample();
                return;
            }
        }
        assertThat(problems).as("java blocks of README.md and docs/*.md").isEmpty();
    }

    @Test
    void everySampleRegionIsShownOnAPage() throws IOException {
        Set<String> shown = new TreeSet<>();
        for (Path page : pages()) {
            for (Block block : blocks(read(page))) {
                if (block.marker != null) {
                    shown.add(block.marker.group(1) + "#" + block.marker.group(2));
                }
            }
        }
        Set<String> regions = new TreeSet<>();
        try (Stream<Path> files = Stream.concat(Files.list(SAMPLES), Files.list(SQL_SAMPLES))) {
            for (Path file : files.filter(
                            f -> f.toString().endsWith(".java") || f.toString().endsWith(".sql"))
                    .collect(Collectors.toList())) {
                for (String line : read(file)) {
                    Matcher m = REGION.matcher(line);
                    if (m.matches() && m.group(1).equals("START")) {
                        regions.add(file.getFileName() + "#" + m.group(2));
                    }
                }
            }
        }
        regions.removeAll(shown);
        assertThat(regions)
                .as("sample regions no page shows (show them, or delete them)")
                .isEmpty();
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            // The page's prose: code blocks and code spans blanked, so that a link may span lines.
            List<String> lines = read(page);
            for (Block block : blocks(lines)) {
                for (int i = block.fenceLine; i <= Math.min(block.endLine, lines.size() - 1); i++) {
                    lines.set(i, "");
                }
            }
            String prose = CODE_SPAN.matcher(String.join("\n", lines)).replaceAll("");
            Matcher link = LINK.matcher(prose);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // https:, mailto:: not this test's business
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved =
                        file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                long line = prose.substring(0, link.start())
                                .chars()
                                .filter(c -> c == '\n')
                                .count()
                        + 1;
                String at = ROOT.relativize(page) + ":" + line + ": " + target;
                if (!Files.exists(resolved)) {
                    problems.add(at + ": no such file " + ROOT.relativize(resolved));
                } else if (anchor != null
                        && resolved.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(resolved, DocSamplesTest::anchors)
                                .contains(anchor)) {
                    problems.add(at + ": " + ROOT.relativize(resolved) + " has no heading #" + anchor);
                }
            }
        }
        assertThat(problems)
                .as("relative links of README.md, CHANGELOG.md and docs/*.md")
                .isEmpty();
    }

    /** A fenced block: the line of its opening fence, the line of its closing one, and the sample line before it. */
    private static final class Block {
        final int fenceLine;
        final int endLine;
        final String language;
        final Matcher marker;

        Block(int fenceLine, int endLine, String language, Matcher marker) {
            this.fenceLine = fenceLine;
            this.endLine = endLine;
            this.language = language;
            this.marker = marker;
        }
    }

    private static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).trim().equals(open.group(1))) {
                end++;
            }
            int before = i - 1;
            while (before >= 0 && lines.get(before).isBlank()) {
                before--;
            }
            Matcher marker = before >= 0 ? MARKER.matcher(lines.get(before)) : null;
            blocks.add(new Block(
                    i,
                    end,
                    open.group(2).toLowerCase(Locale.ROOT),
                    marker != null && marker.matches() ? marker : null));
            i = end;
        }
        return blocks;
    }

    /** The language of a sample file's blocks: {@code sql} for a script of examples/sql, else {@code java}. */
    private static String language(String file) {
        return file.endsWith(".sql") ? "sql" : "java";
    }

    /**
     * The lines between {@code // [START name]} and {@code // [END name]} of a sample file ({@code --}
     * instead of {@code //} in a SQL script), dedented.
     */
    private static List<String> region(String file, String name) {
        Path path = (file.endsWith(".sql") ? SQL_SAMPLES : SAMPLES).resolve(file);
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("no sample file " + ROOT.relativize(path));
        }
        List<String> lines = read(path);
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = REGION.matcher(lines.get(i));
            if (m.matches() && m.group(2).equals(name)) {
                if (m.group(1).equals("START")) {
                    start = i;
                } else if (start >= 0) {
                    return dedent(lines.subList(start + 1, i));
                }
            }
        }
        throw new IllegalArgumentException(
                ROOT.relativize(path) + " has no region // [START " + name + "] ... // [END " + name + "]");
    }

    /** The lines without trailing blanks and without the indentation they all share. */
    private static List<String> dedent(List<String> lines) {
        int common = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        return lines.stream()
                .map(l -> l.isBlank() ? "" : l.substring(common).stripTrailing())
                .collect(Collectors.toList());
    }

    private static String firstDifference(List<String> shown, List<String> region, int firstLine) {
        for (int i = 0; i < Math.max(shown.size(), region.size()); i++) {
            String s = i < shown.size() ? shown.get(i) : "(nothing)";
            String r = i < region.size() ? region.get(i) : "(nothing)";
            if (!s.equals(r)) {
                return "at line " + (firstLine + i) + ": the page has [" + s + "], the sample [" + r + "]";
            }
        }
        return "";
    }

    /** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path page) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        boolean inBlock = false;
        for (String line : read(page)) {
            if (FENCE.matcher(line).matches()) {
                inBlock = !inBlock;
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (inBlock || !h.matches()) {
                continue;
            }
            String text =
                    h.group(2).replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1").replace("`", "");
            String slug = text.toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return anchors;
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        pages.add(ROOT.resolve("CHANGELOG.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static List<String> read(Path file) {
        try {
            return new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory with README.md and docs/: Maven runs this test in examples/, an IDE perhaps at the root. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no README.md with docs/ above " + Path.of("").toAbsolutePath());
    }
}
