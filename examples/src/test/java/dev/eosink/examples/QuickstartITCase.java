/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The newcomer's path: {@code quickstart/} copied as a user copies it, built and tested with Maven as a user
 * builds it ({@code mvn verify}: its own test runs the job on a MiniCluster against an embedded PostgreSQL),
 * then run with its local run command ({@code ./run-local}), exact; all of it against the artifacts of this
 * build, not of an earlier install.
 *
 * <p>How, without {@code mvn install}: a local repository of its own (under {@code target/}) holds this
 * build's jars and flattened POMs of the eosink artifacts that the template needs, found from the template's
 * POM through theirs; Maven's chained local repository ({@code maven.repo.local.tail}) serves the rest
 * (Flink, plugins) read-only from the build's own local repository, offline. So it needs the reactor to have
 * packaged those modules first ({@code ./mvnw verify} does; with {@code -pl examples}, add {@code -am}).
 */
class QuickstartITCase {

    private static final Path ROOT = repositoryRoot();
    private static final Path TEMPLATE = ROOT.resolve("quickstart");
    private static final Path WORK = Path.of("target", "quickstart").toAbsolutePath();
    private static final Pattern EOSINK_DEPENDENCY =
            Pattern.compile("<groupId>dev\\.eosink</groupId>\\s*<artifactId>(eosink-[a-z-]+)</artifactId>");

    private final String version = property("eosink.version");
    private final String flinkVersion = property("flink.version");
    private final String binariesVersion = property("embedded.postgres.binaries.version");
    private final Path userRepository = Path.of(property("quickstart.repo.tail"));

    @Test
    void theTemplateBuildsTestsAndRunsExactAgainstThisBuild() throws Exception {
        templateNamesTheBuildsDefaults();
        deleteRecursively(WORK);
        Path repository = WORK.resolve("repository");
        Set<String> installed = installThisBuildsArtifacts(repository);
        Path project = WORK.resolve("project");
        copyTemplate(project);

        String maven = ROOT.resolve(windows() ? "mvnw.cmd" : "mvnw") + " -B -ntp -o"
                + " -Dmaven.repo.local=" + repository + " -Dmaven.repo.local.tail=" + userRepository
                + " -Deosink.version=" + version + " -Dflink.version=" + flinkVersion
                + " -Dembedded.postgres.binaries.version=" + binariesVersion;

        String build = run(project, "verify.log", List.of(maven.split(" ")), List.of("verify"));
        assertThat(build)
                .as("quickstart's mvn verify (its test: the job on a MiniCluster, exact)")
                .contains("Tests run: 1, Failures: 0, Errors: 0, Skipped: 0")
                .contains("BUILD SUCCESS");
        Path jar = project.resolve("target/quickstart-job.jar");
        jarIsReadyForFlinkRun(jar);
        for (String module : List.of("core", "jdbc", "postgres")) {
            holdsThisBuildsClasses(jar, module);
        }

        String local =
                run(project, "run-local.log", List.of("./run-local"), List.of("com.example.LocalRun", "20000"), maven);
        assertThat(local)
                .as("./run-local (eosink artifacts from this build: %s)", installed)
                .contains(
                        "20000 orders sent; the table holds 20000 rows, 20000 distinct ids; 0 transactions left prepared")
                .contains("exact");
    }

    /** The template's versions are this build's defaults: a new line or release updates them there too. */
    private void templateNamesTheBuildsDefaults() throws IOException {
        String root = Files.readString(ROOT.resolve("pom.xml"));
        String template = Files.readString(TEMPLATE.resolve("pom.xml"));
        String defaultVersion =
                first(root, "eosink.version") + "-" + first(root, "flink.line") + first(root, "changelist");
        List<String> stale = new ArrayList<>();
        for (String[] p : new String[][] {
            {"eosink.version", defaultVersion},
            {"flink.version", first(root, "flink.version")},
            {"embedded.postgres.binaries.version", first(root, "embedded.postgres.binaries.version")}
        }) {
            if (!first(template, p[0]).equals(p[1])) {
                stale.add(p[0] + " is " + first(template, p[0]) + ", the build's default " + p[1]);
            }
        }
        assertThat(stale)
                .as("quickstart/pom.xml's properties must be the root pom.xml's defaults; update quickstart/pom.xml")
                .isEmpty();
    }

    /**
     * This build's jar and flattened POM of each eosink artifact the template depends on, directly or through
     * another one, in the layout of a local repository. Returns their artifact ids.
     */
    private Set<String> installThisBuildsArtifacts(Path repository) throws IOException {
        Set<String> done = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(eosinkArtifacts(Files.readString(TEMPLATE.resolve("pom.xml"))));
        while (!todo.isEmpty()) {
            String artifact = todo.pop();
            if (!done.add(artifact)) {
                continue;
            }
            Path module = artifact.equals("eosink-bom")
                    ? ROOT.resolve("bom")
                    : ROOT.resolve("modules").resolve(artifact.substring("eosink-".length()));
            Path pom = module.resolve("target/.flattened-pom.xml");
            Path jar = module.resolve("target/" + artifact + "-" + version + ".jar");
            boolean isBom = artifact.equals("eosink-bom");
            if (!Files.isRegularFile(pom) || (!isBom && !Files.isRegularFile(jar))) {
                throw new IllegalStateException("quickstart needs " + artifact + " of this build, but "
                        + (Files.isRegularFile(pom) ? jar : pom) + " is missing: build its module first "
                        + "(./mvnw verify from the repository's root, or add -am to -pl examples)");
            }
            Path dir = repository.resolve("dev/eosink").resolve(artifact).resolve(version);
            Files.createDirectories(dir);
            String flattened = Files.readString(pom);
            Files.writeString(dir.resolve(artifact + "-" + version + ".pom"), flattened);
            if (!isBom) {
                Files.copy(jar, dir.resolve(artifact + "-" + version + ".jar"), StandardCopyOption.REPLACE_EXISTING);
                todo.addAll(eosinkArtifacts(flattened));
            }
        }
        return done;
    }

    private static List<String> eosinkArtifacts(String pom) {
        List<String> artifacts = new ArrayList<>();
        Matcher m = EOSINK_DEPENDENCY.matcher(pom);
        while (m.find()) {
            artifacts.add(m.group(1));
        }
        return artifacts;
    }

    /** The template as a user copies it: its sources, no build output. */
    private static void copyTemplate(Path project) throws IOException {
        try (Stream<Path> files = Files.walk(TEMPLATE)) {
            for (Path from : (Iterable<Path>) files::iterator) {
                Path relative = TEMPLATE.relativize(from);
                if (relative.startsWith("target")) {
                    continue;
                }
                Path to = project.resolve(relative.toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    /** What {@code flink run} needs of the jar: the job, eosink and pgjdbc, and no Flink or logging. */
    private static void jarIsReadyForFlinkRun(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            assertThat(j.getManifest().getMainAttributes().getValue("Main-Class"))
                    .as("Main-Class")
                    .isEqualTo("com.example.OrdersJob");
            for (String entry : List.of(
                    "com/example/OrdersJob.class",
                    "dev/eosink/postgres/PostgresSink.class",
                    "org/postgresql/Driver.class",
                    "com/zaxxer/hikari/HikariDataSource.class",
                    "META-INF/services/java.sql.Driver")) {
                assertThat(j.getEntry(entry)).as("%s in %s", entry, jar).isNotNull();
            }
            assertThat(j.stream().map(e -> e.getName()))
                    .as("classes of Flink or of logging in %s (they are the cluster's)", jar)
                    .noneMatch(n -> n.startsWith("org/apache/flink/streaming/")
                            || n.startsWith("org/apache/flink/runtime/")
                            || n.startsWith("org/slf4j/")
                            || n.startsWith("org/apache/logging/"));
        }
    }

    /**
     * The shaded jar's copy of each class of an eosink module is this build's, byte for byte: not one of an
     * earlier install that the chained repository could also have served.
     */
    private static void holdsThisBuildsClasses(Path jar, String module) throws IOException {
        Path classes = ROOT.resolve("modules").resolve(module).resolve("target/classes");
        List<String> differing = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile());
                Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                String entry = classes.relativize(file).toString().replace('\\', '/');
                var shaded = j.getEntry(entry);
                if (shaded == null
                        || !java.util.Arrays.equals(
                                j.getInputStream(shaded).readAllBytes(), Files.readAllBytes(file))) {
                    differing.add(entry);
                }
            }
        }
        assertThat(differing)
                .as("classes of %s in %s missing or not this build's", classes, jar)
                .isEmpty();
    }

    /** Runs a command in the project, its output into a log under target/quickstart; returns that output. */
    private static String run(Path project, String log, List<String> command, List<String> args, String... mvn)
            throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(command);
        line.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(line).directory(project.toFile()).redirectErrorStream(true);
        Path out = WORK.resolve(log);
        pb.redirectOutput(out.toFile());
        // The template's PostgreSQL is its own embedded one (or a container), as a newcomer's: never a server
        // this build's tests share, where its table orders could meet theirs.
        pb.environment().remove("EOSINK_TEST_JDBC_URL");
        if (mvn.length > 0) {
            pb.environment().put("MVN", mvn[0]);
        }
        Process p = pb.start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", args) + " in " + project + " ran over 5 minutes; see " + out);
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue())
                .as("exit status of %s in %s; its output (%s):%n%s", line, project, out, tail(output))
                .isZero();
        return output;
    }

    private static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 60), lines.length));
    }

    private static String first(String pom, String property) {
        Matcher m =
                Pattern.compile("<" + Pattern.quote(property) + ">([^<]*)</").matcher(pom);
        if (!m.find()) {
            throw new IllegalStateException("no <" + property + "> in a pom.xml");
        }
        return m.group(1);
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException("system property " + name + " not set: examples/pom.xml's failsafe "
                    + "configuration sets it; run this test through Maven");
        }
        return value;
    }

    private static boolean windows() {
        return System.getProperty("os.name").startsWith("Windows");
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted((a, b) -> b.compareTo(a))::iterator) {
                Files.delete(p);
            }
        }
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("quickstart"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no README.md with quickstart/ above " + Path.of("").toAbsolutePath());
    }
}
