package dev.eosink.xa.internal;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.RemoteCommitterCommits;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer whose committer runs in another JVM hears no commit signal: within an epoch, its {@code
 * OwnCommits} asks the database, on the writer's guard connection while the epoch's branch is active,
 * whether the previous branch is still prepared. On MariaDB (the XA database the sink upserts into):
 * the epoch's upserts of keys the previous branch wrote are held while it is prepared, and run within
 * the same epoch once another session (the other JVM's committer) committed it: nothing is carried past
 * the barrier.
 */
class XaRemoteCommitterITCase {

    private static final int BATCH = 10;
    /** Upserts the second epoch gathers before it first asks: the XA upserts defer up to eight batches. */
    private static final int HELD = 100;
    private static final int MORE = 20;

    private final MariaDbFixture db = MariaDbFixture.get();

    @Test
    void heldUpsertsRunWithinTheEpochOnceTheDatabaseShowsTheOtherJvmsCommit() throws Exception {
        String sinkId = "xa-remote-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER + "'@'%'");
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        XaDatabase<long[]> database = new XaDatabase<>(XaConnector.of(db.jdbcUrl(), props),
                InsertStatement.forColumns(new SqlIdentifier(null, table), List.of("k", "v"), r -> new Object[] {r[0], r[1]}),
                null, "eosink_markers", true, BATCH, SinkSettings.DEFAULT_MAX_PREPARED_PER_SUBTASK,
                Duration.ofSeconds(30), Duration.ofSeconds(10), List.of("k"), null, null);
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 0, "remote-committer", OptionalLong.empty());
        String run = TransactionId.newRunToken(context.execution());
        TransactionId first = new TransactionId(sinkId, 0, 1, run);
        TransactionId second = new TransactionId(sinkId, 0, 2, run);
        int old = HELD + MORE;
        try (WriterSession<long[]> writer = database.openWriter(context);
                CommitSession otherJvm = database.openCommitter(context)) {
            writer.claim(0, 10_000);
            RemoteCommitterCommits remote = new RemoteCommitterCommits(writer, first);
            writer.ownCommits(remote);

            writer.begin(first);
            for (long k = 0; k < old; k++) {
                writer.write(new long[] {k, 1}, k);
            }
            writer.flush();
            writer.prepare(first, old);
            remote.prepared();

            writer.begin(second);
            long position = 0;
            for (long k = 0; k < HELD; k++) {
                writer.write(new long[] {k, 2}, position++); // keys of the prepared branch: held
            }
            assertThat(remote.looks()).as("looks while the first branch is prepared").isPositive();
            assertThat(remote.committedSeen()).isFalse();
            otherJvm.commit(first);
            for (long k = HELD; k < old; k++) {
                writer.write(new long[] {old + k, 2}, position++);
                writer.write(new long[] {k, 2}, position++);
            }
            assertThat(remote.committedSeen()).as("the commit seen within the epoch, its branch active").isTrue();
            writer.flush();
            assertThat(writer.holdsWrites()).as("nothing carried past the barrier").isFalse();
            writer.prepare(second, position);
            otherJvm.commit(second);
            assertThat(writer.listPrepared()).as("prepared branches left").isEmpty();
        }
        assertThat(values(table)).as("every key once, at its second value").hasSize(old + MORE).containsOnly(2L);
    }

    private List<Long> values(String table) throws SQLException {
        List<Long> values = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM " + table + " ORDER BY k")) {
            while (rs.next()) {
                values.add(rs.getLong(1));
            }
        }
        return values;
    }
}
