/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.PublicEvolving;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
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

    /**
     * The branches of the database that are prepared now: what the sink's recovery rolls back or commits, and what
     * tells a committer whether a branch is still prepared. The default is {@code resource.recover} in one scan
     * (TMSTARTRSCAN | TMENDRSCAN, without which pgjdbc and MariaDB Connector/J list nothing). A dialect whose driver
     * also lists branches that are no longer prepared (committed or rolled back from another connection) filters
     * them out, reading the database's own list on {@code plain}; a branch listed here is prepared, one missing is
     * not (or no longer).
     *
     * @param resource the XAResource of a connection outside any branch
     * @param plain a plain JDBC connection to the same database (the same XAConnection's handle will do), in any
     *     transaction state: it is only read
     */
    default List<Xid> preparedBranches(XAResource resource, Connection plain) throws XAException, SQLException {
        Xid[] xids = resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
        return xids == null ? List.of() : Arrays.asList(xids);
    }

    /**
     * Whether {@code e}, the answer to an {@code XAResource.commit} or {@code rollback}, means only that the branch
     * is not prepared any more (it was committed or rolled back before), whatever its code's name says; the outcome
     * is then the marker row's ({@link #markerRow}), as for XAER_NOTA. False (the default): the XA sink's table of
     * error codes stands. A dialect answers true only for a code and a database error it has seen answered to a
     * repeated commit and a repeated rollback alike, never for a real heuristic decision.
     */
    default boolean answersFinished(XAException e) {
        return false;
    }

    /**
     * Runs {@code work} on {@code c} so that its reads and deletes pass over the rows of prepared branches (they
     * read the committed data only) rather than fail on them; for the reads of committed data that must not fail
     * while a branch is prepared: the rewind check ({@link MarkerSql#committedAfterSql}), the prune, the admin
     * tool's listings. Never for {@link #markerRow}, where meeting such a row is the answer. The default runs {@code
     * work} as it is: a READ COMMITTED read skips uncommitted rows on PostgreSQL, MariaDB and MySQL.
     *
     * @param c a connection in autocommit, outside any branch; left as it was found
     */
    default <T> T pastPrepared(Connection c, SqlWork<T> work) throws SQLException {
        return work.run();
    }

    /**
     * The connection whose {@code abort} the XA sink's watchdog calls to end a call on {@code c} that a stalled
     * network holds up: {@code c} itself by default. A dialect whose driver's {@code abort} waits for the blocked
     * call (for a lock the call holds) returns one whose {@code abort} closes the socket at once, implementing
     * {@link dev.eosink.jdbc.io.AbortsItself}; every other method is {@code c}'s. Asked once per connection, while
     * no call runs on it.
     */
    default Connection abortable(Connection c) throws SQLException {
        return c;
    }

    /** Statements run by {@link #pastPrepared}. */
    @FunctionalInterface
    interface SqlWork<T> {
        /** Runs the statements and returns their result; a {@link SQLException} is the caller's to handle. */
        T run() throws SQLException;
    }
}
