/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL itself crashes (SIGKILL of the postmaster and every backend, as a power loss would: no
 * shutdown checkpoint) at each point of the sink's lifecycle, and comes back three seconds later
 * after crash recovery, while the job keeps running and restarting. Open transactions die with the
 * crash; prepared transactions survive it and must end as the protocol says: committed when their
 * checkpoint completed, rolled back when it did not. Every test ends exact, with nothing prepared left.
 *
 * <p>The class runs its own embedded server ({@link PostgresFixture#startNew}), so that crashing it
 * disturbs no other test.
 */
class DatabaseCrashITCase extends ExactlyOnceTestBase {

    /** How long the server stays down: long enough for several restarts of the job to fail against it. */
    private static final long DOWN_MILLIS = 3_000;

    private static StandalonePostgres server;
    private static final Map<String, String> HIT = new ConcurrentHashMap<>();
    private static final Map<String, CompletableFuture<Void>> BACK_UP = new ConcurrentHashMap<>();

    @Override
    protected PostgresFixture server() {
        synchronized (DatabaseCrashITCase.class) {
            if (server == null) {
                server = PostgresFixture.startNew(Map.of());
            }
            return server;
        }
    }

    @AfterAll
    static void closeServer() {
        synchronized (DatabaseCrashITCase.class) {
            if (server != null) {
                server.close();
                server = null;
            }
        }
    }

    @BeforeEach
    void resetTrace() {
        ProtocolTrace.reset(sinkId);
        HIT.remove(sinkId);
    }

    @AfterEach
    void serverIsUpAgain() throws Exception {
        CompletableFuture<Void> up = BACK_UP.remove(sinkId);
        if (up != null) {
            up.get(60, TimeUnit.SECONDS);
        }
        ProtocolTrace.reset(sinkId);
    }

    /**
     * The crash hits, by point: the open transaction mid-epoch (WRITE); the barrier before or right
     * after PREPARE TRANSACTION; the committer before COMMIT PREPARED (the checkpoint is complete,
     * the transaction prepared: the restored committer must commit it) and right after it (the
     * restored committer must prove it from its marker).
     */
    @ParameterizedTest(name = "crash at {0}")
    @EnumSource(Faults.Point.class)
    void crashAndRestartOfPostgresEndsExact(Faults.Point point) throws Exception {
        runWithTheServerDownAt(point, point == Faults.Point.WRITE ? 1_500 : 3, server::crash);

        assertThat(Faults.fired(sinkId, point)).isEqualTo(1);
        String gid = HIT.get(sinkId);
        if (point != Faults.Point.WRITE && point != Faults.Point.BEFORE_PREPARE) {
            // The transaction prepared before the crash survived it and was finished afterwards.
            List<String> history = ProtocolTrace.history(sinkId, gid);
            assertThat(history).as("history of %s", gid).first().isEqualTo("PREPARED@0");
            if (point == Faults.Point.BEFORE_COMMIT) {
                assertThat(history)
                        .as("committed after the restart")
                        .anySatisfy(e -> assertThat(e).startsWith("COMMIT:COMMITTED@"));
            } else if (point == Faults.Point.AFTER_COMMIT) {
                assertThat(history).contains("COMMIT:COMMITTED@0");
            } else {
                assertThat(history)
                        .as("committed or rolled back, as its checkpoint decided")
                        .anySatisfy(
                                e -> assertThat(e).matches("COMMIT:COMMITTED@\\d+|MARKER:true@\\d+|ROLLED_BACK@\\d+"));
            }
        }
        assertExactlyOnce(4_000);
    }

    /**
     * An administrator's restart in the middle of an epoch: a fast shutdown ({@code pg_ctl stop -m
     * fast}) terminates every session (SQLSTATE 57P01), rolls back open transactions and keeps
     * prepared ones; the writer's task fails over and the job ends exact once the server is back.
     */
    @Test
    void fastShutdownAndRestartMidEpochEndsExact() throws Exception {
        runWithTheServerDownAt(Faults.Point.WRITE, 1_500, server::stop);

        assertThat(Faults.fired(sinkId, Faults.Point.WRITE)).isEqualTo(1);
        assertExactlyOnce(4_000);
    }

    /**
     * Runs the test's job; at the {@code nth} arrival at {@code point}, {@code down} takes the server
     * down and it starts again {@link #DOWN_MILLIS} later, while the job restarts every 200 ms for as
     * long as it takes (a small restart budget would run out on a slow machine).
     */
    private void runWithTheServerDownAt(Faults.Point point, int nth, Runnable down) throws Exception {
        Faults.arm(sinkId, point, nth, a -> {
            HIT.put(a.sinkId, a.transactionId == null ? "" : a.transactionId);
            down.run();
            BACK_UP.put(
                    a.sinkId,
                    CompletableFuture.runAsync(
                            server::start, CompletableFuture.delayedExecutor(DOWN_MILLIS, TimeUnit.MILLISECONDS)));
        });
        StreamExecutionEnvironment env = env(2, 200, fixedDelayRestarts(1_000, Duration.ofMillis(200)));
        // At least four epochs with records per subtask: the third arrival at every point comes.
        CheckpointPacedIds.ids(env, 4_000, 500)
                .sinkTo(FaultInjectingDatabase.wrap(
                        ProtocolTrace.wrap(sinkBuilder(sinkId, table).build())));
        env.execute("database down at " + point);
    }
}
