package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.FaultInjectingDatabase;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every hard case stands on: the test's backend, its sink id and table (fresh for each test),
 * the sink under test, and what the database shows, asked with portable SQL or through the backend.
 * {@link HardCases} implements the three accessors; the case groups use the rest.
 */
public interface HardCaseSupport {

    /** The marker table every sink writes by default. */
    String MARKERS = "eosink_markers";

    HardCaseBackend backend();

    /** This test's sink id: unique, short enough for every database's session names. */
    String sinkId();

    /** This test's target table: {@code (id, payload)}, empty at the start. */
    String table();

    // ---------------------------------------------------------------- the sink

    /** The suite's options for this test's sink and table. */
    default SinkSpec spec() {
        return SinkSpec.of(sinkId(), table());
    }

    /** This test's sink, traced ({@link ProtocolTrace}) and with faults injectable at every point. */
    default ExactlyOnceSink<Long> sink() {
        return sink(spec());
    }

    /** A sink as {@code spec} says, traced and with faults injectable at every point. */
    default ExactlyOnceSink<Long> sink(SinkSpec spec) {
        return sink(backend(), spec);
    }

    /** A sink of {@code backend} (another server of the test's own) as {@code spec} says, traced and with faults. */
    default ExactlyOnceSink<Long> sink(HardCaseBackend backend, SinkSpec spec) {
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(backend.sink(spec)));
    }

    /**
     * Source, rebalance, sink (uid "eosink"): the one topology of the tests that restore, so that any
     * run can restore any other run's savepoint at any parallelism.
     */
    default void pipeline(StreamExecutionEnvironment env, long offset, long n, double perSecond) {
        TestJobs.rebalancedIds(env, offset, n, perSecond).sinkTo(sink()).uid("eosink").name("eosink");
    }

    default void pipeline(StreamExecutionEnvironment env, long n, double perSecond) {
        pipeline(env, 0, n, perSecond);
    }

    /**
     * Source, rebalance, [a stateful map chained to the sink,] the given sink under the given uid: for
     * runs that change the sink (its uid, its options) while the sources keep theirs.
     */
    default void pipeline(StreamExecutionEnvironment env, long n, double perSecond, ExactlyOnceSink<Long> sink,
            String sinkUid, boolean statefulMap) {
        DataStream<Long> in = TestJobs.rebalancedIds(env, 0, n, perSecond);
        if (statefulMap) {
            in = in.map(new TestJobs.CountingMap()).uid("counting");
        }
        in.sinkTo(sink).uid(sinkUid).name("eosink");
    }

    // ---------------------------------------------------------------- what the database shows

    default long rows() {
        return backend().count("SELECT count(*) FROM " + table());
    }

    default long distinctRows() {
        return backend().count("SELECT count(DISTINCT id) FROM " + table());
    }

    /** id -> how many rows have it. */
    default Map<Long, Long> idCounts() {
        Map<Long, Long> counts = new HashMap<>();
        query("SELECT id, count(*) FROM " + table() + " GROUP BY id", rs -> counts.put(rs.getLong(1), rs.getLong(2)));
        return counts;
    }

    /** The names of this sink's prepared transactions, sorted. */
    default List<String> preparedLeft() {
        return prepared().stream().map(TransactionId::toString).sorted().collect(Collectors.toList());
    }

    default List<TransactionId> prepared() {
        return backend().prepared(sinkId());
    }

    /** Marker rows of transaction {@code gid}: 1 once it committed, else 0. */
    default long markers(String gid) {
        return backend().count("SELECT count(*) FROM " + MARKERS + " WHERE gid = ?", gid);
    }

    /** The names of the transactions of this sink that committed, by their marker rows. */
    default Set<String> markedGids() {
        Set<String> gids = new HashSet<>();
        query("SELECT gid FROM " + MARKERS + " WHERE sink_id = ?", rs -> gids.add(rs.getString(1)), sinkId());
        return gids;
    }

    /** The rows this sink's committed transactions wrote, by their marker rows. */
    default long markedRows() {
        return backend().count("SELECT coalesce(sum(row_count), 0) FROM " + MARKERS + " WHERE sink_id = ?", sinkId());
    }

    /** What {@link CheckpointDecliner} observes of this test's sink and table. */
    default CheckpointDecliner.DatabaseView databaseView() {
        return new CheckpointDecliner.DatabaseView() {
            @Override
            public List<String> prepared() {
                return preparedLeft();
            }

            @Override
            public long markers(String gid) {
                return HardCaseSupport.this.markers(gid);
            }

            @Override
            public long rowsBetween(long minId, long maxId) {
                return backend().count("SELECT count(*) FROM " + table() + " WHERE id BETWEEN ? AND ?", minId, maxId);
            }

            @Override
            public long rows() {
                return HardCaseSupport.this.rows();
            }
        };
    }

    /** Reads every row {@code sql} returns, as administrator. */
    default void query(String sql, RowReader reader, Object... params) {
        try (Connection c = backend().connect(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + backend().name() + ": " + sql, e);
        }
    }

    /** Reads one row of a result. */
    @FunctionalInterface
    interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    // ---------------------------------------------------------------- waiting for the job

    /** Waits until {@code writers} writer subtasks hold rows in their open transaction. */
    default void awaitOpenTransactions(int writers) throws InterruptedException {
        await(() -> ProtocolTrace.writersWithOpenRows(sinkId()) >= writers,
                writers + " writers of " + sinkId() + " with an open transaction");
    }

    /** Waits until {@code count} transactions named after checkpoint {@code checkpointId} are prepared. */
    default void awaitPrepared(long checkpointId, int count) throws InterruptedException {
        await(() -> prepared().stream().filter(id -> id.checkpointId() == checkpointId).count() >= count,
                count + " prepared transactions of checkpoint " + checkpointId);
    }

    /** Waits until the server shows no session of this sink: after a cancel, every writer has gone. */
    default void awaitSessionsClosed() throws InterruptedException {
        await(() -> backend().openSessions(sinkId()) == 0, "the sessions of " + sinkId() + " to close");
    }

    /** Waits until the table shows at least {@code n} committed rows. */
    default void awaitRows(long n) throws InterruptedException {
        await(() -> rows() >= n, n + " rows in " + table());
    }

    // ---------------------------------------------------------------- the verdict

    /**
     * The end of every exactly-once case: exactly ids 0..n-1 in the table, each once (no duplicate,
     * none missing), and no prepared transaction of the sink left in the database.
     */
    default void assertExactlyOnce(long n) {
        assertExactlyOnce(backend(), n);
    }

    /** {@link #assertExactlyOnce(long)} on {@code db}: another server of the test's own. */
    default void assertExactlyOnce(HardCaseBackend db, long n) {
        long rows = db.count("SELECT count(*) FROM " + table());
        long distinct = db.count("SELECT count(DISTINCT id) FROM " + table());
        long inRange = db.count("SELECT count(DISTINCT id) FROM " + table() + " WHERE id >= 0 AND id < ?", n);
        assertThat(db.prepared(sinkId())).as("prepared transactions of sink %s left on %s", sinkId(), db.name()).isEmpty();
        assertThat(rows - distinct).as("duplicate rows in %s on %s", table(), db.name()).isZero();
        assertThat(n - inRange).as("missing ids in %s on %s", table(), db.name()).isZero();
        assertThat(rows).as("rows in %s on %s", table(), db.name()).isEqualTo(n);
    }

    /**
     * The end of a rewind to a snapshot S: every id S accounts for ({@code beforeS}) once, every later id
     * twice (once from the first run, once from the replay), none missing, none more than twice, and
     * no prepared transaction left.
     */
    default void assertOnceBeforeTwiceAfter(long n, Set<Long> beforeS) {
        assertThat(preparedLeft()).as("prepared transactions of sink %s left on %s", sinkId(), backend().name()).isEmpty();
        Map<Long, Long> expected = new HashMap<>();
        for (long id = 0; id < n; id++) {
            expected.put(id, beforeS.contains(id) ? 1L : 2L);
        }
        Map<Long, Long> actual = idCounts();
        assertThat(actual.values()).as("no id more than twice").allMatch(count -> count <= 2);
        assertThat(actual.keySet()).as("ids present").isEqualTo(expected.keySet());
        assertThat(rows()).isEqualTo(n + (n - beforeS.size()));
        assertThat(actual).as("before the snapshot once, after it twice").isEqualTo(expected);
    }

    /**
     * The ids of this sink's committed transactions named after a checkpoint up to {@code checkpointId}:
     * what a snapshot with that id accounts for. A writer names a transaction with the last checkpoint
     * it snapshotted + 1, and every writer snapshots every checkpoint (a savepoint too): a transaction
     * prepared after the snapshot's barrier carries a larger number, one prepared at or before it a
     * number up to it. The ids come from the trace, the commit from the marker row.
     */
    default Set<Long> idsCommittedUpTo(long checkpointId) {
        Set<String> committed = markedGids();
        Set<Long> ids = new HashSet<>();
        for (ProtocolTrace.Event e : ProtocolTrace.events(sinkId(), ProtocolTrace.Kind.PREPARED)) {
            if (e.checkpointOfGid() <= checkpointId && committed.contains(e.gid)) {
                for (long id : e.ids()) {
                    ids.add(id);
                }
            }
        }
        return ids;
    }
}
