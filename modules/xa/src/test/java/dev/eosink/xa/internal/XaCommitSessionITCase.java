package dev.eosink.xa.internal;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession.Attempt;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;

import org.junit.jupiter.api.Test;

import javax.sql.XAConnection;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The committer's invariant on MariaDB, where it matters: XAER_NOTA for a branch that is still prepared
 * (attached to the live session that prepared it) is retried, never resolved by the marker, which would
 * call a committable branch LOST.
 */
class XaCommitSessionITCase {

    @Test
    void notaForABranchStillAttachedToItsPreparerIsRetriedNotResolved() throws Exception {
        MariaDbFixture maria = MariaDbFixture.get();
        String sinkId = "commit-session-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        maria.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL) ENGINE=InnoDB");
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        XaConnector connector = XaConnector.of(maria.jdbcUrl(), props);
        XaDatabase<Long> database = new XaDatabase<>(connector,
                InsertStatement.forColumns(new SqlIdentifier(null, table), List.of("id"), id -> new Object[] {id}),
                null, "eosink_markers", true, 10, SinkSettings.DEFAULT_MAX_PREPARED_PER_SUBTASK,
                Duration.ofSeconds(120), Duration.ofSeconds(60), null, null, null); // inserts, no dead letters
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 0, "job", OptionalLong.empty());
        TransactionId id = new TransactionId(sinkId, 0, 1, "aaaaaaaa");
        Xid xid = XaIds.toXid(id);

        XAConnection preparer = connector.open("test");
        try (XaCommitSession committer = new XaCommitSession(context, database)) {
            XAResource xa = preparer.getXAResource();
            xa.start(xid, XAResource.TMNOFLAGS);
            try (Statement s = preparer.getConnection().createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
            }
            xa.end(xid, XAResource.TMSUCCESS);
            xa.prepare(xid);

            assertThatThrownBy(() -> committer.commit(id))
                    .isInstanceOf(RetriableCommitException.class)
                    .hasMessageContaining("still prepared");
            preparer.close();
            assertThat(commitOnceTheServerHasDetached(committer, id)).isEqualTo(Attempt.COMMITTED);
            assertThat(committer.commit(id)).isEqualTo(Attempt.NOT_FOUND);
        } finally {
            preparer.close();
        }
        assertThat(maria.count("SELECT count(*) FROM " + table)).isEqualTo(1);
    }

    /**
     * The server detaches a closed session's prepared branch on its own time, not within the client's
     * close(): until it has, the commit is retried exactly as Flink would retry it.
     */
    private static Attempt commitOnceTheServerHasDetached(XaCommitSession committer, TransactionId id)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return committer.commit(id);
            } catch (RetriableCommitException stillAttached) {
                if (System.nanoTime() > deadline) {
                    throw stillAttached;
                }
                Thread.sleep(50);
            }
        }
    }
}
