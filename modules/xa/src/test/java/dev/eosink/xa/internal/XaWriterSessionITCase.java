package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.PostgresFixture;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.XAConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The branch lock itself, on each database: a writer that claims a subtask waits while a session of
 * an earlier writer of that subtask holds it (that session may still prepare a branch), names that
 * session and how to end it when claimWait runs out, and goes on as soon as the session ends.
 * {@code XaHardCases.aPrepareStillRunningWhenTheWriterRestartsIsWaitedForAndRolledBack} shows the
 * whole case through a job; this pins the mechanism and its message.
 */
class XaWriterSessionITCase {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"MariaDB", "PostgreSQL"})
    void aClaimWaitsWhileASessionOfAnEarlierWriterHoldsTheBranchLock(String backend) throws Exception {
        String sinkId = "writer-session-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        XaConnector connector = connector(backend, table);
        XaDatabase<Long> database = new XaDatabase<>(connector,
                InsertStatement.forColumns(new SqlIdentifier(null, table), List.of("id"), id -> new Object[] {id}),
                null, "eosink_markers", true, 10, SinkSettings.DEFAULT_MAX_PREPARED_PER_SUBTASK,
                Duration.ofSeconds(30), Duration.ofSeconds(10), null, null, null); // inserts, no dead letters
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 1, "job", OptionalLong.empty());

        // A session of an earlier writer of subtask 0 that the server has not finished with.
        XAConnection earlier = connector.open("earlier-writer");
        try {
            Connection c = earlier.getConnection();
            XaDialect dialect = XaDialect.of(c);
            assertThat(dialect.tryBranchLock(c, XaIds.sinkHash(sinkId), 0)).isTrue();
            long session = dialect.sessionId(c);

            try (WriterSession<Long> writer = database.openWriter(context)) {
                long t0 = System.nanoTime();
                assertThatThrownBy(() -> writer.claim(0, 500))
                        .isInstanceOf(SinkException.class)
                        .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                        .hasMessageContaining("earlier writer of sink id '" + sinkId + "' subtask 0 into table " + table)
                        .hasMessageContaining(dialect.name() + " session " + session + ")")
                        .hasMessageContaining("XA PREPARE")
                        .hasMessageContaining("Remedy")
                        .hasMessageContaining(dialect.endSessionSql(session))
                        .hasMessageContaining("claimWait");
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
            }

            try (WriterSession<Long> writer = database.openWriter(context)) {
                AtomicLong closing = new AtomicLong(Long.MAX_VALUE);
                CompletableFuture<Void> ended = CompletableFuture.runAsync(() -> {
                    try {
                        Thread.sleep(700);
                        closing.set(System.nanoTime());
                        earlier.close();
                    } catch (InterruptedException | SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                long t0 = System.nanoTime();
                writer.claim(0, 10_000);
                long claimed = System.nanoTime();
                ended.get(10, TimeUnit.SECONDS);
                // By order, not by a duration: the claim returned only once the earlier session was ending.
                assertThat(claimed).as("the claim waited for the earlier session's end").isGreaterThan(closing.get());
                assertThat(Duration.ofNanos(claimed - t0)).as("the claim's wait").isLessThan(Duration.ofSeconds(8));

                // The claim let the branch lock go: this writer's own epoch connection takes it.
                TransactionId id = new TransactionId(sinkId, 0, 1, "aaaaaaaa");
                writer.begin(id);
                writer.write(7L, 0);
                writer.prepare(id, 1);
                assertThat(writer.listPrepared()).containsExactly(id);
                rollBackOnceDetached(writer, id);
                assertThat(writer.listPrepared()).isEmpty();
            }
        } finally {
            earlier.close();
        }
    }

    /**
     * MariaDB lets another session roll a prepared branch back only once the session that prepared it
     * has ended on the server; the epoch connection closed at PREPARE, but the server may not have
     * finished with it yet. The sink then fails the task and the restarted one tries again; this does
     * the same, a few times, and requires the refusal to be that one.
     */
    private static void rollBackOnceDetached(WriterSession<Long> writer, TransactionId id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                writer.rollbackPrepared(id);
                return;
            } catch (SinkException e) {
                assertThat(e).hasMessageContaining("the session that prepared it has not ended");
                assertThat(System.nanoTime()).as("the branch becomes free within 10 s").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    private static XaConnector connector(String backend, String table) throws SQLException {
        Properties props = new Properties();
        if (backend.equals("MariaDB")) {
            MariaDbFixture maria = MariaDbFixture.get();
            maria.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL) ENGINE=InnoDB");
            props.setProperty("user", MariaDbFixture.SINK_USER);
            props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
            return XaConnector.of(maria.jdbcUrl(), props);
        }
        PostgresFixture pg = PostgresFixture.get();
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id bigint NOT NULL)");
        }
        props.setProperty("user", pg.user());
        if (!pg.password().isEmpty()) {
            props.setProperty("password", pg.password());
        }
        return XaConnector.of(pg.jdbcUrl(), props);
    }
}
