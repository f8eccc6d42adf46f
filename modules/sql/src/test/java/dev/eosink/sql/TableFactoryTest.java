/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.core.RewindPolicy;
import dev.eosink.core.SinkSettings;
import dev.eosink.postgres.internal.PostgresDatabase;
import dev.eosink.sql.internal.ExactlyOnceTableSink;

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

import java.time.Duration;
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
    @ValueSource(strings = {"url", "table-name"})
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
                "eosink-postgres | sink.buffer-flush.max-rows    | many              | Expected an integer",
                "eosink-xa       | sink.buffer-flush.max-rows    | -5                | batchSize must be >= 1",
                "eosink-postgres | sink.rewind-policy            | SOMETIMES         | Expected one of [WARN, FAIL]",
                "eosink-xa       | sink.claim-wait               | soon              | Expected a duration",
                "eosink-postgres | sink.marker-table.retention   | 0 d               | Expected a positive duration",
                "eosink-xa       | sink.marker-table.prune-interval | 0 s            | Expected a positive duration",
                "eosink-postgres | sink.commit-retries           | -1                | Expected 0 or more",
                "eosink-postgres | sink.commit-retries           | often             | Expected an integer",
                "eosink-xa       | sink.commit-retry-backoff     | 0 ms              | Expected a positive duration",
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
     * The builder's settings that have an option each: rewind policy, claim wait, marker retention and
     * pruning, commit retries; their defaults are the builder's.
     */
    @ParameterizedTest
    @ValueSource(strings = {PostgresDynamicTableSinkFactory.IDENTIFIER, XaDynamicTableSinkFactory.IDENTIFIER})
    void theBuildersSettingsHaveOptions(String connector) {
        SinkSettings defaults = SinkSettings.defaults("orders");
        SinkSettings settings = settings(tableSink(connector, false, options(connector)));
        assertThat(settings.rewindPolicy()).isEqualTo(defaults.rewindPolicy());
        assertThat(settings.claimWait()).isEqualTo(defaults.claimWait());
        assertThat(settings.markerRetention()).isEqualTo(defaults.markerRetention());
        assertThat(settings.markerPruneInterval()).isEqualTo(defaults.markerPruneInterval());
        assertThat(settings.commitRetries()).isEqualTo(defaults.commitRetries());
        assertThat(settings.commitRetryBackoff()).isEqualTo(defaults.commitRetryBackoff());

        Map<String, String> options = options(connector);
        options.put("sink.rewind-policy", "fail");
        options.put("sink.claim-wait", "0 s");
        options.put("sink.marker-table.retention", "30 d");
        options.put("sink.marker-table.prune-interval", "10 min");
        options.put("sink.commit-retries", "0");
        options.put("sink.commit-retry-backoff", "1 s");
        settings = settings(tableSink(connector, false, options));
        assertThat(settings.rewindPolicy()).isEqualTo(RewindPolicy.FAIL);
        assertThat(settings.claimWait()).isEqualTo(Duration.ZERO);
        assertThat(settings.markerRetention()).isEqualTo(Duration.ofDays(30));
        assertThat(settings.markerPruneInterval()).isEqualTo(Duration.ofMinutes(10));
        assertThat(settings.commitRetries()).isZero();
        assertThat(settings.commitRetryBackoff()).isEqualTo(Duration.ofSeconds(1));
    }

    /**
     * A table written for flink-connector-jdbc ('connector' = 'jdbc'), with only the connector changed:
     * refused, each of its options that does not carry over named with what to write instead, and the
     * missing sink id with what it is. Done as the message says, the table is planned, and the options
     * that carry over (the driver, the flush row count) took effect.
     */
    @Test
    void aTableWrittenForTheJdbcConnectorIsRefusedWithTheMapping() {
        Map<String, String> jdbc = new LinkedHashMap<>();
        jdbc.put("connector", PostgresDynamicTableSinkFactory.IDENTIFIER); // was 'jdbc'
        jdbc.put("url", "jdbc:postgresql://db:5432/shop");
        jdbc.put("table-name", "public.orders");
        jdbc.put("driver", "org.postgresql.Driver");
        jdbc.put("username", "flink_sink");
        jdbc.put("password", PASSWORD);
        jdbc.put("sink.buffer-flush.max-rows", "500");
        jdbc.put("sink.buffer-flush.interval", "2s");
        jdbc.put("sink.max-retries", "5");
        jdbc.put("sink.parallelism", "2");
        String refusal = refusal("id BIGINT, name STRING", jdbc);
        assertThat(refusal)
                .contains("Table `default_catalog`.`default_database`.`snk` ('connector' = 'eosink-postgres')")
                .contains("options of flink-connector-jdbc ('connector' = 'jdbc')")
                .contains("docs/migrating-from-jdbc.md")
                .contains("- 'sink.buffer-flush.interval': not needed")
                .contains("'execution.checkpointing.interval'")
                .contains("- 'sink.max-retries': not needed")
                .contains("'restart-strategy.*'")
                .contains("- 'sink.id' is missing, and required here");
        for (String carried : List.of("url", "table-name", "driver", "username", "sink.buffer-flush.max-rows")) {
            assertThat(refusal).as(carried).doesNotContain("- '" + carried + "'");
        }

        jdbc.remove("sink.buffer-flush.interval");
        jdbc.remove("sink.max-retries");
        jdbc.put("sink.id", "orders");
        assertThat(plan("id BIGINT, name STRING", jdbc, "SELECT id, name FROM src"))
                .contains("Sink(table=[default_catalog.default_database.snk]");
        PostgresDatabase<?> database =
                (PostgresDatabase<?>) tableSink(PostgresDynamicTableSinkFactory.IDENTIFIER, false, jdbc)
                        .sink()
                        .database();
        assertThat(database.options().batchSize()).isEqualTo(500);
    }

    /** Each option of flink-connector-jdbc that does not carry over is refused with its counterpart or why none. */
    @ParameterizedTest(name = "{0} {1} = {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "eosink-postgres | sink.buffer-flush.interval    | 1s                | 'sink.batch-size'",
                "eosink-xa       | sink.max-retries              | 3                 | 'sink.commit-retries'",
                "eosink-postgres | connection.max-retry-timeout  | 60s               | use 'sink.network-timeout'",
                "eosink-xa       | compatible-mode               | mysql             | the URL's scheme picks the database",
                "eosink-postgres | scan.fetch-size               | 100               | this connector only writes",
                "eosink-postgres | scan.partition.column         | id                | this connector only writes",
                "eosink-xa       | lookup.cache.max-rows         | 100               | 'connector' = 'jdbc'",
                "eosink-postgres | lookup.cache                  | PARTIAL           | this connector only writes",
                "eosink-postgres | filter.handling.policy        | NEVER             | this connector only writes",
                "eosink-postgres | sink.buffer-flush.max-rows    | 0                 | has no counterpart",
                "eosink-postgres | driver                        | com.mysql.cj.jdbc.Driver | jdbc:postgresql: org.postgresql.Driver",
                "eosink-xa       | driver                        | org.postgresql.Driver | jdbc:mariadb: org.mariadb.jdbc.Driver",
            })
    void anOptionOfTheJdbcConnectorIsRefusedWithItsCounterpart(
            String connector, String option, String value, String remedy) {
        Map<String, String> options = options(connector);
        options.put(option, value);
        String refusal = refusal("id BIGINT, name STRING", options);
        assertThat(refusal)
                .contains("('connector' = '" + connector + "'): it has options of flink-connector-jdbc")
                .contains("- '" + option + "'")
                .contains(remedy)
                .doesNotContain("'sink.id' is missing");
    }

    @Test
    void theJdbcConnectorsFlushRowCountIsTheBatchSize() {
        Map<String, String> options = options(PostgresDynamicTableSinkFactory.IDENTIFIER);
        options.put("sink.buffer-flush.max-rows", "100");
        options.put("sink.batch-size", "200");
        assertThat(refusal("id BIGINT, name STRING", options))
                .contains("'sink.buffer-flush.max-rows' and 'sink.batch-size' are one option here");
    }

    /** {@code driver} is taken when it names the driver of the URL's scheme. */
    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "eosink-postgres | jdbc:postgresql://db:5432/shop | org.postgresql.Driver",
                "eosink-xa       | jdbc:mariadb://db:3306/shop    | org.mariadb.jdbc.Driver",
                "eosink-xa       | jdbc:mysql://db:3306/shop      | com.mysql.cj.jdbc.Driver",
                "eosink-xa       | jdbc:postgresql://db:5432/shop | org.postgresql.Driver",
            })
    void theDriverOfTheUrlIsTaken(String connector, String url, String driver) {
        Map<String, String> options = options(connector);
        options.put("url", url);
        options.put("driver", driver);
        assertThat(plan("id BIGINT, name STRING", options, "SELECT id, name FROM src"))
                .contains("Sink(table=[default_catalog.default_database.snk]");
    }

    /** A table without {@code sink.id} is refused saying what the option is, on both connectors. */
    @ParameterizedTest
    @ValueSource(strings = {PostgresDynamicTableSinkFactory.IDENTIFIER, XaDynamicTableSinkFactory.IDENTIFIER})
    void aMissingSinkIdIsNamedWithWhatItIs(String connector) {
        Map<String, String> options = options(connector);
        options.remove("sink.id");
        options.remove("url");
        assertThat(refusal("id BIGINT, name STRING", options))
                .contains("- 'url' is missing, and required.")
                .contains("- 'sink.id' is missing, and required here")
                .contains("a stable name for this sink");
    }

    private static SinkSettings settings(ExactlyOnceTableSink sink) {
        return sink.sink().settings();
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
        return tableSink(connector, primaryKey, options(connector));
    }

    /** As {@link #sink(String, boolean)}, with the given options. */
    private static ExactlyOnceTableSink tableSink(String connector, boolean primaryKey, Map<String, String> options) {
        ResolvedSchema schema = new ResolvedSchema(
                List.of(
                        Column.physical("id", DataTypes.BIGINT().notNull()),
                        Column.physical("name", DataTypes.STRING())),
                List.of(),
                primaryKey ? UniqueConstraint.primaryKey("pk", List.of("id")) : null);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(options)
                .build();
        return (ExactlyOnceTableSink) FactoryUtil.createDynamicTableSink(
                null,
                ObjectIdentifier.of("c", "d", "snk"),
                new ResolvedCatalogTable(table, schema),
                Map.of(),
                new Configuration(),
                TableFactoryTest.class.getClassLoader(),
                true);
    }
}
