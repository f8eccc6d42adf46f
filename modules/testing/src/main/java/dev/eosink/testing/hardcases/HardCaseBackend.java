/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;

/**
 * One JDBC database, and the sink that writes to it, as the whole hard-case suite ({@link HardCases})
 * sees them: the resource-neutral part ({@link ResourceBackend}: the target is a table) and what the
 * cases about connections and SQL need besides: the JDBC URL, an administrator's connection, the
 * sink's sessions on the server, a server of the test's own to crash. Each JDBC sink module's tests
 * implement it once per database they support; the suite never talks to a database any other way.
 *
 * <p>Contract for every implementation, besides {@link ResourceBackend}'s:
 *
 * <ul>
 *   <li>The sink's marker table is the default one ({@value #MARKERS}), with the columns every sink
 *       writes ({@code gid}, {@code sink_id}, {@code subtask}, {@code checkpoint_id}, {@code
 *       row_count}); the suite reads it with portable SQL through {@link #connect()}.
 *   <li>Every method that touches the database runs on a connection of its own.
 * </ul>
 */
public interface HardCaseBackend extends ResourceBackend {

    /** The marker table every sink writes by default. */
    String MARKERS = "eosink_markers";

    /**
     * The sink under test as {@code spec} says: it writes {@code (id, "row-" + id)} for each id into the
     * columns {@code (id, payload)} of {@link SinkSpec#table()}, connecting to {@link SinkSpec#jdbcUrl()}
     * if given, else to {@link #jdbcUrl()}, with {@link #connectionProperties()}. Each backend maps the
     * neutral options onto its own builder's (a network timeout is also a lock timeout for one, a
     * driver property for another).
     */
    @Override
    ExactlyOnceSink<Long> sink(SinkSpec spec);

    /** The JDBC URL the sink connects to: a test puts a {@code TcpProxy} in front of it. */
    String jdbcUrl();

    /** The sink's user and password, as its driver takes them. */
    Properties connectionProperties();

    /** A new administrator's connection to the sink's database (autocommit on); the caller closes it. */
    Connection connect() throws SQLException;

    /** Creates a target table: {@code (id, payload)}, both NOT NULL, transactional, without any key. */
    void createTable(String table);

    /** The target of a JDBC sink is a table. */
    @Override
    default void createTarget(String target) {
        createTable(target);
    }

    @Override
    default void dropTarget(String target) {
        dropTable(target);
    }

    /**
     * Drops a table made by {@link #createTable}. Gives up after 10 s rather than wait for ever on a
     * lock that a prepared transaction or a live session still holds on it.
     */
    default void dropTable(String table) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.setQueryTimeout(10);
            s.execute("DROP TABLE " + table);
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop " + table + " on " + name(), e);
        }
    }

    /** The sink's prepared transactions, as the database lists them (pg_prepared_xacts, XA RECOVER). */
    @Override
    List<TransactionId> prepared(String sinkId);

    /**
     * Leaves a prepared transaction named {@code id} holding ids {@code from..to-1} (payload "staged") and
     * its marker row, as a run that died right after it prepared would. Creates the marker table if
     * it is missing.
     */
    @Override
    void stagePrepared(String table, TransactionId id, long from, long to) throws SQLException;

    @Override
    void commitPrepared(TransactionId id) throws SQLException;

    @Override
    void rollbackPrepared(TransactionId id) throws SQLException;

    /** {@code SELECT id, count(*) ... GROUP BY id}. */
    @Override
    default Map<Long, Long> idCounts(String table) {
        Map<Long, Long> counts = new HashMap<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT id, count(*) FROM " + table + " GROUP BY id");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                counts.put(rs.getLong(1), rs.getLong(2));
            }
            return counts;
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + name() + ": the ids of " + table, e);
        }
    }

    /** {@code SELECT count(*)}: cheaper than the ids, for the waits that poll it. */
    @Override
    default long rows(String table) {
        return count("SELECT count(*) FROM " + table);
    }

    /** The marker rows of the sink. */
    @Override
    default Map<TransactionId, Long> committed(String sinkId) {
        Map<TransactionId, Long> committed = new HashMap<>();
        try (Connection c = connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT gid, row_count FROM " + MARKERS + " WHERE sink_id = ?")) {
            s.setString(1, sinkId);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    committed.put(TransactionId.parse(rs.getString(1)).orElseThrow(), rs.getLong(2));
                }
            }
            return committed;
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + name() + ": the marker rows of " + sinkId, e);
        }
    }

    /**
     * Ends the sink's sessions in {@code scope} on the server, as a network failure would; returns how
     * many. The server must show which session is which: the sinks name their sessions
     * ("eosink/&lt;sinkId&gt;/&lt;subtask&gt;/writer", "eosink-xa/&lt;sinkId&gt;/&lt;subtask&gt;/committer", ...) in
     * PostgreSQL's application_name and MariaDB's program_name (shown with performance_schema on).
     */
    int cutSessions(String sinkId, SessionScope scope);

    /** The sink's sessions open on the server (on some backends: of the sink's database user). */
    @Override
    long openSessions(String sinkId);

    /**
     * What the driver sends, in ASCII, to prepare transaction {@code id} (the first bytes the writer sends after
     * the fault before its prepare that contain it): for a {@code TcpProxy} to hold it. A driver with a binary
     * protocol names the bytes of the request (each below 128) as characters.
     */
    String prepareRequest(TransactionId id);

    /**
     * What the sink's committer sends, in ASCII, to commit {@code id}, as its driver writes it: for a
     * {@code TcpProxy} to hold that one commit back.
     */
    String commitRequest(TransactionId id);

    /**
     * How the sink names the session holding the ownership guard of {@code subtask}, both in its log
     * while it waits for the guard and in its refusal once it gave up: text that must appear in both.
     */
    @Override
    String guardHolder(String sinkId, int subtask);

    /** Starts a server of this backend's own, for a test that crashes it; the caller closes it. */
    OwnServer startOwnServer();

    /** A query that returns one number ({@code SELECT count(*) ...}), as administrator. */
    default long count(String sql, Object... params) {
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no row from: " + sql);
                }
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + name() + ": " + sql, e);
        }
    }

    /** Runs one statement as administrator. */
    default void execute(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + name() + ": " + sql, e);
        }
    }

    /** A server of the backend's own, which a test may crash (SIGKILL) and restart on the same data. */
    interface OwnServer extends AutoCloseable {

        /** A PostgreSQL of the test's own ({@link PostgresFixture#startNew}), seen through {@code backend}. */
        static OwnServer of(StandalonePostgres server, Function<StandalonePostgres, HardCaseBackend> backend) {
            return new OwnServer() {
                @Override
                public HardCaseBackend backend() {
                    return backend.apply(server);
                }

                @Override
                public void crash() {
                    server.crash();
                }

                @Override
                public void restart() {
                    server.start();
                }

                @Override
                public void stall(Duration pause) {
                    server.stall(pause);
                }

                @Override
                public void close() {
                    server.close();
                }
            };
        }

        /** The same kind of backend, connected to this server. */
        HardCaseBackend backend();

        /** Kills the server with SIGKILL, as a power loss would; returns once it is gone. */
        void crash();

        /** Freezes it (SIGSTOP) for {@code pause}, then lets it go on: it stops answering, no connection breaks. */
        void stall(Duration pause);

        /** Starts it again on the same port and data (crash recovery included); returns once it accepts connections. */
        void restart();

        /** Stops it and deletes its data. */
        @Override
        void close();
    }
}
