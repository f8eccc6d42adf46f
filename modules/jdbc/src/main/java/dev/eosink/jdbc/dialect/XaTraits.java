/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.PublicEvolving;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * How a database's XA transactions behave where databases differ, and the checks the XA sink makes at start. The
 * protocol, the Xid layout and the sorting of XA error codes are the same for all and live in the XA sink.
 */
@PublicEvolving
public interface XaTraits {

    /** What the marker row of a branch shows a session that asks for it ({@link #markerRow}). */
    enum MarkerRow {
        /** Committed: the row is visible. */
        COMMITTED,
        /** Written by a transaction that has not ended (a branch still prepared, listed or not). */
        HELD,
        /** Neither: no transaction wrote it, or one that did was rolled back (or its row pruned since). */
        ABSENT
    }

    /**
     * The driver whose XADataSource reaches {@code jdbcUrl}, as {@code loader} finds it; empty where the dialect
     * knows none (a job then gives its own XADataSource).
     */
    default Optional<XaDriver> driver(String jdbcUrl, ClassLoader loader) {
        return Optional.empty();
    }

    /**
     * Whether the connection that prepared a branch can begin the next one. pgjdbc returns to idle after prepare;
     * MariaDB keeps the prepared branch attached to its session and lets no other session commit it until that
     * session ends. The XA specification allows ending the connection everywhere, so false is always safe.
     */
    default boolean keepsConnectionAfterPrepare() {
        return false;
    }

    /**
     * Whether the database may answer an {@code XA COMMIT} or {@code XA ROLLBACK} from another session with success
     * and do nothing, or drop a branch that is still prepared from what {@code recover} lists. Where it may, a commit
     * or a rollback counts only once the branch's marker row shows it ({@link #markerRow}), and the dialect's
     * {@link SessionLocks#sessionAlive} must answer. False: the database's answers are the truth.
     */
    default boolean provesOutcomesByMarker() {
        return false;
    }

    /**
     * The marker row named {@code gid}, asked on {@code c} (autocommit, READ COMMITTED). This default reads it
     * without locking, so it never answers {@link MarkerRow#HELD}; a dialect that {@link #provesOutcomesByMarker}
     * tells HELD apart.
     */
    default MarkerRow markerRow(Connection c, MarkerSql markers, String gid) throws SQLException {
        return Sql.single(c, markers.existsSql(), gid) == null ? MarkerRow.ABSENT : MarkerRow.COMMITTED;
    }

    /**
     * Checks server settings the sink needs, at writer start.
     *
     * @param where the database, for messages (never credentials)
     * @param maxPreparedPerSubtask the most prepared branches one writer subtask may hold
     */
    default void checkServer(Connection c, SubtaskContext context, String where, int maxPreparedPerSubtask)
            throws SQLException, SinkException {}

    /** Checks that the target table takes part in transactions, at writer start. */
    default void checkTransactional(Connection c, SubtaskContext context, SqlIdentifier table)
            throws SQLException, SinkException {}

    /** Added to a failed XA recover: how to let the sink's user list prepared branches; empty if nothing is known. */
    default String recoverRemedy() {
        return "";
    }
}
