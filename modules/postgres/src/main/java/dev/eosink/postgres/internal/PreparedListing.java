/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.CarriedNotices;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The sink's prepared transactions in the database: the one query, on the writer's connection between
 * epochs ({@link #list(Connection, IoWatchdog, String)}), and on a connection of its own within an epoch
 * ({@link #list()}).
 *
 * <p>Why a connection of its own within an epoch: the writer asks there whether its previous transaction,
 * committed by a committer in another JVM, is done (the writer's {@code OwnCommits}). On the writer's
 * connection the query would run inside the epoch's transaction: under REPEATABLE READ it would fix the
 * epoch's snapshot before that commit (a delete run after it would miss the rows it inserted); it would
 * leave the catalogs it reads locked until COMMIT PREPARED; and with COPY it would first have to end the
 * chunk in flight, each end a subtransaction more. Opened when first needed, so a writer whose committer
 * signals in its JVM (the usual case) has none; it holds no lock and no transaction (each listing
 * autocommits), so a pool may lend it to anyone afterwards.
 */
final class PreparedListing implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PreparedListing.class);

    private static final String SQL =
            "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, ?)";

    private final CopyBacklog.Opener opener;
    private final Duration networkTimeout;
    private final SubtaskContext context;
    private Connection connection;
    private IoWatchdog io;

    PreparedListing(CopyBacklog.Opener opener, Duration networkTimeout, SubtaskContext context) {
        this.opener = opener;
        this.networkTimeout = networkTimeout;
        this.context = context;
    }

    /** Lists on the connection of its own, opening it on first use. */
    List<TransactionId> list() throws SQLException {
        open();
        try {
            return list(connection, io, context.sinkId());
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    /**
     * The open notices of carried writes in {@code markerTable} ({@link CarriedNotices}), read on the
     * connection of its own: within an epoch, for the same reasons as the listing.
     */
    List<CarriedNotice> openCarried(MarkerSql markerTable) throws SQLException {
        open();
        try {
            Connection c = connection;
            return io.call(
                    "reading the notices of carried writes",
                    () -> CarriedNotices.read(c, markerTable, context.sinkId()));
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    private void open() throws SQLException {
        if (connection == null) {
            Connection c = opener.open();
            c.setAutoCommit(true);
            connection = c;
            io = new IoWatchdog(SessionEnd.physical(c), networkTimeout, context + " (commit look)");
        }
    }

    /** Lists on {@code c}, bounded by {@code io}. */
    static List<TransactionId> list(Connection c, IoWatchdog io, String sinkId) throws SQLException {
        List<TransactionId> ids = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(SQL)) {
            s.setString(1, TransactionId.sinkPrefix(sinkId));
            io.call("listing prepared transactions", () -> {
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        Optional<TransactionId> id = TransactionId.parse(rs.getString(1));
                        if (id.isPresent()) {
                            ids.add(id.get());
                        } else {
                            LOG.warn(
                                    "Ignoring prepared transaction '{}': it starts like this sink's but does not "
                                            + "parse",
                                    rs.getString(1));
                        }
                    }
                }
                return null;
            });
        }
        return ids;
    }

    @Override
    public void close() {
        Connection c = connection;
        connection = null;
        io = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.debug("{}: closing the connection of the commit look failed", context, e);
            }
        }
    }
}
