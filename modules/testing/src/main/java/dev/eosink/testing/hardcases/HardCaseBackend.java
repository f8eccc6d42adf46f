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
import java.util.List;
import java.util.Properties;
import java.util.function.Function;

/**
 * One database, and the sink that writes to it, as the hard-case suite ({@link HardCases}) sees them:
 * how to build the sink, what the database shows of the sink's transactions, and what an operator or
 * a failure can do to them. Each sink module's tests implement it once per database they support;
 * the suite never talks to a database any other way.
 *
 * <p>Contract for every implementation:
 *
 * <ul>
 *   <li>Prepared transactions are named by the sink's {@link TransactionId}, whatever the database
 *       calls them (a gid, an XA branch): {@link #prepared} returns exactly the sink's own, parsed,
 *       and never another sink's.
 *   <li>The sink's marker table is the default one, with the columns every sink writes ({@code gid},
 *       {@code sink_id}, {@code subtask}, {@code checkpoint_id}, {@code row_count}); the suite reads it
 *       with portable SQL through {@link #connect()}.
 *   <li>Every method that touches the database runs on a connection of its own, and may be called
 *       from a Flink task (a fault's action) as well as from the test.
 * </ul>
 */
public interface HardCaseBackend {

    /** How the backend shows in assertion messages: "PostgreSQL", "MariaDB (XA)". */
    String name();

    /**
     * The sink under test as {@code spec} says: it writes {@code (id, "row-" + id)} for each id into the
     * columns {@code (id, payload)} of {@link SinkSpec#table()}, connecting to {@link SinkSpec#jdbcUrl()}
     * if given, else to {@link #jdbcUrl()}, with {@link #connectionProperties()}. Each backend maps the
     * neutral options onto its own builder's (a network timeout is also a lock timeout for one, a
     * driver property for another).
     */
    ExactlyOnceSink<Long> sink(SinkSpec spec);

    /** The JDBC URL the sink connects to: a test puts a {@code TcpProxy} in front of it. */
    String jdbcUrl();

    /** The sink's user and password, as its driver takes them. */
    Properties connectionProperties();

    /** A new administrator's connection to the sink's database (autocommit on); the caller closes it. */
    Connection connect() throws SQLException;

    /** Creates a target table: {@code (id, payload)}, both NOT NULL, transactional, without any key. */
    void createTable(String table);

    /**
     * Drops a table made by {@link #createTable}. Gives up after 10 s rather than wait for ever on a
     * lock that a prepared transaction or a live session still holds on it.
     */
    default void dropTable(String table) {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.setQueryTimeout(10);
            s.execute("DROP TABLE " + table);
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop " + table + " on " + name(), e);
        }
    }

    /** The sink's prepared transactions, as the database lists them (pg_prepared_xacts, XA RECOVER). */
    List<TransactionId> prepared(String sinkId);

    /**
     * Leaves a prepared transaction named {@code id} holding ids {@code from..to-1} (payload "staged") and
     * its marker row, as a run that died right after it prepared would. Creates the marker table if
     * it is missing.
     */
    void stagePrepared(String table, TransactionId id, long from, long to) throws SQLException;

    /** Commits one prepared transaction by hand, as an operator might. */
    void commitPrepared(TransactionId id) throws SQLException;

    /** Rolls back one prepared transaction by hand, as an operator might. */
    void rollbackPrepared(TransactionId id) throws SQLException;

    /** Rolls back every prepared transaction of the sink: cleanup after a test, whatever happened. */
    default void rollbackAllPrepared(String sinkId) {
        for (TransactionId id : prepared(sinkId)) {
            try {
                rollbackPrepared(id);
            } catch (SQLException finishedMeanwhile) {
                // committed or rolled back by the job since it was listed: nothing left to clean
            }
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
    long openSessions(String sinkId);

    /** What the driver sends, in ASCII, to prepare a transaction: for a {@code TcpProxy} to hold it. */
    String prepareRequest();

    /**
     * How the sink names the session holding the ownership guard of {@code subtask}, both in its log
     * while it waits for the guard and in its refusal once it gave up: text that must appear in both.
     */
    String guardHolder(String sinkId, int subtask);

    /** Starts a server of this backend's own, for a test that crashes it; the caller closes it. */
    OwnServer startOwnServer();

    /** A query that returns one number ({@code SELECT count(*) ...}), as administrator. */
    default long count(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
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
        try (Connection c = connect(); Statement s = c.createStatement()) {
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
                public void close() {
                    server.close();
                }
            };
        }

        /** The same kind of backend, connected to this server. */
        HardCaseBackend backend();

        /** Kills the server with SIGKILL, as a power loss would; returns once it is gone. */
        void crash();

        /** Starts it again on the same port and data (crash recovery included); returns once it accepts connections. */
        void restart();

        /** Stops it and deletes its data. */
        @Override
        void close();
    }
}
