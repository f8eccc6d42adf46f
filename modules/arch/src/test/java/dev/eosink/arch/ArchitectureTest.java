/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.arch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import com.tngtech.archunit.core.domain.ThrowsDeclaration;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.constructors;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The rules between the modules, checked on the main classes of every module, the demo and the
 * benchmarks (test classes are not read: a module's tests may use its internals, and nothing else
 * sees them).
 *
 * <ul>
 *   <li>core is the database-neutral protocol: no JDBC type, no database module;
 *   <li>the XA sink knows nothing of the PostgreSQL sink;
 *   <li>the sinks know nothing of their SQL connector (sql), which is built on their builders;
 *   <li>cdc, the parsing of Debezium's events, knows nothing of the sinks nor of Kafka's or Flink's runtime;
 *   <li>a module's {@code internal} package is imported by that module alone;
 *   <li>every public top-level type of core, jdbc, postgres, xa, sql and cdc says whether it is API
 *       ({@link PublicEvolving}) or not ({@link Internal});
 *   <li>the API shows no HikariCP type: the pool is the PostgreSQL module's internal choice;
 *   <li>no record leaves {@code equals}, {@code hashCode} or {@code toString} to the compiler, whose
 *       versions pin a finished job's class loader on a long-lived TaskManager;
 *   <li>no constructor of core, jdbc, postgres, xa or cdc takes more than five parameters;
 *   <li>SQL text lives in the dialects ({@link #sqlTextLivesInTheDialects}).
 * </ul>
 */
@AnalyzeClasses(packages = "dev.eosink", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /** The sink's modules, whose public types are either API or internal. */
    private static final String[] SINK_MODULES = {
        "dev.eosink.core..",
        "dev.eosink.jdbc..",
        "dev.eosink.postgres..",
        "dev.eosink.xa..",
        "dev.eosink.sql..",
        "dev.eosink.cdc..",
        "dev.eosink.replication.."
    };

    @ArchTest
    static final ArchRule coreImportsNoJdbcAndNoDatabaseModule = noClasses()
            .that()
            .resideInAPackage("dev.eosink.core..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "java.sql..", "javax.sql..", "dev.eosink.jdbc..", "dev.eosink.postgres..", "dev.eosink.xa..")
            .because("core is the database-neutral protocol: a database enters it only through dev.eosink.core.spi");

    @ArchTest
    static final ArchRule xaImportsNoPostgresModule = noClasses()
            .that()
            .resideInAPackage("dev.eosink.xa..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("dev.eosink.postgres..")
            .because("eosink-xa depends on core and jdbc alone; it reaches PostgreSQL through pgjdbc's XADataSource");

    @ArchTest
    static final ArchRule sinksImportNoSqlConnector = noClasses()
            .that()
            .resideInAnyPackage("dev.eosink.core..", "dev.eosink.jdbc..", "dev.eosink.postgres..", "dev.eosink.xa..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("dev.eosink.sql..")
            .because("the SQL connector (eosink-sql) is built on the sinks' builders, never the other way round");

    @ArchTest
    static final ArchRule cdcImportsNoSinkModule = noClasses()
            .that()
            .resideInAPackage("dev.eosink.cdc..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "dev.eosink.core..",
                    "dev.eosink.jdbc..",
                    "dev.eosink.postgres..",
                    "dev.eosink.xa..",
                    "dev.eosink.sql..",
                    "java.sql..",
                    "javax.sql..")
            .because("eosink-cdc turns Debezium's events into values; the sinks that write them build on it, never "
                    + "the other way round");

    /**
     * The parsing takes bytes and gives values: of Flink it uses the annotations and the Jackson that Flink ships
     * shaded, of Kafka nothing, so that a Kafka source's deserializer, a test or a tool calls it alike. The Flink
     * functions over the events live in {@code dev.eosink.cdc.flink}, which the values never import.
     */
    @ArchTest
    static final ArchRule cdcUsesNoKafkaAndNoFlinkRuntime = noClasses()
            .that()
            .resideInAPackage("dev.eosink.cdc")
            .should()
            .dependOnClassesThat(com.tngtech.archunit.base.DescribedPredicate.describe(
                    "are of Kafka, or of Flink other than its annotations and shaded Jackson",
                    (JavaClass c) -> c.getPackageName().startsWith("org.apache.kafka")
                            || (c.getPackageName().startsWith("org.apache.flink")
                                    && !c.getPackageName().equals("org.apache.flink.annotation")
                                    && !c.getPackageName().startsWith("org.apache.flink.shaded.jackson2"))))
            .because("the events are parsed from bytes, wherever they come from");

    @ArchTest
    static final ArchRule cdcValuesImportNoFlinkFunctions = noClasses()
            .that()
            .resideInAPackage("dev.eosink.cdc")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("dev.eosink.cdc.flink..")
            .because("the events and their parser stay usable without Flink's runtime");

    @ArchTest
    static final ArchRule cdcFlinkFunctionsUseNoKafka = noClasses()
            .that()
            .resideInAPackage("dev.eosink.cdc.flink..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.apache.kafka..")
            .because("they work on parsed events, wherever they come from");

    @ArchTest
    static final ArchRule replicationBuildsOnTheRouteApiOnly = noClasses()
            .that()
            .resideInAPackage("dev.eosink.replication..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "dev.eosink.postgres..", "dev.eosink.xa..", "dev.eosink.sql..", "dev.eosink.jdbc.dialect..")
            .because("replication turns change events into a route's changes, which any sink of routed tables takes");

    @ArchTest
    static final ArchRule internalPackagesStayInTheirModule = classes()
            .should(importNoOtherModulesInternals())
            .because("dev.eosink.X.internal is the machinery of module X, free to change with it");

    @ArchTest
    static final ArchRule publicTypesSayWhetherTheyAreApi = classes()
            .that()
            .resideInAnyPackage(SINK_MODULES)
            .and()
            .arePublic()
            .and()
            .areTopLevelClasses()
            .should()
            .beAnnotatedWith(PublicEvolving.class)
            .orShould()
            .beAnnotatedWith(Internal.class)
            .because("a public type is either API for jobs and extenders (@PublicEvolving) or public only for "
                    + "another package or module of this project (@Internal); see each package's package-info");

    @ArchTest
    static final ArchRule apiShowsNoHikariCp = codeUnits()
            .that()
            .areDeclaredInClassesThat()
            .areAnnotatedWith(PublicEvolving.class)
            .and()
            .doNotHaveModifier(JavaModifier.PRIVATE)
            .should(haveNoTypeInSignatureFrom("com.zaxxer"))
            .because("the connection pool is internal to the PostgreSQL module: a job never sees it");

    /**
     * The compiler's {@code equals}, {@code hashCode} and {@code toString} of a record link, through
     * {@code invokedynamic}, to {@code java.lang.runtime.ObjectMethods}, whose JDK-wide method handles cache
     * the last type they were adapted to: the record's class, its class loader, and with it every class of
     * the job that used it last. On a session cluster each TaskManager then keeps one finished job's
     * user-code class loader for as long as it runs (seen on JDK 17 by SessionClusterITCase, the heap
     * path {@code ObjectMethods.OBJECT_EQ -> asTypeCache -> MethodType -> TransactionId}). Written-out
     * methods link to nothing shared.
     */
    @ArchTest
    static final ArchRule recordsWriteOutTheirObjectMethods = classes()
            .should(notLinkTo("java/lang/runtime/ObjectMethods"))
            .because("the compiler's equals, hashCode and toString of a record pin the job's class loader in a "
                    + "JDK-wide cache; a record of this project writes the three out");

    /**
     * No constructor of core, jdbc, postgres, xa or cdc takes more than five parameters: more is a sign of a class doing
     * several jobs, or of options that want to be one value (as {@code JdbcSinkOptions}, {@code XaSinkOptions} and
     * {@code PostgresSinkOptions} are). A record's canonical constructor counts too, so a record holds at most five
     * components; the compiler's synthetic constructors (of inner and anonymous classes) do not.
     */
    @ArchTest
    static final ArchRule constructorsTakeAtMostFiveParameters = constructors()
            .that()
            .areDeclaredInClassesThat()
            .resideInAnyPackage(
                    "dev.eosink.core..",
                    "dev.eosink.jdbc..",
                    "dev.eosink.postgres..",
                    "dev.eosink.xa..",
                    "dev.eosink.cdc..")
            .and()
            .doNotHaveModifier(JavaModifier.SYNTHETIC)
            .should(new ArchCondition<>("take at most five parameters") {
                @Override
                public void check(JavaConstructor c, ConditionEvents events) {
                    // An inner class's constructor takes its outer instance first: not a parameter anyone wrote.
                    int outer = c.getOwner().isInnerClass()
                                    && !c.getOwner().getModifiers().contains(JavaModifier.STATIC)
                            ? 1
                            : 0;
                    int written = c.getRawParameterTypes().size() - outer;
                    if (written > 5) {
                        events.add(SimpleConditionEvent.violated(
                                c, c.getFullName() + " takes " + written + " parameters"));
                    }
                }
            })
            .because("a constructor of more than five parameters is options that want to be one value, or a class "
                    + "with more than one job");
    /** A string constant that starts an SQL statement, in capitals as this project writes SQL. */
    private static final Pattern SQL_STATEMENT = Pattern.compile("^\\s*(SELECT|INSERT INTO|DELETE FROM|UPDATE|CREATE"
            + "|ALTER|DROP|SET|SAVEPOINT|ROLLBACK TO|WITH|TRUNCATE|KILL|LOCK|GRANT) ");

    /**
     * Where SQL text lives: a string constant of main code that starts an SQL statement (concatenations count: javac
     * keeps their fixed parts as constants) appears in core, jdbc, xa, sql and the admin tool only
     *
     * <ul>
     *   <li>in a dialect ({@code dev.eosink.jdbc.dialect..}): one per database, which the sinks and the tool ask;
     *   <li>in {@code InsertStatement}: the statement a job gives, or its columns' INSERT;
     *   <li>in the admin tool's reading of the PostgreSQL sink's own two-phase commit ({@code PostgresAdminDatabase}).
     * </ul>
     *
     * The PostgreSQL sink ({@code dev.eosink.postgres..}) is not read: it speaks PostgreSQL's own protocol (COPY,
     * {@code PREPARE TRANSACTION}, its catalog) and no other database. Nor are the demo, the benchmarks and the test
     * harness, which set up their own tables. A message that shows SQL as a remedy does not start with it.
     */
    @ArchTest
    static final ArchRule sqlTextLivesInTheDialects = classes()
            .that()
            .resideInAnyPackage(
                    "dev.eosink.core..",
                    "dev.eosink.jdbc..",
                    "dev.eosink.xa..",
                    "dev.eosink.sql..",
                    "dev.eosink.admin..")
            .and()
            .resideOutsideOfPackage("dev.eosink.jdbc.dialect..")
            .and()
            .doNotHaveFullyQualifiedName("dev.eosink.jdbc.sql.InsertStatement$Columns")
            .and()
            .doNotHaveFullyQualifiedName("dev.eosink.admin.PostgresAdminDatabase")
            .and()
            .doNotHaveFullyQualifiedName("dev.eosink.admin.PostgresAdminDatabase$1")
            .should(holdNoSqlText())
            .because("SQL text for a database lives in its dialect: adding a database is a dialect, not a hunt through "
                    + "the sinks");

    private static ArchCondition<JavaClass> holdNoSqlText() {
        return new ArchCondition<>("hold no SQL text") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                for (String constant : StringConstants.of(c)) {
                    if (SQL_STATEMENT.matcher(constant).find()) {
                        events.add(
                                SimpleConditionEvent.violated(c, c.getName() + " holds SQL text \"" + constant + "\""));
                    }
                }
            }
        };
    }

    private static final Pattern INTERNAL = Pattern.compile("dev\\.eosink\\.([a-z0-9_]+)\\.internal(\\..*)?");

    /** No dependency on {@code dev.eosink.X.internal..} from outside {@code dev.eosink.X..}. */
    private static ArchCondition<JavaClass> importNoOtherModulesInternals() {
        return new ArchCondition<>("import no other module's internal package") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    Matcher internal =
                            INTERNAL.matcher(dependency.getTargetClass().getPackageName());
                    if (!internal.matches()) {
                        continue;
                    }
                    String module = "dev.eosink." + internal.group(1);
                    String from = origin.getPackageName();
                    if (!from.equals(module) && !from.startsWith(module + ".")) {
                        events.add(SimpleConditionEvent.violated(
                                dependency,
                                dependency.getDescription() + ": only " + module + ".. may use " + module
                                        + ".internal"));
                    }
                }
            }
        };
    }

    /** No reference to {@code internalName} in the constant pool of the class file. */
    private static ArchCondition<JavaClass> notLinkTo(String internalName) {
        byte[] needle = internalName.getBytes(StandardCharsets.UTF_8);
        return new ArchCondition<>("not link to " + internalName.replace('/', '.')) {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                URI uri = type.getSource()
                        .orElseThrow(() -> new IllegalStateException("no class file for " + type))
                        .getUri();
                byte[] bytes;
                try (InputStream in = uri.toURL().openStream()) {
                    bytes = in.readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException("reading " + uri, e);
                }
                if (indexOf(bytes, needle) >= 0) {
                    events.add(SimpleConditionEvent.violated(
                            type,
                            type.getName() + " links to "
                                    + internalName.replace('/', '.') + ": write out equals, hashCode and toString, in "
                                    + type.getSourceCodeLocation()));
                }
            }
        };
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** No type of package {@code root} or below among a code unit's return, parameter, bound and thrown types. */
    private static ArchCondition<JavaCodeUnit> haveNoTypeInSignatureFrom(String root) {
        return new ArchCondition<>("have no type of " + root + ".. in their signature") {
            @Override
            public void check(JavaCodeUnit unit, ConditionEvents events) {
                Set<JavaClass> involved =
                        new LinkedHashSet<>(unit.getReturnType().getAllInvolvedRawTypes());
                for (JavaType parameter : unit.getParameterTypes()) {
                    involved.addAll(parameter.getAllInvolvedRawTypes());
                }
                for (JavaTypeVariable<?> variable : unit.getTypeParameters()) {
                    involved.addAll(variable.getAllInvolvedRawTypes());
                }
                for (ThrowsDeclaration<?> thrown : unit.getThrowsClause()) {
                    involved.add(thrown.getRawType());
                }
                for (JavaClass type : involved) {
                    if (type.getPackageName().equals(root)
                            || type.getPackageName().startsWith(root + ".")) {
                        events.add(SimpleConditionEvent.violated(
                                unit,
                                unit.getFullName() + " shows " + type.getName() + " in its signature, in "
                                        + unit.getSourceCodeLocation()));
                    }
                }
            }
        };
    }
}
