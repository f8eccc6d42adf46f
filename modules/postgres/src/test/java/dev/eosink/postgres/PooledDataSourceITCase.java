/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.function.SerializableSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink's connections from a pooling DataSource (HikariCP), through a failover. The writer's
 * session carries the ownership guard (a session-level advisory lock); a pool that took the
 * connection back with the guard still held would keep it for as long as it keeps that idle
 * connection, and every restarted writer of the subtask would then wait claimWait and fail, at every
 * restart. The job must instead restart, end exact, and leave no session holding a guard of the sink.
 *
 * <p>Two ways users write the supplier: one pool shared by every connection of the task manager
 * (a static), and a new pool per call (each connection the sink opens comes from a pool of its own,
 * which nobody closes while the job runs). The test closes every pool it made afterwards.
 */
class PooledDataSourceITCase extends ExactlyOnceTestBase {

    enum Pooling {
        /** One pool per sink id, shared by the writers, the COPY monitors and the committers' pools. */
        SHARED,
        /** A new pool at every call of the supplier. */
        PER_CALL
    }

    /** The subtask the fault failed, per sink id. */
    private static final Map<String, Integer> FAILED_SUBTASK = new ConcurrentHashMap<>();

    /** Every pool a test's suppliers made, per sink id: closed after the test. */
    private static final Map<String, List<HikariDataSource>> POOLS = new ConcurrentHashMap<>();

    @AfterEach
    void closePools() {
        List<HikariDataSource> pools = POOLS.remove(sinkId);
        if (pools != null) {
            pools.forEach(HikariDataSource::close);
        }
        FAILED_SUBTASK.remove(sinkId);
    }

    /** A supplier the sink ships to the task managers: serializable, it only captures strings. */
    private static SerializableSupplier<DataSource> pooled(
            Pooling pooling, String sinkId, String url, String user, String password) {
        return () -> {
            List<HikariDataSource> pools = POOLS.computeIfAbsent(sinkId, k -> new CopyOnWriteArrayList<>());
            if (pooling == Pooling.SHARED) {
                synchronized (pools) {
                    if (pools.isEmpty()) {
                        pools.add(pool(sinkId, url, user, password, 10));
                    }
                    return pools.get(0);
                }
            }
            HikariDataSource pool = pool(sinkId + "-" + pools.size(), url, user, password, 2);
            pools.add(pool);
            return pool;
        };
    }

    /**
     * As a user would configure it: idle connections are kept (idleTimeout far beyond the test), so a
     * connection handed back with the guard would hold it for the rest of the test.
     */
    private static HikariDataSource pool(String name, String url, String user, String password, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("test-" + name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setIdleTimeout(Duration.ofMinutes(10).toMillis());
        return new HikariDataSource(config);
    }

    /**
     * A failover after the third PREPARE (of either subtask; the failover is regional, so only that
     * subtask restarts): its restarted writer must take its guard at once (claimWait is short, restarts few, so a guard kept by a pool fails the job), and
     * the table ends exact with nothing prepared and no guard of the sink held by any session.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Pooling.class)
    void failoverWithAPoolingDataSourceEndsExact(Pooling pooling) throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3, a -> {
            FAILED_SUBTASK.put(a.sinkId, a.subtask);
            throw new Faults.InjectedFault(a.sinkId + ": injected fault after PREPARE of " + a.transactionId);
        });
        StreamExecutionEnvironment env = env(2, 200, fixedDelayRestarts(2, Duration.ofMillis(100)));
        // At least four epochs with records per subtask: the third PREPARE comes.
        CheckpointPacedIds.ids(env, 4_000, 500)
                .sinkTo(FaultInjectingDatabase.wrap(PostgresSink.<Long>builder()
                        .dataSource(pooled(pooling, sinkId, db.jdbcUrl(), db.user(), db.password()))
                        .sinkId(sinkId)
                        .table(table)
                        .columns("id", "payload")
                        .rows(id -> new Object[] {id, "row-" + id})
                        .batchSize(100)
                        .claimWait(Duration.ofSeconds(3))
                        .commitRetryBackoff(Duration.ofMillis(50))
                        .build()));
        env.execute("pooled DataSource, failover");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        int failed = FAILED_SUBTASK.remove(sinkId);
        // A regional failover: the failed subtask's writer was opened again, and took its guard.
        assertThat(Faults.writerAttempts(sinkId, failed))
                .as("writer attempts of subtask %d", failed)
                .contains(0, 1);
        assertExactlyOnce(4_000);
        // The pools are still open: none of their sessions, idle or not, holds a guard of this sink.
        assertThat(db.count(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = ?::oid",
                        Integer.toUnsignedLong(lockClass(sinkId))))
                .as("sessions holding a guard of %s", sinkId)
                .isZero();
    }

    /** The guard's advisory-lock class, as the sink computes it (OwnershipGuard.lockClass). */
    private static int lockClass(String sinkId) {
        CRC32 crc = new CRC32();
        crc.update(("eosink/" + sinkId).getBytes(StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }
}
