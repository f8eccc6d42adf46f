/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.arch;

import org.junit.jupiter.api.Test;

import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;

import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every public declaration of the published modules ({@link #MODULES}, the artifacts of {@code bom/pom.xml} that have
 * sources) has a Javadoc comment: each package with a public type (in its {@code package-info.java}), each public
 * type, and each public or protected constructor, method, field, enum constant and nested type of a type a user
 * sees, the compiler's default constructor included (a class of the API declares its constructor, with a comment). A method marked {@code @Override} inherits its overridden
 * method's comment and needs none; the {@code internal} packages and the types marked {@code @Internal}
 * (docs/architecture.md#api-annotations) are not the API and are not checked.
 *
 * <p>Why not javac's or javadoc's doclint: its {@code missing} group cannot ask for a comment without also asking
 * for an {@code @param} for each parameter and an {@code @return} for each method, which this project's prose
 * comments do not write. So the test parses the sources with the JDK's own compiler ({@code JavacTask#parse},
 * which reads but does not compile them: 2 to 5 s for the modules) and asks each declaration for its doc
 * comment. It fails when it reads fewer than {@value #MIN_FILES} sources, so that it never passes by reading
 * nothing.
 */
class PublicJavadocTest {

    /** The published modules with sources: {@code eosink-sql-connector} is {@code eosink-sql} shaded. */
    private static final List<String> MODULES = List.of(
            "modules/core",
            "modules/jdbc",
            "modules/postgres",
            "modules/xa",
            "modules/sql",
            "modules/cdc",
            "modules/replication",
            "modules/testing");

    /** Fewer sources than this: the modules were not found where the test looked. */
    static final int MIN_FILES = 200;

    @Test
    void everyPublicDeclarationOfThePublishedModulesHasJavadoc() throws IOException {
        Path root = repositoryRoot();
        List<Path> sources = new ArrayList<>();
        for (String module : MODULES) {
            // src/main/java and the sources per Flink line (src/main/flink-*) alike.
            Path main = root.resolve(module).resolve("src/main");
            if (!Files.isDirectory(main)) {
                fail("no " + main + ": the test looks for the modules' sources under the repository root " + root);
            }
            try (Stream<Path> walk = Files.walk(main)) {
                walk.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
                        .sorted()
                        .forEach(sources::add);
            }
        }
        if (sources.size() < MIN_FILES) {
            fail("found only " + sources.size() + " main sources in " + MODULES + " under " + root
                    + ", expected at least " + MIN_FILES + ": the test must read the modules' sources to check them");
        }

        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            fail("no Java compiler in " + System.getProperty("java.home") + ": run the build with a JDK, not a JRE");
        }
        List<String> missing = new ArrayList<>();
        // Package -> where a type of its API is, for the packages that have one; and those with a package comment.
        Map<String, Path> apiPackages = new TreeMap<>();
        Set<String> documentedPackages = new HashSet<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
            JavacTask task = (JavacTask) compiler.getTask(null, files, null, List.of("-proc:none"), null, units);
            DocTrees docs = DocTrees.instance(task);
            for (CompilationUnitTree unit : task.parse()) {
                String pkg = unit.getPackageName() == null
                        ? ""
                        : unit.getPackageName().toString();
                if (isInternal(pkg)) {
                    continue;
                }
                Path file = root.relativize(Path.of(unit.getSourceFile().toUri()));
                if (unit.getPackage() != null
                        && docs.getDocCommentTree(new TreePath(new TreePath(unit), unit.getPackage())) != null) {
                    documentedPackages.add(pkg);
                }
                for (Tree type : unit.getTypeDecls()) {
                    if (type instanceof ClassTree declared
                            && declared.getModifiers().getFlags().contains(Modifier.PUBLIC)
                            && !annotated(declared.getModifiers(), "Internal")) {
                        apiPackages.putIfAbsent(pkg, file.getParent());
                        check(docs, unit, file, new TreePath(new TreePath(unit), declared), missing);
                    }
                }
            }
        }
        apiPackages.forEach((pkg, dir) -> {
            if (!documentedPackages.contains(pkg)) {
                missing.add(dir + ": package " + pkg + " (its package-info.java, with what the package is for)");
            }
        });
        if (!missing.isEmpty()) {
            fail(missing.size() + " public declarations of the published modules have no Javadoc: write what each does,"
                    + " the limits of its arguments and what it throws (or mark a method that overrides"
                    + " @Override), see docs/architecture.md#the-rules-checked:\n  " + String.join("\n  ", missing));
        }
    }

    /** Checks a type the user sees, then its members that the user sees. */
    private static void check(
            DocTrees docs, CompilationUnitTree unit, Path file, TreePath typePath, List<String> missing) {
        ClassTree type = (ClassTree) typePath.getLeaf();
        if (annotated(type.getModifiers(), "Internal")) {
            return;
        }
        requireComment(docs, unit, file, typePath, kind(type) + " " + type.getSimpleName(), missing);
        if (type.getKind() == Tree.Kind.CLASS
                && type.getMembers().stream()
                        .noneMatch(m -> m instanceof MethodTree method
                                && method.getName().contentEquals("<init>"))) {
            // The compiler's default constructor is as public as its class, and has no comment to show.
            long line =
                    unit.getLineMap().getLineNumber(docs.getSourcePositions().getStartPosition(unit, type));
            missing.add(file + ":" + line + ": constructor " + type.getSimpleName()
                    + "() (the compiler's default: declare it, with its comment)");
        }
        boolean implicitlyPublic = type.getKind() == Tree.Kind.INTERFACE || type.getKind() == Tree.Kind.ANNOTATION_TYPE;
        for (Tree member : type.getMembers()) {
            TreePath path = new TreePath(typePath, member);
            if (member instanceof ClassTree nested) {
                if (visible(nested.getModifiers(), implicitlyPublic)) {
                    check(docs, unit, file, path, missing);
                }
            } else if (member instanceof MethodTree method) {
                if (visible(method.getModifiers(), implicitlyPublic) && !overrides(method.getModifiers())) {
                    String name = method.getName().contentEquals("<init>")
                            ? "constructor " + type.getSimpleName()
                            : "method " + method.getName();
                    requireComment(docs, unit, file, path, name + "(" + parameters(method) + ")", missing);
                }
            } else if (member instanceof VariableTree field) {
                // Enum constants and an interface's fields are public without saying so.
                boolean enumConstant = type.getKind() == Tree.Kind.ENUM
                        && field.getModifiers().getFlags().isEmpty()
                        && field.getType() != null
                        && field.getType()
                                .toString()
                                .equals(type.getSimpleName().toString());
                if (enumConstant || visible(field.getModifiers(), implicitlyPublic)) {
                    requireComment(
                            docs, unit, file, path, (enumConstant ? "constant " : "field ") + field.getName(), missing);
                }
            }
        }
    }

    private static void requireComment(
            DocTrees docs, CompilationUnitTree unit, Path file, TreePath path, String what, List<String> missing) {
        if (docs.getDocCommentTree(path) == null) {
            long line =
                    unit.getLineMap().getLineNumber(docs.getSourcePositions().getStartPosition(unit, path.getLeaf()));
            missing.add(file + ":" + line + ": " + what);
        }
    }

    private static boolean visible(ModifiersTree modifiers, boolean implicitlyPublic) {
        Set<Modifier> flags = modifiers.getFlags();
        if (implicitlyPublic) {
            return !flags.contains(Modifier.PRIVATE);
        }
        return flags.contains(Modifier.PUBLIC) || flags.contains(Modifier.PROTECTED);
    }

    private static boolean overrides(ModifiersTree modifiers) {
        return annotated(modifiers, "Override");
    }

    /** Whether the declaration carries the annotation of that simple name, imported or written out. */
    private static boolean annotated(ModifiersTree modifiers, String simpleName) {
        for (AnnotationTree annotation : modifiers.getAnnotations()) {
            String name = annotation.getAnnotationType().toString();
            if (name.equals(simpleName) || name.endsWith("." + simpleName)) {
                return true;
            }
        }
        return false;
    }

    private static String parameters(MethodTree method) {
        List<String> types = new ArrayList<>();
        for (VariableTree parameter : method.getParameters()) {
            types.add(parameter.getType().toString());
        }
        return String.join(", ", types);
    }

    private static String kind(ClassTree type) {
        return switch (type.getKind()) {
            case INTERFACE -> "interface";
            case ENUM -> "enum";
            case ANNOTATION_TYPE -> "annotation";
            case RECORD -> "record";
            default -> "class";
        };
    }

    /** A package that is not the API: {@code dev.eosink.X.internal} and below (docs/architecture.md). */
    private static boolean isInternal(String pkg) {
        return pkg.endsWith(".internal") || pkg.contains(".internal.");
    }

    /** The directory with README.md and docs/: Maven runs this test in modules/arch, an IDE perhaps at the root. */
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
