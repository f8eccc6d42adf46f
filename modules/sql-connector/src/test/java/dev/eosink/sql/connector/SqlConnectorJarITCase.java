/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.connector;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connector jar as a user takes it: what it holds, and SQL scripts run through Flink's own SQL
 * client ({@link FlinkSqlClient}) with the jar handed to it by {@code -j}, against the tests' real
 * PostgreSQL. Each script ends with exact counts: the expected rows, no duplicate, nothing prepared
 * left.
 *
 * <p>The jar is the one {@code package} built in this module: failsafe names it in {@code
 * eosink.sql.connector.jar}. The scripts are read from {@code eosink.sql.scripts} (this module's
 * {@code src/test/resources/sql}; the pom sets both). To run the documented scripts of {@code
 * examples/sql} instead, point that property at {@code ${project.basedir}/../../examples/sql} and name
 * their files here: their placeholders must be among those each test fills ({@code url}, {@code
 * username}, {@code password}, {@code table}, {@code sink.id}), or the run fails naming the others.
 */
class SqlConnectorJarITCase {

    private static Path connectorJar;
    private static Path scripts;

    private final PostgresFixture db = PostgresFixture.get();
    private final List<String> sinkIds = new ArrayList<>();

    @TempDir
    Path workDir;

    @BeforeAll
    static void locate() {
        connectorJar = Path.of(property("eosink.sql.connector.jar"));
        scripts = Path.of(property("eosink.sql.scripts"));
        assertThat(connectorJar)
                .as("the connector jar, built by `package` before the integration tests")
                .isRegularFile();
    }

    @AfterEach
    void rollBackLeftovers() {
        sinkIds.forEach(id -> db.rollbackPrepared(TransactionId.sinkPrefix(id)));
    }

    /**
     * The jar holds the connector, both factories in its services file, pgjdbc and HikariCP relocated,
     * the licenses of what it bundles; none of Flink's own classes, no MariaDB driver, and no
     * {@code java.sql.Driver} entry that would offer the relocated pgjdbc to other code.
     */
    @Test
    void theJarHoldsTheConnectorAndWhatItNeedsAndNothingOfFlinks() throws IOException {
        List<String> entries = new ArrayList<>();
        String factories;
        try (JarFile jar = new JarFile(connectorJar.toFile())) {
            jar.stream().map(JarEntry::getName).forEach(entries::add);
            factories = new String(
                    jar.getInputStream(jar.getEntry("META-INF/services/org.apache.flink.table.factories.Factory"))
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
        }
        assertThat(factories.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")))
                .containsExactlyInAnyOrder(
                        "dev.eosink.sql.PostgresDynamicTableSinkFactory", "dev.eosink.sql.XaDynamicTableSinkFactory");
        assertThat(entries)
                .contains(
                        "dev/eosink/core/TransactionId.class",
                        "dev/eosink/jdbc/JdbcSinkBuilderBase.class",
                        "dev/eosink/postgres/PostgresSink.class",
                        "dev/eosink/xa/XaSink.class",
                        "dev/eosink/sql/PostgresDynamicTableSinkFactory.class",
                        "dev/eosink/shaded/org/postgresql/Driver.class",
                        "dev/eosink/shaded/com/zaxxer/hikari/HikariDataSource.class",
                        "dev/eosink/shaded/org/apache/flink/connector/jdbc/JdbcConnectionOptions.class",
                        "META-INF/LICENSE",
                        "META-INF/NOTICE");
        assertThat(entries).anyMatch(e -> e.startsWith("META-INF/licenses/org.postgresql/"));
        List<String> classes =
                entries.stream().filter(e -> e.endsWith(".class")).toList();
        assertThat(classes)
                .as("every class is the connector's or relocated under dev.eosink.shaded")
                .allMatch(e -> e.startsWith("dev/eosink/"))
                .noneMatch(e -> e.startsWith("dev/eosink/testing/"));
        assertThat(entries)
                .doesNotContain("META-INF/services/java.sql.Driver")
                .noneMatch(e -> e.startsWith("org/mariadb/"));
    }

    /**
     * {@code sql/bounded-insert.sql}: 2,000 ids from a bounded datagen source into an {@code
     * eosink-postgres} table, at parallelism 2 with checkpoints every second, so that several
     * checkpoints commit and the last one commits at the end of the input. The sink connects as a role
     * with a password. Every row once, with the values the script computed; nothing prepared left.
     */
    @Test
    void aBoundedInsertThroughFlinksSqlClientIsExact() throws Exception {
        long n = 2_000;
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String table = "orders_client_" + suffix;
        String sinkId = "orders-client-" + suffix;
        String role = "sql_client_" + suffix;
        String password = "pw-" + UUID.randomUUID();
        sinkIds.add(sinkId);
        db.execute("CREATE ROLE " + role + " LOGIN SUPERUSER PASSWORD '" + password + "'");
        db.execute("CREATE TABLE " + table
                + " (id bigint NOT NULL, customer text NOT NULL, amount numeric(12, 2) NOT NULL)");

        new FlinkSqlClient(connectorJar, workDir)
                .run(
                        scripts.resolve("bounded-insert.sql"),
                        Map.of(
                                "url", db.jdbcUrl(),
                                "username", role,
                                "password", password,
                                "table", "public." + table,
                                "sink.id", sinkId),
                        Duration.ofMinutes(3))
                .assertSucceeded();

        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(n);
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + table))
                .as("distinct ids (no duplicates)")
                .isEqualTo(n);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE id NOT BETWEEN 1 AND " + n))
                .as("ids outside 1.." + n)
                .isZero();
        assertThat(db.count(
                        "SELECT count(*) FROM " + table + " WHERE customer <> 'c' || (id % 7) OR amount <> id / 100.0"))
                .as("rows whose values differ from the script's")
                .isZero();
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions left")
                .isEmpty();
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertThat(value)
                .as("system property " + name + " (set by this module's pom)")
                .isNotBlank();
        return value;
    }
}
