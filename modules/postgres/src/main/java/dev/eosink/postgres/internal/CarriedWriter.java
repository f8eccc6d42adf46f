/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.jdbc.sql.MarkerTable;

import org.apache.flink.runtime.execution.SuppressRestartsException;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link PostgresWriterSession} writes on its connection for writes carried past a barrier: the
 * notices of the writes its path carries ({@link CarriedNotices}), with the transaction that carries them
 * and removed by the one that writes them; the statements a restored state carried, in a transaction of
 * their own ({@link #apply}); and the removal of a restored subtask's notices once its writes are given up
 * or written ({@link #close}).
 *
 * <p>Invariant: a notice is removed in the very transaction that writes what it announces (a later epoch
 * of this session, or {@link #apply} for what a restored state carried), so that both commit together, or
 * else only when those writes are given up ({@link #close}). Every statement runs outside an epoch's
 * transaction, but the notices written and removed with a prepare, as the session checks ({@link
 * BetweenEpochs}).
 */
final class CarriedWriter {

    /** See {@link #apply}. */
    static final long CARRIED_LOCK_TIMEOUT_MILLIS = 10_000;

    /** The session's check that no epoch's transaction is open, which readies the connection for a statement. */
    @FunctionalInterface
    interface BetweenEpochs {
        void enter(String what) throws SQLException;
    }

    private final SubtaskContext context;
    private final MarkerTable markers;
    private final MarkerSql markerSql;
    private final Connection connection;
    private final IoWatchdog io;
    private final WritePath<?> path;
    /** The table and how the sink writes it, for messages. */
    private final String target;

    private final BetweenEpochs betweenEpochs;

    /**
     * The transactions of this session that recorded writes carried past their barriers ({@link CarriedNotices})
     * that no later one has written yet: the transaction that writes them removes their notices.
     */
    private final List<TransactionId> noticed = new ArrayList<>();

    /**
     * @param options the sink's marker table, and its table and statement for messages
     * @param on the session's connection, with the IO watchdog that bounds every statement on it
     * @param path the session's write path, which holds and writes the carried statements
     */
    CarriedWriter(
            SubtaskContext context,
            PostgresSinkOptions<?> options,
            WatchedConnection on,
            WritePath<?> path,
            BetweenEpochs betweenEpochs) {
        this.context = context;
        this.markers = options.markers();
        this.markerSql = PostgresDialect.INSTANCE.markers(markers.table());
        this.connection = on.connection();
        this.io = on.io();
        this.path = path;
        this.target = options.target().describe();
        this.betweenEpochs = betweenEpochs;
    }

    /**
     * In the transaction about to be prepared as {@code id}, after its marker row: the notice of the writes
     * its path carries past the barrier, if it carries any; else the removal of the notices of the earlier
     * transactions whose writes this one wrote.
     *
     * @param marker the marker row's INSERT, which writes notice rows too
     */
    void beforePrepare(TransactionId id, PreparedStatement marker) throws SQLException {
        int held = path.heldWrites();
        if (held > 0) {
            io.call("writing the notice of carried writes", () -> {
                CarriedNotices.insert(marker, id, held);
                return null;
            });
            noticed.add(id);
        } else if (!noticed.isEmpty()) {
            // This epoch wrote what earlier ones carried: their transactions committed before it could.
            io.call(
                    "removing the notices of carried writes",
                    () -> CarriedNotices.delete(connection, markerSql, noticed));
            noticed.clear();
        }
    }

    /**
     * Writes carried statements in a transaction of their own, committed at once. With a lock
     * timeout of {@link #CARRIED_LOCK_TIMEOUT_MILLIS}: after a rescale, the subtask that owns one of
     * their keys now may have written it already, in an epoch that commits only with a checkpoint,
     * and no checkpoint begins before this writer has started; waiting longer would not help. Then
     * nothing of them is committed, and the task fails over and tries again.
     */
    void apply(byte[] carried, int subtask, String origin) throws IOException {
        try {
            betweenEpochs.enter("writing carried statements");
            connection.setAutoCommit(false);
            try (Statement s = connection.createStatement()) {
                s.execute("SET LOCAL lock_timeout = '" + CARRIED_LOCK_TIMEOUT_MILLIS + "ms'");
            }
            path.writeCarried(carried);
            io.call(
                    "removing the notices of carried writes",
                    () -> CarriedNotices.delete(connection, markerSql, context.sinkId(), subtask));
            io.call("committing carried statements", () -> {
                connection.commit();
                return null;
            });
        } catch (SQLException | IOException e) {
            try {
                connection.rollback();
            } catch (SQLException r) {
                e.addSuppressed(r);
            }
            String failed = origin + ": writing the upserts and deletes that it carried past its barrier into " + target
                    + " failed: " + e.getMessage();
            if (e instanceof CarriedStatementsRefused) {
                // A restart would read the same state again.
                throw new SuppressRestartsException(new SinkException(failed + ". Nothing of them is committed", e));
            }
            boolean locked = e instanceof SQLException q && "55P03".equals(q.getSQLState());
            throw new SinkException(
                    failed
                            + (locked
                                    ? " (another session holds a row of one of their keys: after a rescale, the subtask that "
                                            + "owns that key now may have written it first. The task fails over and tries again; "
                                            + "nothing of these writes is committed)"
                                    : ""),
                    e);
        }
    }

    /** Removes the notices of the writes subtask {@code subtask} carried, between epochs: they are given up. */
    void close(int subtask) throws IOException {
        try {
            betweenEpochs.enter("removing the notices of carried writes");
            io.call(
                    "removing the notices of carried writes",
                    () -> CarriedNotices.delete(connection, markerSql, context.sinkId(), subtask));
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not remove the notices of writes subtask " + subtask
                            + " carried past a barrier from marker table " + markers.table() + ": " + e.getMessage(),
                    e);
        }
    }
}
