/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The factories without a database: what they refuse when the table is planned, and with which
 * message (the option, its value, what is allowed), the changelog each accepts, and that the password
 * shows in no summary, plan or message. Its tests run on the thread that made their TableEnvironment
 * (a field): the planner keeps per-thread state there (Calcite's metadata providers).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SAME_THREAD)
class TableFactoryTest {

    private static final String PASSWORD = "Pw-never-shown-7f3a";

    private final TableEnvironment tEnv = tableEnvironment();

    /** A streaming TableEnvironment that checkpoints: the sink refuses to be planned into one that does not. */
    private static TableEnvironment tableEnvironment() {
        Configuration conf = new Configuration();
        conf.setString("execution.checkpointing.interval", "1 s");
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.newInstance()
                .inStreamingMode()
                .withConfiguration(conf)
                .build());
        tEnv.executeSql(
                "CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10')");
        return tEnv;
    }

    /** The options every test starts from: a valid table of the connector. */
    private static Map<String, String> options(String connector) {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("connector", connector);
        options.put(
                "url",
                connector.equals(XaDynamicTableSinkFactory.IDENTIFIER)
                        ? "jdbc:mariadb://db:3306/shop"
                        : "jdbc:postgresql://db:5432/shop");
        options.put("username", "flink_sink");
        options.put("password", PASSWORD);
        options.put("table-name", "public.orders");
        options.put("sink.id", "orders");
        return options;
    }

    /** Creates the table {@code snk (columns) WITH (options)} and plans an insert of {@code query} into it. */
    private String plan(String columns, Map<String, String> options, String query) {
        tEnv.executeSql("DROP TABLE IF EXISTS snk");
        tEnv.executeSql("CREATE TABLE snk (" + columns + ") WITH ("
                + options.entrySet().stream()
                        .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                        .collect(Collectors.joining(", "))
                + ")");
        return tEnv.explainSql("INSERT INTO snk " + query);
    }

    /** Every message of the chain of what planning an insert into such a table threw. */
    private String refusal(String columns, Map<String, String> options) {
        Throwable failure = catchThrowable(() -> plan(columns, options, "SELECT id, name FROM src"));
        assertThat(failure)
                .as("planning an insert into a table with %s", options)
                .isNotNull();
        String messages = ExceptionUtils.stringifyException(failure);
        assertThat(messages).doesNotContain(PASSWORD);
        return messages;
    }

    @ParameterizedTest
    @ValueSource(strings = {"url", "table-name", "sink.id"})
    void aMissingRequiredOptionIsNamed(String option) {
        for (String connector :
                List.of(PostgresDynamicTableSinkFactory.IDENTIFIER, XaDynamicTableSinkFactory.IDENTIFIER)) {
            Map<String, String> options = options(connector);
            options.remove(option);
            assertThat(refusal("id BIGINT, name STRING", options))
                    .contains("Missing required options are:")
                    .contains("\n" + option + "\n");
        }
    }

    @Test
    void anUnknownOptionIsNamed() {
        Map<String, String> options = options(PostgresDynamicTableSinkFactory.IDENTIFIER);
        options.put("sink.batchsize", "10");
        assertThat(refusal("id BIGINT, name STRING", options))
                .contains("Unsupported options")
                .contains("sink.batchsize");
    }

    /** Each bad value is refused naming the table, the option, the value as given and what is allowed. */
    @ParameterizedTest(name = "{0} {1} = {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "eosink-postgres | sink.batch-size               | 0                 | batchSize must be >= 1",
                "eosink-postgres | sink.batch-size               | many              | Expected an integer",
                "eosink-postgres | sink.leftover-policy          | SOMETIMES         | Expected one of [FAIL, ROLLBACK]",
                "eosink-postgres | sink.write-method             | FAST              | Expected one of [COPY, BATCH]",
                "eosink-postgres | sink.network-timeout          | 500 ms            | at least 1 s, or zero",
                "eosink-postgres | sink.network-timeout          | soon              | Expected a duration",
                "eosink-postgres | sink.copy.max-backlog         | 1 kb              | at least 65536 bytes",
                "eosink-postgres | sink.copy.max-backlog         | lots              | Expected a size",
                "eosink-postgres | sink.max-prepared-per-subtask | 1                 | must be >= 2",
                "eosink-postgres | sink.prepared-age-warning     | 0 s               | preparedAgeWarning must be a positive duration",
                "eosink-xa       | sink.prepared-age-warning     | soon              | Expected a duration",
                "eosink-postgres | sink.parallelism              | 0                 | Expected a positive integer",
                "eosink-postgres | sink.id                       | my sink!          | 1 to 100 characters of letters, digits",
                "eosink-postgres | table-name                    | a.b.c             | Expected 'name' or 'schema.name'",
                "eosink-postgres | sink.marker-table             | .markers          | Expected 'name' or 'schema.name'",
                "eosink-postgres | sink.dead-letter-table        | x..y              | Expected 'name' or 'schema.name'",
                "eosink-xa       | sink.dead-letter-table        | .dead             | Expected 'name' or 'schema.name'",
                "eosink-postgres | sink.marker-table.create      | maybe             | Expected true or false",
                "eosink-postgres | url                           | jdbc:mysql://db/x | Expected jdbc:postgresql://host:port/database",
                "eosink-xa       | url                           | jdbc:db2://db/x   | by URL the XA sink speaks jdbc:mariadb:, jdbc:mysql: and jdbc:postgresql:",
                "eosink-xa       | sink.lock-timeout             | 0 s               | lockTimeout must be at least 1 s",
                "eosink-xa       | sink.batch-size               | -1                | batchSize must be >= 1",
            })
    void aBadValueIsNamedWithWhatIsAllowed(String connector, String option, String value, String allowed) {
        Map<String, String> options = options(connector);
        options.put(option, value);
        assertThat(refusal("id BIGINT, name STRING", options))
                .contains("Table `default_catalog`.`default_database`.`snk` ('connector' = '" + connector + "')")
                .contains("invalid value for option '" + option + "': '" + value + "'")
                .contains(allowed);
    }

    /**
     * The sink's own messages mask a password in the URL. Flink's message around them lists the table's
     * options as given, masking the option {@code password} only: docs/sql.md says to keep the password
     * out of the URL.
     */
    @Test
    void aPasswordInTheUrlIsMaskedInTheSinksMessages() {
        Map<String, String> options = options(PostgresDynamicTableSinkFactory.IDENTIFIER);
        options.put("url", "jdbc:mysql://db/x?user=u&password=" + PASSWORD);
        Throwable failure = catchThrowable(() -> plan("id BIGINT, name STRING", options, "SELECT id, name FROM src"));
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertThat(cause.getMessage())
                .contains("'jdbc:mysql://db/x?user=u&password=***'")
                .doesNotContain(PASSWORD);
    }

    /**
     * Without a {@code 'password'} option the sink connects with none, for a server that asks for none (trust
     * authentication, a client certificate): the table is planned and its sink built, on both connectors.
     */
    @Test
    void aTableWithoutAPasswordIsPlanned() {
        for (String connector :
                List.of(PostgresDynamicTableSinkFactory.IDENTIFIER, XaDynamicTableSinkFactory.IDENTIFIER)) {
            Map<String, String> options = options(connector);
            options.remove("password");
            assertThat(plan("id BIGINT, name STRING", options, "SELECT id, name FROM src"))
                    .as(connector)
                    .contains("Sink(table=[default_catalog.default_database.snk]");
        }
    }

    /** An updating query into an {@code eosink-xa} table with a primary key is planned, upserting by it. */
    @Test
    void xaUpsertsAnUpdatingQueryWithAPrimaryKey() {
        String explain = plan(
                "name STRING, n BIGINT, PRIMARY KEY (name) NOT ENFORCED",
                options(XaDynamicTableSinkFactory.IDENTIFIER),
                "SELECT name, COUNT(*) FROM src GROUP BY name");
        assertThat(explain)
                .contains("Sink(table=[default_catalog.default_database.snk]")
                .contains("GroupAggregate")
                .doesNotContain(PASSWORD);
    }

    /** PostgreSQL's XA does not upsert: a primary key with a {@code jdbc:postgresql:} URL is refused, naming the remedy. */
    @Test
    void xaRefusesAPrimaryKeyOnPostgresql() {
        Map<String, String> options = options(XaDynamicTableSinkFactory.IDENTIFIER);
        options.put("url", "jdbc:postgresql://db:5432/shop");
        assertThat(refusal("id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", options))
                .contains("Table `default_catalog`.`default_database`.`snk` ('connector' = 'eosink-xa')")
                .contains("the PRIMARY KEY [id] asks for upserts and deletes by key")
                .contains("not through PostgreSQL's XA")
                .contains("'connector' = 'eosink-postgres'");
        assertThat(catchThrowable(() -> plan("id BIGINT, name STRING", options, "SELECT id, name FROM src")))
                .as("appends into PostgreSQL through XA: planned")
                .isNull();
    }

    @Test
    void xaRefusesALockTimeoutNotBelowTheNetworkTimeout() {
        Map<String, String> options = options(XaDynamicTableSinkFactory.IDENTIFIER);
        options.put("sink.network-timeout", "30 s");
        assertThat(refusal("id BIGINT, name STRING", options))
                .contains("'sink.lock-timeout' (60000 ms) must be shorter than 'sink.network-timeout' (30000 ms)");
    }

    @ParameterizedTest
    @ValueSource(strings = {PostgresDynamicTableSinkFactory.IDENTIFIER, XaDynamicTableSinkFactory.IDENTIFIER})
    void aDeadLetterTableIsRefusedWithAPrimaryKey(String connector) {
        Map<String, String> options = options(connector);
        options.put("sink.dead-letter-table", "refused");
        assertThat(refusal("id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", options))
                .contains("'sink.dead-letter-table' works with inserts only")
                .contains("PRIMARY KEY [id]");
    }

    @Test
    void anArrayColumnUpsertsWithAPrimaryKey() {
        assertThat(catchThrowable(() -> plan(
                        "id BIGINT, name STRING, tags ARRAY<STRING>, PRIMARY KEY (id) NOT ENFORCED",
                        options(PostgresDynamicTableSinkFactory.IDENTIFIER),
                        "SELECT id, name, ARRAY[name] FROM src")))
                .as("planned")
                .isNull();
    }

    @Test
    void aColumnTypeWithoutConversionIsNamed() {
        Throwable failure = catchThrowable(() -> plan(
                "id BIGINT, name STRING, tags MAP<STRING, INT>",
                options(PostgresDynamicTableSinkFactory.IDENTIFIER),
                "SELECT id, name, MAP['a', 1] FROM src"));
        assertThat(ExceptionUtils.stringifyException(failure))
                .contains("column \"tags\": MAP<STRING, INT> has no PostgreSQL column type it can be written into")
                .contains("Remedy:");
    }

    /** Without a primary key the sink takes inserts only: the planner refuses an updating query. */
    @Test
    void anUpdatingQueryIntoATableWithoutKeyIsRefusedByThePlanner() {
        Throwable failure = catchThrowable(() -> plan(
                "name STRING, n BIGINT",
                options(PostgresDynamicTableSinkFactory.IDENTIFIER),
                "SELECT name, COUNT(*) FROM src GROUP BY name"));
        assertThat(ExceptionUtils.stringifyException(failure)).contains("doesn't support consuming update changes");
    }

    @Test
    void changelogModes() {
        assertThat(sink(PostgresDynamicTableSinkFactory.IDENTIFIER, false).getChangelogMode(ChangelogMode.all()))
                .isEqualTo(ChangelogMode.insertOnly());
        ChangelogMode upsert =
                sink(PostgresDynamicTableSinkFactory.IDENTIFIER, true).getChangelogMode(ChangelogMode.all());
        assertThat(upsert.getContainedKinds())
                .containsExactlyInAnyOrder(RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE);
        assertThat(sink(XaDynamicTableSinkFactory.IDENTIFIER, false).getChangelogMode(ChangelogMode.all()))
                .isEqualTo(ChangelogMode.insertOnly());
        assertThat(sink(XaDynamicTableSinkFactory.IDENTIFIER, true).getChangelogMode(ChangelogMode.all()))
                .isEqualTo(upsert);
    }

    @Test
    void thePasswordShowsInNoSummaryAndNoPlan() {
        for (String connector :
                List.of(PostgresDynamicTableSinkFactory.IDENTIFIER, XaDynamicTableSinkFactory.IDENTIFIER)) {
            DynamicTableSink sink = sink(connector, false);
            assertThat(sink.asSummaryString()).isEqualTo(connector + "(table=public.orders, sink.id=orders)");
            assertThat(sink.toString()).isEqualTo(sink.asSummaryString());
            assertThat(sink.copy().asSummaryString()).isEqualTo(sink.asSummaryString());
        }
        for (String connector :
                List.of(PostgresDynamicTableSinkFactory.IDENTIFIER, XaDynamicTableSinkFactory.IDENTIFIER)) {
            assertThat(sink(connector, true).asSummaryString())
                    .isEqualTo(connector + "(table=public.orders, sink.id=orders, upsert on [id])");
        }

        String explain = plan(
                "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED",
                options(PostgresDynamicTableSinkFactory.IDENTIFIER),
                "SELECT id, name FROM src");
        assertThat(explain)
                .contains("Sink(table=[default_catalog.default_database.snk]")
                .doesNotContain(PASSWORD);
        assertThat(tEnv.compilePlanSql("INSERT INTO snk SELECT id, name FROM src")
                        .explain())
                .doesNotContain(PASSWORD);
    }

    /** The table sink as the factory of {@code 'connector'} makes it for {@code snk (id BIGINT, name STRING)}. */
    private static DynamicTableSink sink(String connector, boolean primaryKey) {
        ResolvedSchema schema = new ResolvedSchema(
                List.of(
                        Column.physical("id", DataTypes.BIGINT().notNull()),
                        Column.physical("name", DataTypes.STRING())),
                List.of(),
                primaryKey ? UniqueConstraint.primaryKey("pk", List.of("id")) : null);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(options(connector))
                .build();
        return FactoryUtil.createDynamicTableSink(
                null,
                ObjectIdentifier.of("c", "d", "snk"),
                new ResolvedCatalogTable(table, schema),
                Map.of(),
                new Configuration(),
                TableFactoryTest.class.getClassLoader(),
                true);
    }
}
