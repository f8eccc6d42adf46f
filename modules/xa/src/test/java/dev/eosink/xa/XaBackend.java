/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.hardcases.HardCaseBackend;
import dev.eosink.testing.hardcases.SessionScope;
import dev.eosink.testing.hardcases.SinkSpec;
import dev.eosink.xa.internal.XaIds;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One real database the XA sink runs against, for the hard-case suite ({@code HardCases}) and the
 * XA-specific tests ({@link XaDialectCases}): how to reach it as the sink and as an administrator,
 * and how to ask it, through XA itself ({@code XAResource.recover}), which branches are prepared.
 */
abstract class XaBackend implements HardCaseBackend {

    static final String MARKERS = XaSinkBuilder.DEFAULT_MARKER_TABLE;

    /**
     * The LIKE pattern of the names of the sink's sessions in {@code scope}: the XA sink names each
     * session "eosink-xa/&lt;sinkId&gt;/&lt;subtask&gt;/&lt;role&gt;" (PostgreSQL's application_name,
     * MariaDB's program_name).
     */
    static String sessionNames(String sinkId, SessionScope scope) {
        if (scope instanceof SessionScope.Writer writer) {
            return "eosink-xa/" + sinkId + "/" + writer.subtask() + "/writer"; // the branch's, not the guard's
        }
        return "eosink-xa/" + sinkId + "/%";
    }

    /** The sink's connection settings, with {@code url} (the database's, or a proxy's to it). */
    abstract XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder, String url);

    XaSinkBuilder<Long> connect(XaSinkBuilder<Long> builder) {
        return connect(builder, jdbcUrl());
    }

    /** An XADataSource as the sink's user, for staging leftovers, resolving them and cleaning up. */
    abstract XADataSource xaDataSource() throws SQLException;

    /** The database's name in the sink's messages (its dialect's). */
    abstract String dialectName();

    /**
     * Whether a prepared branch stays attached to the session that prepared it until that session ends
     * (MariaDB), rather than leaving it idle at once (pgjdbc). What the dialect assumes, pinned by a test.
     */
    abstract boolean keepsPreparedBranchAttached();

    /** The password the sink connects with, for the tests that it never shows. */
    abstract String sinkPassword();

    /**
     * The name the sink is given for the cases' table {@code table}: the name as the database stores the one the
     * cases' SQL writes unquoted (the sink quotes it). Where the database folds unquoted names to upper case
     * (Firebird), the upper-case name.
     */
    String tableName(String table) {
        return table;
    }

    /** The target's columns {@code (id, payload)}, named as {@link #tableName} names the table. */
    List<String> targetColumns() {
        return List.of("id", "payload");
    }

    /**
     * The sink as the suite's spec says. A network timeout below the default lock timeout also
     * shortens the lock timeout, to half of it: the builder requires it shorter.
     */
    @Override
    public ExactlyOnceSink<Long> sink(SinkSpec spec) {
        XaSinkBuilder<Long> builder = connect(
                        XaSink.<Long>builder(), spec.jdbcUrl().orElse(jdbcUrl()))
                .sinkId(spec.sinkId())
                .table(tableName(spec.table()))
                .columns(targetColumns().toArray(String[]::new))
                .rows(id -> new Object[] {id, "row-" + id})
                .batchSize(spec.batchSize())
                .claimWait(spec.claimWait())
                .commitRetryBackoff(spec.commitRetryBackoff());
        spec.leftoverPolicy().ifPresent(builder::leftoverPolicy);
        spec.rewindPolicy().ifPresent(builder::rewindPolicy);
        spec.maxPreparedPerSubtask().ifPresent(builder::maxPreparedPerSubtask);
        spec.markerRetention().ifPresent(builder::markerRetention);
        spec.markerPruneInterval().ifPresent(builder::markerPruneInterval);
        spec.networkTimeout().ifPresent(timeout -> {
            builder.networkTimeout(timeout);
            if (timeout.compareTo(XaSinkBuilder.DEFAULT_LOCK_TIMEOUT) <= 0) {
                builder.lockTimeout(Duration.ofSeconds(Math.max(1, timeout.toSeconds() / 2)));
            }
        });
        spec.driverProperties().forEach(builder::property);
        return builder.build();
    }

    /**
     * Through XA itself, as the sink's user, as the dialect lists the prepared branches ({@code
     * XaTraits.preparedBranches}: {@code recover}, less the finished branches a driver also lists): what the sink's
     * own recovery sees.
     */
    @Override
    public List<TransactionId> prepared(String sinkId) {
        return recovered()
                .map(xid -> XaIds.parse(xid, sinkId))
                .flatMap(Optional::stream)
                .collect(Collectors.toList());
    }

    private Stream<Xid> recovered() {
        try {
            XAConnection xa = xaDataSource().getXAConnection();
            try {
                Connection c = xa.getConnection();
                return JdbcDialects.forConnection(c).xa().preparedBranches(xa.getXAResource(), c).stream();
            } finally {
                xa.close();
            }
        } catch (SQLException | XAException e) {
            throw new IllegalStateException("could not list the prepared XA branches on " + name(), e);
        }
    }

    @Override
    public void stagePrepared(String table, TransactionId id, long from, long to) throws SQLException {
        XAConnection xa = xaDataSource().getXAConnection();
        try {
            Connection c = xa.getConnection();
            JdbcDialect dialect = JdbcDialects.forConnection(c);
            MarkerSql markers = dialect.markers(new SqlIdentifier(null, MARKERS));
            try (Statement s = c.createStatement()) {
                s.executeQuery(markers.existsSql().replace("?", "''")).close();
            } catch (SQLException missing) {
                // Only when missing: PostgreSQL's CREATE INDEX IF NOT EXISTS would wait for prepared branches' locks.
                try (Statement s = c.createStatement()) {
                    s.execute(markers.createSql());
                }
            }
            Xid xid = XaIds.toXid(id);
            XAResource resource = xa.getXAResource();
            resource.start(xid, XAResource.TMNOFLAGS);
            try (PreparedStatement rows = c.prepareStatement(
                            dialect.writes().insertSql(new SqlIdentifier(null, tableName(table)), targetColumns(), 1));
                    PreparedStatement marker = c.prepareStatement(markers.insertSql())) {
                for (long i = from; i < to; i++) {
                    rows.setLong(1, i);
                    rows.setString(2, "staged");
                    rows.addBatch();
                }
                rows.executeBatch();
                marker.setString(1, id.toString());
                marker.setString(2, id.sinkId());
                marker.setInt(3, id.subtask());
                marker.setLong(4, id.checkpointId());
                marker.setLong(5, to - from);
                marker.executeUpdate();
            }
            resource.end(xid, XAResource.TMSUCCESS);
            resource.prepare(xid);
        } catch (XAException e) {
            throw new SQLException("staging " + id + " failed: XA error " + e.errorCode, e);
        } finally {
            xa.close(); // MariaDB: detaches the prepared branch
        }
    }

    @Override
    public void commitPrepared(TransactionId id) throws SQLException {
        finish(id, true);
    }

    @Override
    public void rollbackPrepared(TransactionId id) throws SQLException {
        finish(id, false);
    }

    private void finish(TransactionId id, boolean commit) throws SQLException {
        XAConnection xa = xaDataSource().getXAConnection();
        try {
            if (commit) {
                xa.getXAResource().commit(XaIds.toXid(id), false);
            } else {
                xa.getXAResource().rollback(XaIds.toXid(id));
            }
        } catch (XAException e) {
            throw new SQLException(
                    (commit ? "commit" : "rollback") + " of " + id + " failed: XA error " + e.errorCode, e);
        } finally {
            xa.close();
        }
    }

    /** The writer names the guard by subtask and database, the session holding it being another job's. */
    @Override
    public String guardHolder(String sinkId, int subtask) {
        return "subtask " + subtask + " on " + dialectName();
    }

    @Override
    public String toString() {
        return name();
    }
}
