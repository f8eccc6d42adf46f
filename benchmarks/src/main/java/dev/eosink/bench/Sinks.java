/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.postgres.PostgresSink;
import dev.eosink.postgres.PostgresSinkBuilder;
import dev.eosink.postgres.WriteMethod;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcExactlyOnceOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.util.function.SerializableSupplier;
import org.postgresql.xa.PGXADataSource;

import javax.sql.XADataSource;

/**
 * The sink under test for each Flink writer, all on the same URL, table and batch size. Written
 * against the builder's API only, so it measures whatever {@code writeMethod}, {@code upsert} do in
 * the eosink version on the classpath.
 */
final class Sinks {

    private Sinks() {}

    /** {@code --max-copy-backlog}, handed to each run's JVM. */
    static final String MAX_COPY_BACKLOG_PROPERTY = "eosink.bench.maxCopyBacklog";

    static long maxCopyBacklog() {
        return Long.getLong(MAX_COPY_BACKLOG_PROPERTY, PostgresSinkBuilder.DEFAULT_MAX_COPY_BACKLOG);
    }

    static final class Target {
        final String url;
        final String user;
        final String password;
        final String table;
        final int batchSize;

        Target(String url, String user, String password, String table, int batchSize) {
            this.url = url;
            this.user = user;
            this.password = password;
            this.table = table;
            this.batchSize = batchSize;
        }
    }

    static Sink<BenchRow> build(Writer writer, Target t) {
        if (Database.isMariaDb(t.url)) {
            return MariaDbSinks.build(writer, t);
        }
        switch (writer) {
            case EO_COPY:
                return eosink(t).writeMethod(WriteMethod.COPY).build().withLifecycleHook(new TimingHook());
            case EO_BATCH:
                return eosink(t).writeMethod(WriteMethod.BATCH).build().withLifecycleHook(new TimingHook());
            case EO_UPSERT:
                return eosink(t).upsert("id").build().withLifecycleHook(new TimingHook());
            case PEER_EO_XA:
                return JdbcSink.<BenchRow>builder()
                        .withQueryStatement(insertSql(t.table), BIND)
                        // The XA sink refuses retries: a retried batch could write its rows twice.
                        .withExecutionOptions(execution(t.batchSize, 0))
                        .buildExactlyOnce(
                                JdbcExactlyOnceOptions.builder()
                                        // PostgreSQL allows one XA transaction per connection: a pool of
                                        // connections, one per prepared transaction (the connector's docs).
                                        .withTransactionPerConnection(true)
                                        .build(),
                                xaDataSource(t.url, t.user, t.password));
            case PEER_ALO:
                return JdbcSink.<BenchRow>builder()
                        .withQueryStatement(insertSql(t.table), BIND)
                        .withExecutionOptions(execution(t.batchSize, JdbcExecutionOptions.DEFAULT_MAX_RETRY_TIMES))
                        .buildAtLeastOnce(connection(t, POSTGRES_DRIVER));
            case PEER_ALO_UPSERT:
                return JdbcSink.<BenchRow>builder()
                        .withQueryStatement(
                                insertSql(t.table)
                                        + " ON CONFLICT (id) DO UPDATE SET k = EXCLUDED.k, v = EXCLUDED.v, ts = EXCLUDED.ts",
                                BIND)
                        .withExecutionOptions(execution(t.batchSize, JdbcExecutionOptions.DEFAULT_MAX_RETRY_TIMES))
                        .buildAtLeastOnce(connection(t, POSTGRES_DRIVER));
            default:
                throw new IllegalArgumentException(writer.id + " is not a Flink sink");
        }
    }

    /**
     * The same sinks for the 20-column table ({@link WideRow}, append): eo-copy, eo-batch, peer-eo-xa
     * and peer-alo, configured as above.
     */
    static Sink<WideRow> buildWide(Writer writer, Target t) {
        switch (writer) {
            case EO_COPY:
                return eosinkWide(t).writeMethod(WriteMethod.COPY).build().withLifecycleHook(new TimingHook());
            case EO_BATCH:
                return eosinkWide(t).writeMethod(WriteMethod.BATCH).build().withLifecycleHook(new TimingHook());
            case PEER_EO_XA:
                return JdbcSink.<WideRow>builder()
                        .withQueryStatement(insertWideSql(t.table), WideRow::bind)
                        .withExecutionOptions(execution(t.batchSize, 0))
                        .buildExactlyOnce(
                                JdbcExactlyOnceOptions.builder()
                                        .withTransactionPerConnection(true)
                                        .build(),
                                xaDataSource(t.url, t.user, t.password));
            case PEER_ALO:
                return JdbcSink.<WideRow>builder()
                        .withQueryStatement(insertWideSql(t.table), WideRow::bind)
                        .withExecutionOptions(execution(t.batchSize, JdbcExecutionOptions.DEFAULT_MAX_RETRY_TIMES))
                        .buildAtLeastOnce(connection(t, POSTGRES_DRIVER));
            default:
                throw new IllegalArgumentException(writer.id + " has no 20-column variant");
        }
    }

    /** The writers {@link #buildWide} and {@link RawCopy} can run on the 20-column table. */
    static boolean hasWide(Writer w) {
        return w == Writer.RAW_COPY
                || w == Writer.EO_COPY
                || w == Writer.EO_BATCH
                || w == Writer.PEER_EO_XA
                || w == Writer.PEER_ALO;
    }

    private static PostgresSinkBuilder<WideRow> eosinkWide(Target t) {
        PostgresSinkBuilder<WideRow> b = PostgresSink.<WideRow>builder()
                .jdbcUrl(t.url)
                .username(t.user)
                .sinkId(t.table)
                .table(t.table)
                .columns(WideRow.COLUMNS.split(", "))
                .rows(WideRow::toRow)
                .batchSize(t.batchSize)
                .maxCopyBacklog(maxCopyBacklog());
        if (!t.password.isEmpty()) {
            b.password(t.password);
        }
        return b;
    }

    static String insertWideSql(String table) {
        return "INSERT INTO " + table + " (" + WideRow.COLUMNS + ") VALUES ("
                + String.join(", ", java.util.Collections.nCopies(WideRow.COLUMN_COUNT, "?")) + ")";
    }

    private static PostgresSinkBuilder<BenchRow> eosink(Target t) {
        PostgresSinkBuilder<BenchRow> b = PostgresSink.<BenchRow>builder()
                .jdbcUrl(t.url)
                .username(t.user)
                .sinkId(t.table)
                .table(t.table)
                .columns("id", "k", "v", "ts")
                .rows(BenchRow::toRow)
                .batchSize(t.batchSize)
                .maxCopyBacklog(maxCopyBacklog());
        if (!t.password.isEmpty()) {
            b.password(t.password);
        }
        return b;
    }

    static JdbcExecutionOptions executionOptions(int batchSize, int maxRetries) {
        return execution(batchSize, maxRetries);
    }

    static String insertSql(String table) {
        return "INSERT INTO " + table + " (" + Workload.COLUMNS + ") VALUES (?, ?, ?, ?)";
    }

    /** How every peer binds a row. */
    static final JdbcStatementBuilder<BenchRow> BIND = (ps, r) -> {
        ps.setLong(1, r.id);
        ps.setString(2, r.k);
        ps.setLong(3, r.v);
        ps.setObject(4, r.ts());
    };

    /**
     * The peer's batching: {@code batchSize} rows or, for its at-least-once sinks (the retrying ones),
     * {@link #PEER_FLUSH_INTERVAL_MS} since the last flush, whichever comes first; the exactly-once (XA)
     * sink takes no interval (its rows become visible at the checkpoint anyway).
     */
    /**
     * The flush interval of the peer's at-least-once sinks: what a user who wants fresh rows sets, and so
     * the freshness an at-least-once sink offers ({@code sink.buffer-flush.interval} in SQL).
     */
    static final long PEER_FLUSH_INTERVAL_MS = 100;

    private static JdbcExecutionOptions execution(int batchSize, int maxRetries) {
        return JdbcExecutionOptions.builder()
                .withBatchSize(batchSize)
                .withBatchIntervalMs(maxRetries > 0 ? PEER_FLUSH_INTERVAL_MS : 0)
                .withMaxRetries(maxRetries)
                .build();
    }

    private static final String POSTGRES_DRIVER = "org.postgresql.Driver";

    /** The at-least-once peers' connection to the target, by the named JDBC driver class. */
    static JdbcConnectionOptions connection(Target t, String driver) {
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder b = new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
                .withUrl(t.url)
                .withDriverName(driver)
                .withUsername(t.user);
        if (!t.password.isEmpty()) {
            b.withPassword(t.password);
        }
        return b.build();
    }

    private static SerializableSupplier<XADataSource> xaDataSource(String url, String user, String password) {
        return () -> {
            PGXADataSource ds = new PGXADataSource();
            ds.setUrl(url); // parses the URL's parameters (reWriteBatchedInserts, ...) too
            ds.setUser(user);
            if (!password.isEmpty()) {
                ds.setPassword(password);
            }
            return ds;
        };
    }
}
