/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.copy.BinaryCopyEncoder;
import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link CopyBacklog} on a real server that is slower than the writer: a row trigger sleeps now and
 * then, so that, as under load, the rows the server has not read pile up in its socket. The backlog
 * (bytes sent minus the server's own {@code bytes_processed}) is observed from a third connection
 * while the writer streams, and compared in bytes, not in time: without flow control it grows to
 * megabytes, with it it stays near its bound. The other tests pin what flow control must never do:
 * wait for ever on a COPY that cannot progress, or fail the writer when its monitor cannot connect.
 */
class CopyBacklogITCase {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CopyBacklogITCase.class);

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /** 1 KiB per row, and a 2 ms sleep every 20 rows: the server reads about 10 MB/s. */
    private static final String PAYLOAD = "x".repeat(1024);

    private static final long BOUND = 256 * 1024;
    /**
     * The most a backlog may be seen at with flow control: the bound, one send the writer makes before
     * it looks, and the server's 64 KiB read buffer (bytes_processed counts what it read into that
     * buffer, not what it stored).
     */
    private static final long MOST_SEEN = BOUND + CopyStream.SEND_BYTES + 4096 + 64 * 1024;
    /**
     * The writer's patience with a server that makes no progress, in the tests that measure the bound: on a
     * busy machine the server's backend may get no CPU for longer than {@link CopyBacklog#STALL_NANOS}, after
     * which the writer rightly stops waiting and lets the socket's buffer (megabytes on loopback) fill; what
     * those tests prove is the bound while the server reads.
     */
    private static final long BOUND_ON_A_BUSY_MACHINE = Duration.ofSeconds(30).toNanos();

    private final PostgresFixture db = PostgresFixture.get();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String table;

    @BeforeEach
    void createSlowTable() {
        table = "copy_backlog_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        db.execute("CREATE TABLE " + table + " (id bigint PRIMARY KEY, payload text NOT NULL)");
        db.execute("CREATE FUNCTION " + table + "_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                + "IF NEW.id % 20 = 0 THEN PERFORM pg_sleep(0.002); END IF; RETURN NEW; END $$");
        db.execute("CREATE TRIGGER slow BEFORE INSERT ON " + table + " FOR EACH ROW EXECUTE FUNCTION " + table
                + "_slow()");
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        db.execute("DROP TABLE IF EXISTS " + table);
        db.execute("DROP FUNCTION IF EXISTS " + table + "_slow()");
    }

    private Connection connect() throws SQLException {
        Connection c = db.connect();
        toClose.add(c);
        return c;
    }

    /** A COPY writer of the table on its own connection (autocommit off, as the writer session leaves it). */
    private final class Writer {
        final Connection connection;
        final CopyBacklog backlog;
        final CopyStream<Object[]> copy;
        /** The largest value of the writer's copyBacklogBytes gauge ({@link CopyBacklog#unconfirmed()}) seen. */
        long largestUnconfirmed;

        Writer(CopyBacklog.Opener monitor, long bound, Duration networkTimeout) throws SQLException {
            this(connect(), monitor, bound, networkTimeout, CopyBacklog.STALL_NANOS);
        }

        /**
         * {@code stallNanos}: how long the server may make no progress before the writer stops waiting for it
         * and lets the socket block instead, sending past the bound (see {@link CopyBacklog}).
         */
        Writer(Connection connection, CopyBacklog.Opener monitor, long bound, Duration networkTimeout, long stallNanos)
                throws SQLException {
            this.connection = connection;
            connection.setAutoCommit(false);
            backlog = new CopyBacklog(monitor, bound, "CopyBacklogITCase " + table, stallNanos);
            toClose.add(backlog::close);
            IoWatchdog io = new IoWatchdog(connection, networkTimeout, "CopyBacklogITCase " + table);
            List<String> columns = List.of("id", "payload");
            BinaryCopyEncoder encoder =
                    BinaryCopyEncoder.forTypes(columns, List.of("int8", "text")).orElseThrow();
            copy = new CopyStream<>(
                    new WatchedConnection(connection, io, backlog),
                    new SqlIdentifier(null, table),
                    columns,
                    MappedRows.encoder(Optional.of(encoder), List.of("int8", "text")),
                    1000);
        }

        int pid() throws SQLException {
            return connection.unwrap(org.postgresql.PGConnection.class).getBackendPID();
        }
    }

    /**
     * Streams {@code rows} rows and returns the largest backlog seen by an observer connection, sampled
     * every 16 rows: bytes handed to the driver minus the server's bytes_processed.
     */
    private long streamAndObserve(Writer w, int rows) throws Exception {
        Connection observer = connect();
        long max = 0;
        try (PreparedStatement progress =
                observer.prepareStatement("SELECT bytes_processed FROM pg_stat_progress_copy WHERE pid = ?")) {
            progress.setInt(1, w.pid());
            w.copy.start();
            long sent = 0;
            for (int id = 0; id < rows; id++) {
                w.copy.add(new Object[] {(long) id, PAYLOAD});
                if (id % 16 == 15) {
                    sent = w.copy.bytesSent();
                    w.largestUnconfirmed = Math.max(w.largestUnconfirmed, w.backlog.unconfirmed());
                    try (ResultSet rs = progress.executeQuery()) {
                        assertThat(rs.next())
                                .as("the COPY shows in pg_stat_progress_copy")
                                .isTrue();
                        max = Math.max(max, sent - rs.getLong(1));
                    }
                }
            }
            assertThat(w.copy.end()).isEqualTo(rows);
            assertThat(w.backlog.unconfirmed())
                    .as("nothing in flight once the COPY ended")
                    .isZero();
            w.connection.commit();
        }
        assertThat(db.count("SELECT count(*) FROM " + table)).isEqualTo(rows);
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + table)).isEqualTo(rows);
        LOG.info(
                "{}: largest backlog seen {} KiB ({})",
                table,
                max / 1024,
                w.backlog.isOn() ? "flow control on, bound " + BOUND / 1024 + " KiB" : "flow control off");
        return max;
    }

    @Test
    @Timeout(120)
    void keepsWhatTheServerHasNotReadNearTheBound() throws Exception {
        Writer w = new Writer(connect(), this::connect, BOUND, Duration.ofSeconds(60), BOUND_ON_A_BUSY_MACHINE);

        long max = streamAndObserve(w, 8_000);

        assertThat(max).isLessThanOrEqualTo(MOST_SEEN);
        assertThat(w.largestUnconfirmed)
                .as("the copyBacklogBytes gauge: sent, minus what the server last confirmed")
                .isPositive()
                .isLessThanOrEqualTo(MOST_SEEN);
        assertThat(w.backlog.epochStats())
                .as("the writer waited for the server")
                .doesNotContain("no waits");
        assertThat(w.backlog.isOn()).isTrue();
    }

    /** The control: the same stream without flow control piles up far more, so the test above measures something. */
    @Test
    @Timeout(120)
    void withoutFlowControlTheBacklogGrowsToMegabytes() throws Exception {
        Writer w = new Writer(
                () -> {
                    throw new AssertionError("flow control is off: no monitor connection");
                },
                0,
                Duration.ofSeconds(60));

        long max = streamAndObserve(w, 8_000);

        assertThat(max).isGreaterThan(4 * BOUND);
        assertThat(w.largestUnconfirmed)
                .as("the gauge knows nothing without flow control")
                .isZero();
    }

    /**
     * A COPY that waits for a row lock makes no progress: flow control must stop waiting, so that
     * the writer blocks in the socket, where the network timeout ends it, and never loops for ever.
     */
    @Test
    @Timeout(120)
    void aCopyThatCannotProgressEndsInTheNetworkTimeout() throws Exception {
        Connection other = connect();
        other.setAutoCommit(false);
        try (Statement s = other.createStatement()) {
            s.execute("INSERT INTO " + table + " VALUES (0, 'held by another transaction')");
        }
        Writer w = new Writer(this::connect, BOUND, Duration.ofSeconds(2));
        w.copy.start();

        assertThatThrownBy(() -> {
                    for (int id = 0; id < 1_000_000; id++) { // up to 1 GB: far more than any socket buffers
                        w.copy.add(new Object[] {(long) id, PAYLOAD});
                    }
                })
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("did not complete within the network timeout");
        assertThat(w.backlog.epochStats())
                .as("flow control waited, then let the socket block")
                .doesNotContain("no waits");
        other.rollback();
    }

    /**
     * Flink cancels a task by interrupting its thread. A writer waiting for the server to catch up
     * ends as a write blocked in the socket does (the watchdog aborts that one): its connection is
     * aborted at once, so the cancelled task's cleanup never waits on the COPY for the network timeout
     * (Flink may clear the interrupt before it cleans up). NetworkFaultsITCase covers the whole path.
     */
    @Test
    @Timeout(120)
    void aWriterInterruptedWhileWaitingAbortsItsConnection() throws Exception {
        Writer w = new Writer(this::connect, BOUND, Duration.ofSeconds(100));
        w.copy.start();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = new Thread(
                () -> {
                    try {
                        for (int id = 0; id < 1_000_000; id++) {
                            w.copy.add(new Object[] {(long) id, PAYLOAD});
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                },
                "interrupted-writer");
        writer.start();
        // Interrupted while it waits for the slow server, not after some time: a writer caught sending
        // instead ends as a write blocked in the socket does, with that call's message.
        awaitWaitingForTheServer(writer);
        writer.interrupt();
        writer.join(30_000);

        assertThat(writer.isAlive()).as("the writer ended").isFalse();
        assertThat(failure.get())
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("waiting for the server to read the COPY data was interrupted (the task is being "
                        + "cancelled), so the sink aborted the connection");
        assertThat(((SQLException) failure.get()).getSQLState()).isEqualTo("08006");
        assertThat(w.connection.isClosed()).isTrue();
        assertThat(db.count("SELECT count(*) FROM " + table))
                .as("nothing of the aborted COPY is visible")
                .isZero();
    }

    /** Waits until {@code writer} is in the flow control's wait for the server (its sleep between readings). */
    private static void awaitWaitingForTheServer(Thread writer) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (writer.getState() != Thread.State.TIMED_WAITING
                || Arrays.stream(writer.getStackTrace())
                        .noneMatch(f -> f.getClassName().equals(CopyBacklog.class.getName())
                                && f.getMethodName().equals("throttle"))) {
            if (System.nanoTime() > deadline || !writer.isAlive()) {
                throw new AssertionError(
                        "the writer never waited for the server: " + Arrays.toString(writer.getStackTrace()));
            }
            Thread.sleep(1);
        }
    }

    /** A monitor that cannot connect turns flow control off; every row is still written. */
    @Test
    @Timeout(120)
    void aMonitorThatCannotConnectTurnsFlowControlOff() throws Exception {
        Writer w = new Writer(
                () -> {
                    throw new SQLException("connection refused (as the test wants)", "08001");
                },
                BOUND,
                Duration.ofSeconds(60));

        streamAndObserve(w, 2_000);

        assertThat(w.backlog.isOn()).isFalse();
    }

    /**
     * The sink's role needs no grant to read its own COPY's progress (pg_stat_progress_copy shows a
     * role's own sessions): flow control works for the least-privileged role of sql/02-sink-role.sql.
     */
    @Test
    @Timeout(120)
    void aRoleWithOnlyInsertReadsItsOwnProgress() throws Exception {
        String role = table + "_sink";
        String password = "pw-" + Long.toHexString(System.nanoTime());
        db.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
        try {
            db.execute("GRANT INSERT ON " + table + " TO " + role);
            CopyBacklog.Opener asRole = () -> {
                Connection c = java.sql.DriverManager.getConnection(db.jdbcUrl(), role, password);
                toClose.add(c);
                return c;
            };
            Writer w = new Writer(asRole.open(), asRole, BOUND, Duration.ofSeconds(60), BOUND_ON_A_BUSY_MACHINE);

            long max = streamAndObserve(w, 8_000);

            assertThat(w.backlog.isOn()).as("the role read its own progress").isTrue();
            assertThat(max).isLessThanOrEqualTo(MOST_SEEN);
        } finally {
            for (AutoCloseable c : toClose) {
                c.close();
            }
            toClose.clear();
            db.execute("DROP OWNED BY " + role);
            db.execute("DROP ROLE " + role);
        }
    }

    /** The monitor's connection is closed with the writer's session, which closes its backlog. */
    @Test
    @Timeout(120)
    void closeClosesTheMonitorConnection() throws Exception {
        List<Connection> opened = new ArrayList<>();
        Writer w = new Writer(
                () -> {
                    Connection c = connect();
                    opened.add(c);
                    return c;
                },
                BOUND,
                Duration.ofSeconds(60));
        streamAndObserve(w, 2_000);
        assertThat(opened).hasSize(1);

        w.backlog.close(); // what the writer session's close() calls

        assertThat(opened.get(0).isClosed()).isTrue();
    }
}
