/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.xa.XaSink;
import dev.eosink.xa.XaSinkBuilder;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.jdbc.JdbcExactlyOnceOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.util.function.SerializableSupplier;
import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.XADataSource;

import java.sql.SQLException;

/**
 * The sinks under test against MariaDB ({@code --database mariadb}): eosink's XA sink, and
 * flink-connector-jdbc 4.0's exactly-once (XA, MariaDB Connector/J's {@code XADataSource}) and
 * at-least-once sinks, on the same URL, table and batch size, as {@link Sinks} builds them for PostgreSQL.
 */
final class MariaDbSinks {

    private static final String DRIVER = "org.mariadb.jdbc.Driver";

    private MariaDbSinks() {}

    static Sink<BenchRow> build(Writer writer, Sinks.Target t) {
        switch (writer) {
            case EO_XA:
                return eosink(t).build().withLifecycleHook(new TimingHook());
            case EO_XA_UPSERT:
                return eosink(t).upsert("id").build().withLifecycleHook(new TimingHook());
            case PEER_EO_XA:
                return JdbcSink.<BenchRow>builder()
                        .withQueryStatement(Sinks.insertSql(t.table), Sinks.BIND)
                        // The XA sink refuses retries: a retried batch could write its rows twice.
                        .withExecutionOptions(Sinks.executionOptions(t.batchSize, 0))
                        .buildExactlyOnce(
                                // MariaDB, like PostgreSQL, keeps one XA transaction per connection.
                                JdbcExactlyOnceOptions.builder()
                                        .withTransactionPerConnection(true)
                                        .build(),
                                xaDataSource(t.url, t.user, t.password));
            case PEER_ALO:
                return JdbcSink.<BenchRow>builder()
                        .withQueryStatement(Sinks.insertSql(t.table), Sinks.BIND)
                        .withExecutionOptions(
                                Sinks.executionOptions(t.batchSize, JdbcExecutionOptions.DEFAULT_MAX_RETRY_TIMES))
                        .buildAtLeastOnce(Sinks.connection(t, DRIVER));
            case PEER_ALO_UPSERT:
                return JdbcSink.<BenchRow>builder()
                        .withQueryStatement(
                                Sinks.insertSql(t.table)
                                        + " ON DUPLICATE KEY UPDATE k = VALUES(k), v = VALUES(v), ts = VALUES(ts)",
                                Sinks.BIND)
                        .withExecutionOptions(
                                Sinks.executionOptions(t.batchSize, JdbcExecutionOptions.DEFAULT_MAX_RETRY_TIMES))
                        .buildAtLeastOnce(Sinks.connection(t, DRIVER));
            default:
                throw new IllegalArgumentException(writer.id + " does not run against MariaDB");
        }
    }

    private static XaSinkBuilder<BenchRow> eosink(Sinks.Target t) {
        XaSinkBuilder<BenchRow> b = XaSink.<BenchRow>builder()
                .jdbcUrl(t.url)
                .username(t.user)
                .sinkId(t.table.replace('_', '-'))
                .table(t.table)
                .columns("id", "k", "v", "ts")
                .rows(BenchRow::toRow)
                .batchSize(t.batchSize);
        if (!t.password.isEmpty()) {
            b.password(t.password);
        }
        return b;
    }

    private static SerializableSupplier<XADataSource> xaDataSource(String url, String user, String password) {
        return () -> {
            try {
                MariaDbDataSource ds = new MariaDbDataSource(url);
                ds.setUser(user);
                if (!password.isEmpty()) {
                    ds.setPassword(password);
                }
                return ds;
            } catch (SQLException e) {
                throw new IllegalStateException("MariaDB XADataSource for " + url + ": " + e.getMessage(), e);
            }
        };
    }
}
