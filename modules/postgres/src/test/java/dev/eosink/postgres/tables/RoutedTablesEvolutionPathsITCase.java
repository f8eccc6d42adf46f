/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableRoute;
import dev.eosink.jdbc.route.TableShape;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paths of evolving routed tables that a first design got wrong: changes carried for a widened declared table, two
 * subtasks of one table, a shape that relaxes NOT NULL, and a prepared leftover that altered a declared table.
 */
class RoutedTablesEvolutionPathsITCase extends ExactlyOnceTestBase {

    private static final long ITEMS = 40;
    private static final long EPOCH = 200;

    @AfterEach
    void forgetTheValveAndTrace() {
        IdValve.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
    }

    /** Record i upserts item i % 40: its name, and from {@code widenAt} on its price, a column the shape adds. */
    private static final class Items implements TableRoute<Long> {
        private static final long serialVersionUID = 1L;

        final String name;
        final long widenAt;

        Items(String name, long widenAt) {
            this.name = name;
            this.widenAt = widenAt;
        }

        String items() {
            return "public." + name;
        }

        TableShape shape(long i) {
            List<TableShape.Column> columns = new ArrayList<>(List.of(
                    new TableShape.Column("id", "bigint", false), new TableShape.Column("name", "text", false)));
            if (i >= widenAt) {
                columns.add(new TableShape.Column("price", "numeric(10,2)", true));
            }
            return TableShape.of("public", name, columns, List.of("id"));
        }

        static BigDecimal price(long i) {
            return BigDecimal.valueOf(i * 100 + 25, 2);
        }

        @Override
        public void route(Long i, TableChanges out) {
            out.evolve(shape(i));
            List<String> columns = out.columns(items());
            Object[] row = new Object[columns.size()];
            for (int c = 0; c < row.length; c++) {
                switch (columns.get(c)) {
                    case "id":
                        row[c] = i % ITEMS;
                        break;
                    case "name":
                        row[c] = "item " + i;
                        break;
                    case "price":
                        row[c] = i >= widenAt ? price(i) : null;
                        break;
                    default:
                        row[c] = null;
                }
            }
            out.upsert(items(), row);
        }

        Map<Long, String> replay(long n) {
            Map<Long, String> rows = new TreeMap<>();
            for (long i = 0; i < n; i++) {
                rows.put(i % ITEMS, (i % ITEMS) + "|item " + i + "|" + (i >= widenAt ? price(i) : null));
            }
            return rows;
        }
    }

    private ExactlyOnceSink<Long> sink(RoutedTables<Long> tables) {
        return ProtocolTrace.wrap(PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .tables(tables)
                .batchSize(50)
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build());
    }

    private Map<Long, String> read(String sql) throws Exception {
        Map<Long, String> rows = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder(rs.getString(1));
                for (int col = 2; col <= columns; col++) {
                    row.append('|').append(rs.getString(col));
                }
                rows.put(rs.getLong(1), row.toString());
            }
        }
        return rows;
    }

    private void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> ProtocolTrace.written(sinkId) == records, "the writer to take " + records + " records");
    }

    private void valvedJob(StreamExecutionEnvironment env, long n, RoutedTables<Long> tables) {
        IdValve.ids(env, sinkId, n)
                .map(new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE_ONCE_SINK_PREPARED))
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(sink(tables))
                .uid("sink");
    }

    /**
     * A DECLARED table (existing, declared with id and name) of an evolving sink gains a column in epoch 1.
     * Checkpoint 2 is declined, so epoch 3's changes of that table are held and carried in the savepoint, for the
     * widened buffer's columns (id, name, price). The restored writer plans the table from the catalog as it is then
     * (id, name, price), not from its declaration, and writes the carried changes before its first record.
     */
    @Test
    void carriedChangesOfAWidenedDeclaredTableAreWrittenOnRestore(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path savepoints) throws Exception {
        String name = table + "_items";
        db.execute("CREATE TABLE public." + name + " (id bigint PRIMARY KEY, name text NOT NULL)");
        Items items = new Items(name, 100);
        RoutedTables<Long> tables = RoutedTables.route(items)
                .table(RoutedTable.of("public", name, List.of("id", "name"), List.of("id")))
                .evolving()
                .build();
        long n = 4 * EPOCH;
        StreamExecutionEnvironment first = TestJobs.manualEnv(1, TestJobs.noRestarts());
        first.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        valvedJob(first, n, tables);
        JobClient job = first.executeAsync("a widened declared table, a declined checkpoint");
        String savepoint;
        try {
            feed(EPOCH); // record 100 widens the declared table
            assertThat(TestJobs.checkpoint(client, job.getJobID())).isEqualTo(1);
            feed(2 * EPOCH);
            assertThat(client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED))
                    .as("checkpoint 2, declined")
                    .failsWithin(TestJobs.TIMEOUT);
            feed(3 * EPOCH); // held behind the declined transaction: carried
            savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            TestJobs.cancelUnlessDone(job);
        }
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.CARRIED))
                .as("snapshots that carried held changes")
                .isNotEmpty();

        IdValve.openFully(sinkId);
        StreamExecutionEnvironment second = TestJobs.env(1, 200, TestJobs.restoreFrom(savepoint));
        valvedJob(second, n, tables);
        JobClient resumed = second.executeAsync("a widened declared table, restored");
        try {
            JobExecutionResult done =
                    resumed.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThat(done).isNotNull();
        } finally {
            TestJobs.cancelUnlessDone(resumed);
        }
        assertThat(preparedLeft()).as("prepared transactions left").isEmpty();
        assertThat(read("SELECT id, name, price FROM public." + name))
                .as("items, row by row")
                .isEqualTo(items.replay(n));
    }

    /**
     * Two consistency groups at parallelism 2 write one evolving table: a DDL of one subtask would wait for the other's
     * transactions, whose commits wait for its barrier (a deadlock PostgreSQL cannot see, met again after every
     * restart). Refused at start instead, for good, naming parallelism 1 as the remedy; nothing is written.
     */
    @Test
    void evolvingTablesAtParallelismTwoAreRefusedAtStart() throws Exception {
        String name = table + "_shared";
        db.execute("CREATE TABLE public." + name + " (id bigint PRIMARY KEY, name text NOT NULL)");
        Items items = new Items(name, 600);
        RoutedTables<Long> tables =
                RoutedTables.route(items).groupedBy(i -> (i % 2) * 2).evolving().build();
        StreamExecutionEnvironment env = TestJobs.env(2, 100, TestJobs.fixedDelayRestarts(3, Duration.ofMillis(100)));
        TestJobs.ids(env, 2_000, 1_000).sinkTo(sink(tables));
        Throwable refused = TestJobs.failureOf(() -> env.execute("one table of two groups, evolving"));
        assertThat(TestJobs.messages(refused))
                .as("the refusal")
                .contains("are evolving, at parallelism 2", "Remedy: run the sink at parallelism 1");
        assertThat(db.count("SELECT count(*) FROM public." + name))
                .as("rows written")
                .isZero();
    }

    /**
     * The source's column {@code name} was NOT NULL when the table was created from the shape (so the sink made it NOT
     * NULL); from record 300 on the shape says it is nullable (the source dropped the constraint) and records give it
     * null. The sink drops the column's NOT NULL with the first record of the relaxed shape, in its transaction.
     */
    @Test
    void aColumnTheShapeMadeNullableLosesItsNotNull() throws Exception {
        String name = table + "_loosened";
        long n = 600;
        TableRoute<Long> route = (i, out) -> {
            out.evolve(TableShape.of(
                    "public",
                    name,
                    List.of(
                            new TableShape.Column("id", "bigint", false),
                            new TableShape.Column("name", "text", i >= 300)),
                    List.of("id")));
            out.upsert("public." + name, i % ITEMS, i >= 300 && i % 2 == 0 ? null : "item " + i);
        };
        RoutedTables<Long> tables = RoutedTables.route(route).evolving().build();
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.noRestarts());
        TestJobs.ids(env, n, 2_000).sinkTo(sink(tables));
        env.execute("a column the shape made nullable");
        Map<Long, String> want = new TreeMap<>();
        for (long i = 0; i < n; i++) {
            want.put(i % ITEMS, (i % ITEMS) + "|" + (i >= 300 && i % 2 == 0 ? null : "item " + i));
        }
        assertThat(read("SELECT id, name FROM public." + name)).isEqualTo(want);
    }
    /**
     * A DECLARED, existing table is widened by the first record; the epoch's transaction (holding the ALTER's ACCESS
     * EXCLUSIVE lock) is prepared, then the task fails before the checkpoint completes. The restarted writer checks and
     * plans an evolving sink's tables when first used, after its recovery rolled that leftover back, never at start,
     * where the checks (EXPLAIN of the upsert) would wait for the leftover's lock.
     */
    @Test
    void aPreparedLeftoverThatAlteredADeclaredTableIsRolledBackBeforeTheTableIsChecked() throws Exception {
        String name = table + "_leftover";
        db.execute("CREATE TABLE public." + name + " (id bigint PRIMARY KEY, name text NOT NULL)");
        Items items = new Items(name, 0);
        RoutedTables<Long> tables = RoutedTables.route(items)
                .table(RoutedTable.of("public", name, List.of("id", "name"), List.of("id")))
                .evolving()
                .build();
        long n = 1_000;
        dev.eosink.testing.faults.Faults.arm(sinkId, dev.eosink.testing.faults.Faults.Point.AFTER_PREPARE, 1);
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.fixedDelayRestarts(1, Duration.ofMillis(100)));
        TestJobs.ids(env, n, 2_000).sinkTo(dev.eosink.testing.faults.FaultInjectingDatabase.wrap(sink(tables)));
        JobClient job = env.executeAsync("a leftover that altered a declared table");
        try {
            job.getJobExecutionResult().get(3, TimeUnit.MINUTES);
        } finally {
            TestJobs.cancelUnlessDone(job);
        }
        assertThat(preparedLeft()).as("prepared transactions left").isEmpty();
        assertThat(read("SELECT id, name, price FROM public." + name)).isEqualTo(items.replay(n));
    }
}
