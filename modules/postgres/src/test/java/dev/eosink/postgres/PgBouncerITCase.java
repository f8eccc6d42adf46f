/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.TransactionId;
import dev.eosink.testing.PgBouncer;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.eosink.testing.hardcases.TestJobs.failureOf;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.hardcases.TestJobs.messages;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink through a real PgBouncer. In transaction pooling mode a server session goes to whichever client starts a
 * transaction: the writer's session-level ownership guard (an advisory lock) then keeps no second job out, and its
 * session settings do not hold. The writer finds that out at start and refuses, naming the remedy, without restarts
 * and with nothing written. In session pooling mode the sink runs as on a direct connection, exact.
 */
class PgBouncerITCase extends ExactlyOnceTestBase {

    private static final long N = 500;

    @Test
    void transactionPoolingIsRefusedAtStartNamingTheRemedy() throws Exception {
        try (PgBouncer bouncer =
                new PgBouncer(db.jdbcUrl(), db.user(), db.password(), PgBouncer.PoolMode.TRANSACTION)) {
            // prepareThreshold=0: no server-side prepared statements, which transaction pooling breaks first
            // (PgBouncer 1.18); what remains is what the sink needs of a session.
            // Restarts allowed: the refusal must suppress them (a restart would find the same pooler).
            StreamExecutionEnvironment env = env(1, 200, TestJobs.fixedDelayRestarts(5, Duration.ofMillis(100)));
            ids(env, N, 5_000)
                    .sinkTo(FaultInjectingDatabase.wrap(sinkBuilder(sinkId, table)
                            .jdbcUrl(bouncer.jdbcUrl() + "?prepareThreshold=0")
                            .build()));
            String refused = messages(failureOf(() -> env.execute("through PgBouncer, transaction pooling")));
            assertThat(refused)
                    .as("PgBouncer's log:%n%s", bouncer.log())
                    .contains("sink '" + sinkId + "' subtask 0/1")
                    .contains(
                            "the ownership guard of sink id '" + sinkId + "' subtask 0 (a session-level advisory lock)")
                    .contains("pool_mode = transaction")
                    .contains("Remedy: connect the sink to PostgreSQL directly, or through a pooler in session mode");
        }
        assertThat(Faults.writerAttempts(sinkId, 0))
                .as("no restart after the refusal")
                .containsExactly(0);
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows written").isZero();
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions left")
                .isEmpty();
    }

    @Test
    void sessionPoolingRunsExactly() throws Exception {
        try (PgBouncer bouncer = new PgBouncer(db.jdbcUrl(), db.user(), db.password(), PgBouncer.PoolMode.SESSION)) {
            StreamExecutionEnvironment env = env(2, 200, TestJobs.noRestarts());
            ids(env, N, 5_000)
                    .sinkTo(sinkBuilder(sinkId, table)
                            .jdbcUrl(bouncer.jdbcUrl())
                            .build());
            env.execute("through PgBouncer, session pooling");
        }
        assertThat(db.count("SELECT count(*) FROM " + table)).as("rows").isEqualTo(N);
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + table))
                .as("distinct rows")
                .isEqualTo(N);
        assertThat(db.count("SELECT min(id) FROM " + table)).isZero();
        assertThat(db.count("SELECT max(id) FROM " + table)).as("none missing").isEqualTo(N - 1);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions left")
                .isEmpty();
    }
}
