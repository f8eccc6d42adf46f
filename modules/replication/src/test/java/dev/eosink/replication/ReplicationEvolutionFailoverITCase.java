/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.ChangeKind;
import dev.eosink.cdc.ColumnSchema;
import dev.eosink.cdc.ColumnType;
import dev.eosink.cdc.EventOrigin;
import dev.eosink.cdc.Row;
import dev.eosink.cdc.RowSchema;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.cdc.SourcePosition;
import dev.eosink.cdc.TableId;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableRoute;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.Faults.Point;
import dev.eosink.testing.hardcases.IdValve;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** An evolving replication through a failover that leaves a delete as the first change of a created table. */
class ReplicationEvolutionFailoverITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private final PostgresFixture db = PostgresFixture.get();

    private static final RowSchema KEY =
            new RowSchema(Optional.empty(), List.of(new ColumnSchema("id", ColumnType.INT64, false, Map.of())));
    private static final RowSchema ROW = new RowSchema(
            Optional.empty(),
            List.of(
                    new ColumnSchema("id", ColumnType.INT64, false, Map.of()),
                    new ColumnSchema("name", ColumnType.STRING, true, Map.of())));

    /** Record i: an insert of source row i for i < 50, then the delete of row i - 50, as Debezium sends them. */
    private static final class InsertsThenDeletes implements TableRoute<Long> {
        private static final long serialVersionUID = 1L;

        final ChangeEventRoute route;

        InsertsThenDeletes(ChangeEventRoute route) {
            this.route = route;
        }

        @Override
        public void route(Long i, TableChanges out) {
            EventOrigin origin = new EventOrigin(
                    new TableId(Optional.empty(), Optional.of("public"), "things"),
                    new SourcePosition("postgresql", Instant.EPOCH, Optional.empty(), Map.of()),
                    Optional.empty());
            long id = i < 50 ? i : i - 50;
            LinkedHashMap<String, Object> key = new LinkedHashMap<>();
            key.put("id", id);
            ChangeEvent event;
            if (i < 50) {
                LinkedHashMap<String, Object> after = new LinkedHashMap<>();
                after.put("id", id);
                after.put("name", "thing " + id);
                event = new ChangeEvent(
                        origin,
                        ChangeKind.INSERT,
                        Optional.of(new Row(key, Optional.of(KEY))),
                        Optional.empty(),
                        Optional.of(new Row(after, Optional.of(ROW))));
            } else {
                event = new ChangeEvent(
                        origin,
                        ChangeKind.DELETE,
                        Optional.of(new Row(key, Optional.of(KEY))),
                        Optional.empty(),
                        Optional.empty());
            }
            route.route(event, out);
        }
    }

    /**
     * An evolving replication creates its target table from the first inserts; checkpoint 1 completes after record
     * 60 (inserts 0..49, deletes 0..9); a failure strikes at record 65. The first record after the restore is a delete,
     * which gives no shape: the restored writer finds the table the sink created in the catalog and plans it then.
     */
    @Test
    void aDeleteFirstAfterAFailoverFindsTheTableTheSinkCreated(@InjectClusterClient ClusterClient<?> client)
            throws Exception {
        String schema = "delfirst_" + (System.nanoTime() % 1_000_000);
        String sinkId = schema;
        ReplicaTables replica;
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            replica = ReplicaTables.readEvolving(c, schema, List.of("public.things"));
        }
        RoutedTables<Long> routed = replica.routed(new InsertsThenDeletes(
                new ChangeEventRoute(new ChangeEventRouter(replica, SchemalessValues.microseconds()))));
        Faults.reset(sinkId);
        Faults.arm(sinkId, Point.WRITE, 65);
        long n = 100;
        StreamExecutionEnvironment env = TestJobs.manualEnv(1, TestJobs.fixedDelayRestarts(3, Duration.ofMillis(100)));
        IdValve.ids(env, sinkId, n)
                .sinkTo(FaultInjectingDatabase.wrap(ProtocolTrace.wrap(PostgresSink.<Long>builder()
                        .jdbcUrl(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .sinkId(sinkId)
                        .tables(routed)
                        .batchSize(20)
                        .build())));
        JobClient job = env.executeAsync("evolving replication, a delete first after a failover");
        try {
            IdValve.openTo(sinkId, 60);
            TestJobs.await(() -> ProtocolTrace.written(sinkId) == 60, "the writer to take 60 records");
            assertThat(TestJobs.checkpoint(client, job.getJobID())).isEqualTo(1);
            IdValve.openFully(sinkId);
            job.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            TestJobs.cancelUnlessDone(job);
            IdValve.reset(sinkId);
            ProtocolTrace.reset(sinkId);
        }
        assertThat(Faults.fired(sinkId, Point.WRITE)).as("the failure injected").isEqualTo(1);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions left")
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + schema + ".things"))
                .as("rows left: every inserted row was deleted")
                .isZero();
    }
}
