/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;

import org.apache.flink.configuration.CheckpointingOptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Each example end to end on a local MiniCluster, with failures injected, judged by its verdict. */
class ExamplesITCase {

    private final PostgresFixture db = PostgresFixture.get();

    @Test
    void windowedTotalsSurviveInjectedFailuresExactly() throws Exception {
        assertExactRun("windows", "it_window_totals", "it-windows");
    }

    @Test
    void rawEventsSurviveInjectedFailuresExactly() throws Exception {
        assertExactRun("events", "it_order_events", "it-events");
    }

    /**
     * ./demo --sql: the windowed INSERT of examples/sql/windowed-totals.sql over the same generator,
     * through the SQL connector, with the same failures and judged by the same verdict.
     */
    @Test
    void windowedTotalsInSqlSurviveInjectedFailuresExactly() throws Exception {
        DemoOptions o = options(
                "windows", "it_sql_window_totals", "it-sql", "--postgres-url", db.jdbcUrl(), db.user(), "--sql");
        o.password = db.password();
        int exit = Demo.run(o);

        try (Connection c = db.connect()) {
            assertExact(c, "windows", "it_sql_window_totals", "it-sql");
        }
        assertThat(exit).as("exit code").isZero();
    }

    /** The same job into MariaDB through the XA sink (--mariadb-url), judged by the same verdict. */
    @Test
    void rawEventsIntoMariaDbThroughXaSurviveInjectedFailuresExactly() throws Exception {
        MariaDbFixture maria = MariaDbFixture.get();
        // The demo drops and creates its table, so it runs as an administrator here.
        DemoOptions o = options(
                "events", "it_order_events_xa", "it-events-xa", "--mariadb-url", maria.jdbcUrl(), maria.adminUser());
        o.password = maria.adminPassword().isEmpty() ? null : maria.adminPassword();
        int exit = Demo.run(o);
        try (Connection c = maria.connect()) {
            assertExact(c, "events", "it_order_events_xa", "it-events-xa");
        }
        assertThat(exit).as("exit code").isZero();
    }

    /**
     * A table that holds results is never dropped: a fresh run against it is refused (exit 2, nothing
     * touched), and only --reset starts over, deleting its rows (it never drops the table: the role may
     * not own it).
     */
    @Test
    void aFreshRunRefusesATableWithResultsUnlessReset() throws Exception {
        String[] args = {
            "--job",
            "events",
            "--postgres-url",
            db.jdbcUrl(),
            "--user",
            db.user(),
            "--events",
            "2000",
            "--rate",
            "4000",
            "--chaos",
            "off",
            "--table",
            "it_reset_events",
            "--sink-id",
            "it-reset",
            "-Dexecution.checkpointing.interval=300ms"
        };
        DemoOptions first = DemoOptions.parse(args);
        first.password = db.password();
        assertThat(Demo.run(first)).as("first run").isZero();
        long oid = db.count("SELECT 'it_reset_events'::regclass::oid::bigint");

        DemoOptions again = DemoOptions.parse(args);
        again.password = db.password();
        assertThat(Demo.run(again)).as("a fresh run against the results").isEqualTo(2);
        assertThat(db.count("SELECT count(*) FROM it_reset_events"))
                .as("nothing touched")
                .isEqualTo(2000);

        String[] reset = Arrays.copyOf(args, args.length + 1);
        reset[args.length] = "--reset";
        DemoOptions over = DemoOptions.parse(reset);
        over.password = db.password();
        assertThat(Demo.run(over)).as("--reset").isZero();
        assertThat(db.count("SELECT 'it_reset_events'::regclass::oid::bigint"))
                .as("the same table, not dropped")
                .isEqualTo(oid);
        try (Connection c = db.connect()) {
            Verdicts.assertExact(
                    Verdict.check(c, "events", "it_reset_events", "it-reset", OrderGenerator.defaults(), 2000));
        }
    }

    /** Local runs keep their checkpoints per sink id: --resume never picks another demo's. */
    @Test
    void localCheckpointsArePerSinkId() throws Exception {
        DemoOptions a = DemoOptions.parse(new String[] {"--sink-id", "demo-a"});
        DemoOptions b = DemoOptions.parse(new String[] {"--sink-id", "demo-b"});
        String dirA = Demo.environment(a).getConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        String dirB = Demo.environment(b).getConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        assertThat(dirA).contains("/eosink-demo/demo-a/checkpoints");
        assertThat(dirB).contains("/eosink-demo/demo-b/checkpoints");
    }

    private static DemoOptions options(
            String job, String table, String sinkId, String urlOption, String url, String user, String... more) {
        String[] args = {
            "--job",
            job,
            urlOption,
            url,
            "--user",
            user,
            "--events",
            "60000",
            "--rate",
            "6000",
            "--chaos",
            "on",
            "--faults",
            "4",
            "--seed",
            "42",
            "--table",
            table,
            "--sink-id",
            sinkId,
            "-Dexecution.checkpointing.interval=300ms"
        };
        String[] all = Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        DemoOptions o = DemoOptions.parse(all);
        // Short gaps between faults so all four strike within the run.
        o.chaosMinMillis = 1_000;
        o.chaosMaxMillis = 2_000;
        return o;
    }

    private static void assertExact(Connection c, String job, String table, String sinkId) throws Exception {
        Map<Chaos.Kind, Long> fired = Chaos.firedByKind();
        assertThat(Chaos.fired()).as("failures survived %s", fired).isGreaterThanOrEqualTo(3);
        assertThat(fired.values().stream().filter(n -> n > 0).count())
                .as("kinds of failure %s", fired)
                .isGreaterThanOrEqualTo(3);
        Verdict v = Verdict.check(c, job, table, sinkId, OrderGenerator.defaults(), 60_000);
        Verdicts.assertExact(v);
    }

    private void assertExactRun(String job, String table, String sinkId) throws Exception {
        DemoOptions o = options(job, table, sinkId, "--postgres-url", db.jdbcUrl(), db.user());
        o.password = db.password();
        int exit = Demo.run(o);

        try (Connection c = db.connect()) {
            assertExact(c, job, table, sinkId);
        }
        assertThat(exit).as("exit code").isZero();
    }
}
