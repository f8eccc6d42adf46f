/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.arch;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The compatibility page claims only cells that the committed evidence of the version matrix backs, all
 * measured at one commit ({@link CompatibilityClaims}). The first test checks the repository's own docs; the
 * others check the checker on made-up evidence in a temporary directory, with the page's table written by
 * the repository's {@code ./matrix --write-page}, so that the script's output and the check agree.
 */
class CompatibilityClaimsTest {

    private static final String PG14 = "Flink 2.2 (default), PostgreSQL 14, Java 17";
    private static final String MARIADB = "Flink 1.20, MariaDB 10.11, Java 17";

    @TempDir
    Path tree;

    @Test
    void theCommittedEvidenceBacksEveryClaimOfTheCompatibilityPage() throws IOException {
        List<String> problems = CompatibilityClaims.problems(repositoryRoot().resolve("docs"));
        if (!problems.isEmpty()) {
            fail("docs/compatibility.md claims what docs/matrix/cells/ does not back:\n  "
                    + String.join("\n  ", problems));
        }
    }

    @BeforeEach
    void madeUpTree() throws IOException {
        Files.copy(repositoryRoot().resolve("matrix"), tree.resolve("matrix"));
        write("pom.xml", "<project><properties><flink.version>2.2.1</flink.version></properties></project>\n");
        write(
                "docs/compatibility.md",
                "# Compatibility\n\n## Claimed cells\n\n" + CompatibilityClaims.BEGIN + " -->\n"
                        + CompatibilityClaims.END + "\n");
        write("docs/matrix/claims.txt", "# kind flink db java\npostgres default 14 17\nmariadb flink-1.20 10.11 17\n");
    }

    @Test
    void claimsPassingAtOneCommitHold() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "abc1234");
        writePage();
        assertEquals(List.of(), problems());
        assertTrue(read("docs/compatibility.md").contains("Measured at commit `abc1234`"));
    }

    @Test
    void aClaimedCellWithoutSummaryFails() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", "abc1234");
        writePage();
        assertProblem(
                "the page claims 1 of its 2 cells without a summary of them in docs/matrix/cells/ (" + MARIADB + ")");
    }

    @Test
    void summariesFromTwoCommitsFail() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "def5678");
        writePage();
        assertProblem("come from 2 commits [abc1234, def5678], not one");
        assertProblem("does not say at which commit");
    }

    @Test
    void aClaimedCellThatFailedFails() throws Exception {
        summary("pg14-flink-default-java17", PG14, "fail", "43", "1", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "abc1234");
        writePage();
        assertProblem(
                "the page claims " + PG14 + ", but its summary cells/pg14-flink-default-java17.txt says result fail");
    }

    @Test
    void aPassWithNoTestOrWithSkippedTestsFails() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "0", "0", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "abc1234");
        replace("docs/matrix/cells/mariadb10.11-flink-flink-1.20-java17.txt", "skipped: 0", "skipped: 2");
        writePage();
        assertProblem("cells/pg14-flink-default-java17.txt says result pass, 0 tests");
        assertProblem("cells/mariadb10.11-flink-flink-1.20-java17.txt says result pass, 43 tests, 0 failed, 2 skipped");
    }

    @Test
    void noDirectoryOfSummariesFails() throws Exception {
        writePage();
        assertProblem("the page claims 2 of its 2 cells without a summary");
    }

    @Test
    void anotherSuiteThanTheHardCasesFails() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "abc1234");
        write(
                "docs/matrix/cells/pg14-flink-default-java17.txt",
                read("docs/matrix/cells/pg14-flink-default-java17.txt")
                        .replace("suite: PostgresHardCasesITCase", "suite: UpsertITCase"));
        writePage();
        assertProblem("is of UpsertITCase, not of the hard-case suite PostgresHardCasesITCase");
    }

    @Test
    void aRunWhoseMavenArgumentsChoseOtherTestsFails() throws Exception {
        // ./matrix --claimed --maven-args "-Dit.test=..." appends its -Dit.test after the suite's; Maven takes
        // the last, and the summary still names the suite.
        summary("pg14-flink-default-java17", PG14, "pass", "1", "0", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "abc1234");
        replace(
                "docs/matrix/cells/pg14-flink-default-java17.txt",
                " -Dtest=NoSuchTest\n",
                " -Dtest=NoSuchTest -Dit.test=PostgresHardCasesITCase#oneTest\n");
        writePage();
        assertProblem(
                "the page claims " + PG14 + ", but its summary cells/pg14-flink-default-java17.txt ran" + " ./mvnw");
    }

    @Test
    void summariesOfACommitOfTheHistoryHold() throws Exception {
        String head = commitTheTree();
        bothPassAt(head);
        writePage();
        assertEquals(List.of(), problems());
    }

    @Test
    void summariesOfACommitNotInTheHistoryFail() throws Exception {
        commitTheTree();
        bothPassAt("abc1234");
        writePage();
        assertProblem("abc1234 is not a commit of this repository's history");
    }

    @Test
    void summariesNamingARefInsteadOfACommitFail() throws Exception {
        commitTheTree();
        bothPassAt("HEAD");
        writePage();
        assertProblem("HEAD is not a commit of this repository's history");
    }

    @Test
    void aShallowCloneDoesNotJudgeACommitItLacks() throws Exception {
        // CI may clone with --depth 1: the measured commit is then not in the clone, which says nothing about it.
        String measured = commitTheTree();
        bothPassAt(measured);
        writePage();
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "evidence");
        Path clone = tree.resolve("shallow");
        git("clone", "-q", "--depth", "1", "file://" + tree, clone.toString());
        assertEquals(List.of(), CompatibilityClaims.problems(clone.resolve("docs")));
    }

    /** Makes the made-up tree a git repository of one commit; its abbreviated name. */
    private String commitTheTree() throws Exception {
        git("init", "-q");
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "tree");
        return git("rev-parse", "--short", "HEAD").strip();
    }

    private String git(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("git", "-C", tree.toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            fail(command + " failed:\n" + output);
        }
        return output;
    }

    @Test
    void aRunOnUncommittedChangesFails() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", "abc1234+changes");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "abc1234+changes");
        writePage();
        assertProblem("ran at 'abc1234+changes', not at a commit");
    }

    @Test
    void aPageNotRegeneratedFails() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", "abc1234");
        writePage();
        write("docs/compatibility.md", read("docs/compatibility.md").replace("`abc1234`", "`0000000`"));
        write("docs/matrix/claims.txt", read("docs/matrix/claims.txt") + "postgres default 18 17\n");
        assertProblem("says it was measured at 0000000, its evidence at abc1234");
        assertProblem("claims 2 cells, docs/matrix/claims.txt lists 3");
    }

    @Test
    void aSummaryOfOtherVersionsThanTheCellsFails() throws Exception {
        bothPassAt("abc1234");
        replace(
                "docs/matrix/cells/pg14-flink-default-java17.txt",
                "versions: Flink 2.2.1, Java 17.0.15+6-Debian-1deb12u1, PostgreSQL 14.22",
                "versions: Flink 2.2.1, Java 17.0.15+6-Debian-1deb12u1, PostgreSQL 16.4");
        replace(
                "docs/matrix/cells/mariadb10.11-flink-flink-1.20-java17.txt",
                "versions: Flink 1.20.5, Java 17.0.15+6-Debian-1deb12u1,",
                "versions: Flink 2.2.1, Java 21.0.5,");
        writePage();
        assertProblem("the page claims " + PG14 + ", but its summary cells/pg14-flink-default-java17.txt says"
                + " Flink 2.2.1, Java 17.0.15+6-Debian-1deb12u1, PostgreSQL 16.4 ran");
        assertProblem("the page claims " + MARIADB + ", but its summary cells/mariadb10.11-flink-flink-1.20-java17.txt"
                + " says Flink 2.2.1, Java 21.0.5, MariaDB 10.11.9 ran");
    }

    @Test
    void aSummaryThatDoesNotSayWhichVersionsRanFails() throws Exception {
        bothPassAt("abc1234");
        replace(
                "docs/matrix/cells/pg14-flink-default-java17.txt",
                "versions: Flink 2.2.1, Java 17.0.15+6-Debian-1deb12u1, PostgreSQL 14.22",
                "versions: ");
        writePage();
        assertProblem("the page claims " + PG14
                + ", but its summary cells/pg14-flink-default-java17.txt does not say which versions ran");
    }

    @Test
    void aRowAddedByHandWithoutSpacesFails() throws Exception {
        bothPassAt("abc1234");
        writePage();
        replace(
                "docs/compatibility.md",
                "\n\n" + CompatibilityClaims.END,
                "\n|Flink 2.3, MariaDB 12.0, Java 25|pass|43||||\n\n" + CompatibilityClaims.END);
        assertProblem("Flink 2.3, MariaDB 12.0, Java 25");
    }

    @Test
    void aRowReplacedByHandWithAnotherCellFails() throws Exception {
        bothPassAt("abc1234");
        summary("pg18-flink-default-java17", PG14.replace("14", "18"), "pass", "43", "0", "abc1234");
        replace("docs/matrix/cells/pg18-flink-default-java17.txt", "PostgreSQL 14.22", "PostgreSQL 18.1");
        writePage();
        // The page's rows are as many as claims.txt's, but not its cells.
        replace("docs/compatibility.md", "| " + MARIADB + " |", "| " + PG14.replace("14", "18") + " |");
        assertProblem(MARIADB);
    }

    @Test
    void aRowEditedByHandFails() throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", "abc1234");
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "1", "0", "abc1234");
        writePage();
        replace("docs/compatibility.md", "| " + MARIADB + " | pass | 1 |", "| " + MARIADB + " | pass | 43 |");
        assertProblem("the page's row of " + MARIADB);
    }

    @Test
    void aCellListedTwiceFails() throws Exception {
        bothPassAt("abc1234");
        write("docs/matrix/claims.txt", read("docs/matrix/claims.txt") + "postgres  default\t14 17\n");
        writePage();
        assertProblem("docs/matrix/claims.txt lists " + PG14 + " twice");
    }

    @Test
    void aSecondBlockOfClaimedCellsFails() throws Exception {
        bothPassAt("abc1234");
        writePage();
        String page = read("docs/compatibility.md");
        String block = page.substring(page.indexOf(CompatibilityClaims.BEGIN));
        write(
                "docs/compatibility.md",
                page + "\n## More claimed cells\n\n" + block.replace(MARIADB, "Flink 2.3, MariaDB 12.0, Java 25"));
        assertProblem("2 times");
    }

    private List<String> problems() throws IOException {
        return CompatibilityClaims.problems(tree.resolve("docs"));
    }

    private void assertProblem(String part) throws IOException {
        List<String> problems = problems();
        assertTrue(problems.stream().anyMatch(p -> p.contains(part)), "no problem with '" + part + "' in " + problems);
    }

    private void summary(String slug, String cell, String result, String tests, String failures, String commit)
            throws IOException {
        write(
                "docs/matrix/cells/" + slug + ".txt",
                "cell: " + cell + "\nsuite: "
                        + (cell.contains("MariaDB") ? "XaMariaDbHardCasesITCase" : "PostgresHardCasesITCase")
                        + "\nresult: "
                        + result + "\ntests: " + tests + "\nfailures: " + failures + "\nskipped: 0\nminutes: 2.5\n"
                        + "versions: " + versionsThatRan(cell) + "\ndate: 2026-12-07 21:00\ncommit: " + commit
                        + "\ncommand: ./mvnw -B -ntp -pl modules/" + (cell.contains("MariaDB") ? "xa" : "postgres")
                        + " -am verify -Dit.test="
                        + (cell.contains("MariaDB") ? "XaMariaDbHardCasesITCase" : "PostgresHardCasesITCase")
                        + " -Dtest=NoSuchTest\nnote: \n\n"
                        + "Log summary\n[INFO] Tests run: " + tests + ", Failures: " + failures + "\n");
    }

    /** What a run of the cell logs as the versions that ran. */
    private static String versionsThatRan(String cell) {
        return cell.contains("MariaDB")
                ? "Flink 1.20.5, Java 17.0.15+6-Debian-1deb12u1, MariaDB 10.11.9"
                : "Flink 2.2.1, Java 17.0.15+6-Debian-1deb12u1, PostgreSQL 14.22";
    }

    private void bothPassAt(String commit) throws Exception {
        summary("pg14-flink-default-java17", PG14, "pass", "43", "0", commit);
        summary("mariadb10.11-flink-flink-1.20-java17", MARIADB, "pass", "43", "0", commit);
    }

    private void replace(String path, String from, String to) throws IOException {
        String text = read(path);
        assertTrue(text.contains(from), path + " has no '" + from + "'");
        write(path, text.replace(from, to));
    }

    @Test
    void aMalformedClaimStopsTheScriptBeforeItWritesAnything() throws Exception {
        bothPassAt("abc1234");
        write(
                "docs/matrix/claims.txt",
                "postgres default 14 17\npostgres default 18 17 # the newest\nmariadb flink-1.20 10.11 17\n");
        String page = read("docs/compatibility.md");
        for (String option : List.of("--write-page", "--claimed --dry-run")) {
            Process process = matrix(option.split(" "));
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS));
            assertTrue(process.exitValue() != 0, "./matrix " + option + " went on after the bad line:\n" + output);
            assertTrue(!output.contains("Flink 2.2 (default), PostgreSQL 14"), "./matrix " + option + ":\n" + output);
        }
        assertEquals(page, read("docs/compatibility.md"));
    }

    private Process matrix(String... options) throws IOException {
        List<String> command =
                new ArrayList<>(List.of("bash", tree.resolve("matrix").toString()));
        command.addAll(List.of(options));
        return new ProcessBuilder(command)
                .directory(tree.toFile())
                .redirectErrorStream(true)
                .start();
    }

    /** Runs the repository's ./matrix --write-page in the made-up tree. */
    private void writePage() throws Exception {
        Process process = new ProcessBuilder("bash", tree.resolve("matrix").toString(), "--write-page")
                .directory(tree.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            fail("./matrix --write-page failed in " + tree + ":\n" + output);
        }
    }

    private void write(String path, String text) throws IOException {
        Path file = tree.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private String read(String path) throws IOException {
        return Files.readString(tree.resolve(path), StandardCharsets.UTF_8);
    }

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
