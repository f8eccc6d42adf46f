/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.SqlIdentifier;

import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * One committer subtask's access to PostgreSQL, through a small HikariCP pool in autocommit mode:
 * {@code COMMIT PREPARED} works from any session of the same database and role, and a broken
 * connection is simply replaced by the pool on the next attempt.
 */
final class PostgresCommitSession implements CommitSession {

    private final SubtaskContext context;
    private final MarkerTable markers;
    private final MarkerSql markerSql;
    private final HikariDataSource pool;
    private final Duration networkTimeout;

    PostgresCommitSession(SubtaskContext context, MarkerTable markers, HikariDataSource pool, Duration networkTimeout) {
        this.context = context;
        this.markers = markers;
        this.markerSql = PostgresDialect.INSTANCE.markers(markers.table());
        this.pool = pool;
        this.networkTimeout = networkTimeout;
    }

    @Override
    public Attempt commit(TransactionId id) throws IOException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            watched(c)
                    .call(
                            "COMMIT PREPARED",
                            () -> s.execute("COMMIT PREPARED " + SqlIdentifier.literal(id.toString())));
            return Attempt.COMMITTED;
        } catch (SQLException e) {
            switch (PostgresErrors.onCommit(e)) {
                case NOT_FOUND:
                    return Attempt.NOT_FOUND;
                case RETRY:
                    throw new RetriableCommitException(
                            "COMMIT PREPARED of " + id + ": " + e.getMessage() + " (SQLSTATE " + e.getSQLState() + ")",
                            e);
                default:
                    throw new SinkException(
                            context
                                    + ": COMMIT PREPARED of "
                                    + id
                                    + " (checkpoint "
                                    + id.checkpointId()
                                    + ", subtask "
                                    + id.subtask()
                                    + ") failed: "
                                    + e.getMessage()
                                    + " (SQLSTATE "
                                    + e.getSQLState()
                                    + ")."
                                    + PostgresErrors.commitRemedy(e),
                            e);
            }
        }
    }

    @Override
    public boolean isMarked(TransactionId id) throws IOException {
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(markerSql.existsSql())) {
            s.setString(1, id.toString());
            return watched(c).call("the marker lookup", () -> {
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next();
                }
            });
        } catch (SQLException e) {
            if (PostgresErrors.isTransient(e)) {
                throw new RetriableCommitException("marker lookup of " + id + ": " + e.getMessage(), e);
            }
            throw new SinkException(
                    context + ": could not read marker table " + markers.table() + " for " + id + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public long pruneMarkers(Duration retention) throws IOException {
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(markerSql.pruneSql())) {
            s.setString(1, context.sinkId());
            s.setDouble(2, retention.toMillis() / 1000.0);
            return watched(c).call("pruning markers", s::executeUpdate);
        } catch (SQLException e) {
            throw new SinkException(context + ": pruning " + markers.table() + " failed: " + e.getMessage(), e);
        }
    }

    /** Bounds a call on {@code c}: see {@link IoWatchdog}. */
    private IoWatchdog watched(Connection c) {
        return new IoWatchdog(c, networkTimeout, context);
    }

    @Override
    public void close() {
        pool.close();
    }
}
