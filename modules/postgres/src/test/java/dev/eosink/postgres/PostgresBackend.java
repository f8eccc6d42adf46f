/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.hardcases.HardCaseBackend;
import dev.eosink.testing.hardcases.KeyedResource;
import dev.eosink.testing.hardcases.SessionScope;
import dev.eosink.testing.hardcases.SinkSpec;
import dev.eosink.testing.records.UpsertRecords.KeyFunction;
import dev.eosink.testing.records.UpsertRecords.KindFunction;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * PostgreSQL's own two-phase commit (PREPARE TRANSACTION, COMMIT PREPARED) for the hard-case suite:
 * the sink's transactions are listed in pg_prepared_xacts under their names, its sessions in
 * pg_stat_activity under application_name "eosink/&lt;sinkId&gt;/&lt;subtask&gt;/&lt;role&gt;". Its changelog
 * sink ({@link KeyedResource}) upserts by statements ({@link WriteMethod#BATCH}) or by COPY. Public, and in
 * this module's test jar, for the explorer suite of eosink-admin.
 */
public final class PostgresBackend implements HardCaseBackend, KeyedResource {

    private final PostgresFixture db;

    /** The shared server of the tests. */
    public PostgresBackend() {
        this(PostgresFixture.get());
    }

    PostgresBackend(PostgresFixture db) {
        this.db = db;
    }

    @Override
    public String name() {
        return "PostgreSQL";
    }

    @Override
    public ExactlyOnceSink<Long> sink(SinkSpec spec) {
        return insertBuilder(spec).build();
    }

    @Override
    public Optional<ExactlyOnceSink<Long>> batchSink(SinkSpec spec) {
        return Optional.of(insertBuilder(spec).writeMethod(WriteMethod.BATCH).build());
    }

    private PostgresSinkBuilder<Long> insertBuilder(SinkSpec spec) {
        PostgresSinkBuilder<Long> builder =
                builder(spec).columns("id", "payload").rows(id -> new Object[] {id, "row-" + id});
        spec.maxPreparedPerSubtask().ifPresent(builder::maxPreparedPerSubtask);
        spec.markerRetention().ifPresent(builder::markerRetention);
        spec.markerPruneInterval().ifPresent(builder::markerPruneInterval);
        spec.driverProperties().forEach(builder::property);
        return builder;
    }

    /** What every sink of the backend takes from a spec: where, who, which sink and table, the policies. */
    private PostgresSinkBuilder<Long> builder(SinkSpec spec) {
        PostgresSinkBuilder<Long> builder = PostgresSink.<Long>builder()
                .jdbcUrl(spec.jdbcUrl().orElse(db.jdbcUrl()))
                .username(db.user())
                .password(db.password())
                .sinkId(spec.sinkId())
                .table(spec.table())
                .batchSize(spec.batchSize())
                .claimWait(spec.claimWait())
                .commitRetryBackoff(spec.commitRetryBackoff());
        spec.leftoverPolicy().ifPresent(builder::leftoverPolicy);
        spec.rewindPolicy().ifPresent(builder::rewindPolicy);
        spec.networkTimeout().ifPresent(builder::networkTimeout);
        return builder;
    }

    @Override
    public Optional<KeyedResource> keyed() {
        return Optional.of(this);
    }

    @Override
    public Set<Method> methods() {
        return EnumSet.allOf(Method.class);
    }

    /**
     * By statements of {@code batchSize} keys, or by COPY. With COPY the first record of each new key waits in
     * the upsert writer's window, and statements gather a quarter COPY chunk (2,500 keys) before they run: a
     * stream of a few hundred keys per epoch runs them at barriers, carried past the barrier while the
     * previous transaction commits. By statements they also run within the epoch, as soon as the writer
     * takes its previous transaction for committed.
     */
    @Override
    public ExactlyOnceSink<Long> changelogSink(SinkSpec spec, KeyFunction key, KindFunction kind, Method method) {
        return builder(spec)
                .columns("k", "v")
                .rows(i -> new Object[] {key.of(i), i})
                .upsert("k")
                .changelog(kind::of)
                .writeMethod(method == Method.COPY ? WriteMethod.COPY : WriteMethod.BATCH)
                .build();
    }

    @Override
    public void createKeyedTarget(String target) {
        db.execute("CREATE TABLE " + target + " (k bigint PRIMARY KEY, v bigint NOT NULL)");
    }

    @Override
    public String jdbcUrl() {
        return db.jdbcUrl();
    }

    @Override
    public Properties connectionProperties() {
        return db.connectionProperties();
    }

    @Override
    public Connection connect() throws SQLException {
        return db.connect();
    }

    @Override
    public void createTable(String table) {
        db.execute("CREATE TABLE " + table + " (id bigint NOT NULL, payload text NOT NULL)");
    }

    @Override
    public List<TransactionId> prepared(String sinkId) {
        return db.preparedGids(TransactionId.sinkPrefix(sinkId)).stream()
                .map(gid -> TransactionId.parse(gid).orElseThrow())
                .collect(Collectors.toList());
    }

    @Override
    public void stagePrepared(String table, TransactionId id, long from, long to) throws SQLException {
        // Only when missing: CREATE INDEX IF NOT EXISTS would wait for the locks of prepared transactions.
        if (db.count("SELECT count(*) FROM pg_class WHERE relname = ?", PostgresSinkBuilder.DEFAULT_MARKER_TABLE)
                == 0) {
            db.execute(PostgresDialect.INSTANCE
                    .markers(new SqlIdentifier(null, PostgresSinkBuilder.DEFAULT_MARKER_TABLE))
                    .createSql());
        }
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement();
                    PreparedStatement marker =
                            c.prepareStatement("INSERT INTO " + PostgresSinkBuilder.DEFAULT_MARKER_TABLE
                                    + " (gid, sink_id, subtask, checkpoint_id, row_count) VALUES (?, ?, ?, ?, ?)")) {
                s.executeUpdate("INSERT INTO " + table + " SELECT g, 'staged' FROM generate_series(" + from + ", "
                        + (to - 1) + ") g");
                marker.setString(1, id.toString());
                marker.setString(2, id.sinkId());
                marker.setInt(3, id.subtask());
                marker.setLong(4, id.checkpointId());
                marker.setLong(5, to - from);
                marker.executeUpdate();
                s.execute("PREPARE TRANSACTION " + literal(id.toString()));
            }
            c.setAutoCommit(true);
        }
    }

    @Override
    public void commitPrepared(TransactionId id) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("COMMIT PREPARED " + literal(id.toString()));
        }
    }

    @Override
    public void rollbackPrepared(TransactionId id) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("ROLLBACK PREPARED " + literal(id.toString()));
        }
    }

    @Override
    public int cutSessions(String sinkId, SessionScope scope) {
        return db.terminateBackends(applicationNames(sinkId, scope));
    }

    /** The LIKE pattern of the application_name of the sessions in {@code scope}. */
    private static String applicationNames(String sinkId, SessionScope scope) {
        if (scope instanceof SessionScope.Writer writer) {
            return "eosink/" + sinkId + "/" + writer.subtask() + "/writer";
        }
        return "eosink/" + sinkId + "/%";
    }

    @Override
    public long openSessions(String sinkId) {
        return db.count(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ?", "eosink/" + sinkId + "/%");
    }

    @Override
    public String prepareRequest(TransactionId id) {
        return "PREPARE TRANSACTION";
    }

    @Override
    public String commitRequest(TransactionId id) {
        return "COMMIT PREPARED " + literal(id.toString());
    }

    /** The writer names the guard's holder by its backend pid and application_name, from pg_locks. */
    @Override
    public String guardHolder(String sinkId, int subtask) {
        return "application_name 'eosink/" + sinkId + "/" + subtask + "/writer'";
    }

    @Override
    public OwnServer startOwnServer() {
        return OwnServer.of(PostgresFixture.startNew(Map.of()), PostgresBackend::new);
    }

    private static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}
