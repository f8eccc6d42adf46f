/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.tables;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableShape;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.Faults.Point;
import dev.eosink.testing.hardcases.CheckpointDecliner;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
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
 * An evolving routed sink ({@code RoutedTables.Builder.evolving()}): tables that do not exist are created from the
 * route's shapes, and a column a later shape brings is added, each in the transaction of the first record that needs
 * it; through failures at every protocol point (a DDL rolled back and made again, or committed and found done) and a
 * widening while the writer's previous transaction cannot commit, the tables end exactly as the records say.
 */
class RoutedTablesEvolutionITCase extends ExactlyOnceTestBase {

    private static final long ITEMS = 40;
    private static final long TAGS = 30;

    @AfterEach
    void forgetTheValveAndTrace() {
        IdValve.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        CheckpointDecliner.reset(sinkId);
    }

    /**
     * The workload: record i upserts item i % 40 (its name, and from {@code widenAt} on its price, a column the
     * shape then adds), deletes an item every seventh record, and from {@code tagsFrom} on upserts a tag of a table
     * that only then appears.
     */
    private static final class Workload implements dev.eosink.jdbc.route.TableRoute<Long> {
        private static final long serialVersionUID = 1L;

        final String schema;
        final String prefix;
        final long widenAt;
        final long tagsFrom;

        Workload(String prefix, long widenAt, long tagsFrom) {
            this.schema = "public";
            this.prefix = prefix;
            this.widenAt = widenAt;
            this.tagsFrom = tagsFrom;
        }

        String items() {
            return schema + "." + prefix + "_items";
        }

        String tags() {
            return schema + "." + prefix + "_tags";
        }

        TableShape itemsShape(long i) {
            List<TableShape.Column> columns = new ArrayList<>(List.of(
                    new TableShape.Column("id", "bigint", false), new TableShape.Column("name", "text", false)));
            if (i >= widenAt) {
                columns.add(new TableShape.Column("price", "numeric(10,2)", true));
            }
            return TableShape.of(schema, prefix + "_items", columns, List.of("id"));
        }

        TableShape tagsShape() {
            return TableShape.of(
                    schema,
                    prefix + "_tags",
                    List.of(
                            new TableShape.Column("item", "bigint", false),
                            new TableShape.Column("tag", "text", false)),
                    List.of("item"));
        }

        static BigDecimal price(long i) {
            return BigDecimal.valueOf(i * 100 + 25, 2);
        }

        @Override
        public void route(Long i, TableChanges out) {
            out.evolve(itemsShape(i));
            if (i >= tagsFrom) {
                out.evolve(tagsShape());
            }
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
            if (i % 7 == 3) {
                out.delete(items(), (i + 5) % ITEMS);
            }
            if (i >= tagsFrom) {
                out.upsert(tags(), i % TAGS, "tag " + i);
                if (i % 11 == 0) {
                    out.delete(tags(), (i + 1) % TAGS);
                }
            }
        }

        /** Each table's rows after records 0..n-1, as text: {@code id|name|price} and {@code item|tag}. */
        Map<String, Map<Long, String>> replay(long n) {
            Map<Long, String> items = new TreeMap<>();
            Map<Long, String> tags = new TreeMap<>();
            for (long i = 0; i < n; i++) {
                items.put(i % ITEMS, (i % ITEMS) + "|item " + i + "|" + (i >= widenAt ? price(i) : null));
                if (i % 7 == 3) {
                    items.remove((i + 5) % ITEMS);
                }
                if (i >= tagsFrom) {
                    tags.put(i % TAGS, (i % TAGS) + "|tag " + i);
                    if (i % 11 == 0) {
                        tags.remove((i + 1) % TAGS);
                    }
                }
            }
            return Map.of(items(), items, tags(), tags);
        }
    }

    private ExactlyOnceSink<Long> sink(Workload workload) {
        RoutedTables<Long> tables = RoutedTables.route(workload).evolving().build();
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(PostgresSink.<Long>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .tables(tables)
                .batchSize(50)
                .claimWait(Duration.ofSeconds(20))
                .commitRetryBackoff(Duration.ofMillis(50))
                .build()));
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

    private void assertExact(Workload workload, long n) throws Exception {
        Map<String, Map<Long, String>> want = workload.replay(n);
        assertThat(preparedLeft())
                .as("prepared transactions of sink %s left", sinkId)
                .isEmpty();
        assertThat(read("SELECT id, name, price FROM " + workload.items()))
                .as("items, row by row")
                .isEqualTo(want.get(workload.items()));
        assertThat(read("SELECT item, tag FROM " + workload.tags()))
                .as("tags, row by row")
                .isEqualTo(want.get(workload.tags()));
        assertThat(read("SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM "
                        + "pg_attribute a WHERE a.attrelid = '" + workload.items() + "'::regclass AND a.attnum > 0 "
                        + "AND NOT a.attisdropped"))
                .as("the items table, created then widened")
                .containsExactly(
                        Map.entry(1L, "1|id|bigint|t"),
                        Map.entry(2L, "2|name|text|t"),
                        Map.entry(3L, "3|price|numeric(10,2)|f"));
    }

    /**
     * Neither table exists at start; the items table is created by the first record, widened by record 1,000, the
     * tags table created by record 2,000; a failure strikes at a write right after the widening (its DDL rolled back
     * with the epoch, then made again), after a prepare and before a commit, with writer and committer in separate
     * tasks: the tables end exact, nothing prepared left.
     */
    @Test
    void tablesAreCreatedAndWidenedBetweenRecordsThroughFailuresWithChainingOff() throws Exception {
        long n = 3_000;
        Workload workload = new Workload(table, 1_000, 2_000);
        Faults.arm(sinkId, Point.WRITE, 1_010);
        Faults.arm(sinkId, Point.AFTER_PREPARE, 3);
        Faults.arm(sinkId, Point.BEFORE_COMMIT, 5);
        StreamExecutionEnvironment env = TestJobs.env(1, 100, TestJobs.fixedDelayRestarts(20, Duration.ofMillis(100)));
        env.disableOperatorChaining();
        // 3 s of records: checkpoints enough for both commit faults even on a busy machine.
        TestJobs.ids(env, n, 1_000).sinkTo(sink(workload));
        env.execute("evolving routed tables through failures");

        assertExact(workload, n);
        assertThat(Faults.fired(sinkId, Point.WRITE)
                        + Faults.fired(sinkId, Point.AFTER_PREPARE)
                        + Faults.fired(sinkId, Point.BEFORE_COMMIT))
                .as("failures injected")
                .isEqualTo(3);
    }

    /**
     * Checkpoint 2 is declined once the writer prepared it, so its transaction commits only with a later checkpoint,
     * and the records after it need a new column: the DDL would wait for that transaction's locks, whose commit
     * needs the writer's own thread. The writer fails instead, the job restarts from checkpoint 1 (the declined
     * transaction rolled back), makes the column in its first epoch, and ends exact.
     */
    @Test
    void aWideningWhileThePreviousTransactionCannotCommitRestartsAndWidensAfterTheRollback(
            @InjectClusterClient ClusterClient<?> client) throws Exception {
        long epoch = 500;
        long n = 4 * epoch;
        Workload workload = new Workload(table, 1_200, 1_800);
        StreamExecutionEnvironment env = TestJobs.manualEnv(1, TestJobs.fixedDelayRestarts(3, Duration.ofMillis(100)));
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(3);
        IdValve.ids(env, sinkId, n)
                .map(new CheckpointDecliner(sinkId, 0, 2, CheckpointDecliner.How.ASYNC_DECLINE_ONCE_SINK_PREPARED))
                .uid("decliner")
                .setParallelism(1)
                .sinkTo(sink(workload))
                .uid("sink");
        JobClient job = env.executeAsync("evolving routed tables, a declined checkpoint");
        try {
            feed(epoch);
            assertThat(TestJobs.checkpoint(client, job.getJobID())).isEqualTo(1);
            feed(2 * epoch);
            assertThat(client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED))
                    .as("checkpoint 2, declined")
                    .failsWithin(TestJobs.TIMEOUT);
            assertThat(CheckpointDecliner.failedCheckpoint(sinkId)).isEqualTo(2);
            IdValve.openFully(sinkId); // record 1,200 widens the items table while checkpoint 2's transaction waits
            job.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        } finally {
            TestJobs.cancelUnlessDone(job);
        }

        assertExact(workload, n);
        assertThat(Faults.writerAttempts(sinkId, 0))
                .as("writer attempts: the first failed at the widening, the second restored checkpoint 1")
                .containsExactlyInAnyOrder(0, 1);
        assertThat(Faults.writerRestoredCheckpoints(sinkId, 0))
                .as("checkpoints the writers restored")
                .contains(java.util.OptionalLong.of(1));
    }

    /** Lets the source emit up to {@code records} ids in all, and waits until the writer took them. */
    private void feed(long records) throws InterruptedException {
        IdValve.openTo(sinkId, records);
        TestJobs.await(() -> ProtocolTrace.written(sinkId) == records, "the writer to take " + records + " records");
    }
}
