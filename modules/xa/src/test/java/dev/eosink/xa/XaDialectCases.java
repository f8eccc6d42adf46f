/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.TestJobs;
import dev.eosink.xa.internal.XaIds;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.eosink.testing.hardcases.TestJobs.cancelUnlessDone;
import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.failureOf;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.hardcases.TestJobs.messages;
import static dev.eosink.testing.hardcases.TestJobs.noRestarts;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the XA sink does its own way, against a real XA database; {@link XaMariaDbITCase} and {@link
 * XaPostgresITCase} run every test against theirs. The protocol's hard cases, which every sink shares,
 * run in {@link XaMariaDbHardCasesITCase} and {@link XaPostgresHardCasesITCase}; here: how prepared
 * branches behave on the database (what the dialects assume), the lock timeout, and the messages of a
 * record the database refuses and of a missing table.
 */
abstract class XaDialectCases {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    protected final XaBackend db = backend();

    protected String table;
    protected String sinkId;

    abstract XaBackend backend();

    @BeforeEach
    void createTable(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("t").toLowerCase(Locale.ROOT);
        String base = method.length() > 20 ? method.substring(0, 20) : method;
        table = "xa_" + base + "_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        sinkId = table.replace('_', '-');
        db.createTable(table);
        Faults.reset(sinkId);
    }

    @AfterEach
    void cleanUp() {
        db.rollbackAllPrepared(sinkId); // never leave branches behind for the next test, even when this one failed
        Faults.reset(sinkId);
    }

    XaSinkBuilder<Long> sinkBuilder() {
        return db.connect(XaSink.<Long>builder())
                .sinkId(sinkId)
                .table(table)
                .columns("id", "payload")
                .rows(id -> new Object[] {id, "row-" + id})
                .batchSize(100);
    }

    long rows() {
        return db.count("SELECT count(*) FROM " + table);
    }

    /**
     * A write of the writer's branch waits for a row lock that another transaction holds (an
     * uncommitted row with the same key): it fails within the lock timeout, naming the timeout, the
     * sink, the subtask, the table, the branch and the remedy; nothing becomes visible or stays prepared.
     */
    @Test
    void aWriteWaitingOnALockFailsWithinTheLockTimeoutNamingIt() throws Exception {
        db.execute("ALTER TABLE " + table + " ADD PRIMARY KEY (id)");
        Throwable failure = null;
        Duration took;
        try (Connection holder = db.connect()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " (id, payload) VALUES (42, 'held by another transaction')");
            }
            StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
            ids(env, 1_000, 5_000)
                    .sinkTo(sinkBuilder().lockTimeout(Duration.ofSeconds(2)).build());
            long t0 = System.nanoTime();
            JobClient job = env.executeAsync("write waits on a lock");
            try {
                job.getJobExecutionResult().get(40, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e;
            } finally {
                took = Duration.ofNanos(System.nanoTime() - t0);
                cancelUnlessDone(job);
                holder.rollback();
            }
        }
        assertThat(failure).as("the job fails").isNotNull();
        assertThat(took).as("lock timeout 2 s, plus the job's start").isLessThan(Duration.ofSeconds(30));
        assertThat(messages(failure))
                .contains("lock timeout (2000 ms")
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("XA branch e1/")
                .contains("Remedy: find the holder");
        assertThat(rows()).as("nothing of the epoch is visible").isZero();
        assertThat(db.prepared(sinkId)).isEmpty();
    }

    /**
     * A record the database refuses (NULL into NOT NULL) fails the job with a message that names sink,
     * table, subtask, checkpoint and record; nothing of its epoch becomes visible, nothing is left
     * prepared, and the password never shows.
     */
    @ParameterizedTest(name = "batch size {0}")
    @ValueSource(ints = {1, 100})
    void badRecordFailsNamingSinkTableSubtaskAndCheckpoint(int batchSize) {
        StreamExecutionEnvironment env = env(1, 60_000, noRestarts());
        ids(env, 1_000, 5_000)
                .sinkTo(sinkBuilder()
                        .rows(id -> new Object[] {id, id == 42 ? null : "row-" + id})
                        .batchSize(batchSize)
                        .build());
        String messages = messages(failureOf(() -> env.execute("bad record")));
        assertThat(messages)
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table)
                .contains("epoch of checkpoint 1");
        // A batch of one names the record; a batch of 100 names its range (the drivers do not say which entry).
        assertThat(messages)
                .contains(
                        batchSize == 1
                                ? "record #42 of the epoch (counting from 0) [42]"
                                : "in the batch of records #0 to #99 of the epoch");
        if (!db.sinkPassword().isEmpty()) {
            assertThat(messages).doesNotContain(db.sinkPassword());
        }
        assertThat(rows()).as("nothing of the epoch is visible").isZero();
        assertThat(db.prepared(sinkId)).isEmpty();
    }

    /**
     * A missing table is found at job start, with the remedy, never the password; the job fails without
     * restarts, since every restart would find the table missing again.
     */
    @Test
    void missingTableIsFoundAtStartWithoutThePassword() throws Exception {
        String messages = refusedAtStart(sinkBuilder().table(table + "_missing").build());
        assertThat(messages)
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains(table + "_missing")
                .contains("Remedy");
    }

    /** A column the sink writes that the table lacks: refused at start, without restarts. */
    @Test
    void missingColumnIsRefusedAtStart() throws Exception {
        String messages = refusedAtStart(sinkBuilder()
                .columns("id", "payload", "amount")
                .rows(id -> new Object[] {id, "row-" + id, 1})
                .build());
        assertThat(messages)
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table " + table + " with columns [id, payload, amount] cannot be read")
                .contains("amount")
                .contains("Remedy: create the table, fix the table or column names given to the sink");
    }

    /**
     * Runs {@code sink} over ids under Flink's default restart strategy, which restarts such a job without
     * end, and returns every message of its failure: it must fail at start for good, within {@link
     * TestJobs#TIMEOUT}, its writer started once (no restart), and no message shows the password.
     */
    String refusedAtStart(ExactlyOnceSink<Long> sink) throws Exception {
        StreamExecutionEnvironment env = TestJobs.envWithDefaultRestarts(1, 200);
        ids(env, 10, 1_000).sinkTo(FaultInjectingDatabase.wrap(sink));
        Throwable failure = TestJobs.failureWithin(env.executeAsync("refused at start"), TestJobs.TIMEOUT);
        assertThat(Faults.writerStarts(sinkId, 0))
                .as("writer starts: no restart")
                .containsExactly(0);
        String messages = messages(failure);
        if (!db.sinkPassword().isEmpty()) {
            assertThat(messages).doesNotContain(db.sinkPassword());
        }
        assertThat(db.prepared(sinkId)).as("prepared branches left").isEmpty();
        return messages;
    }

    /**
     * What the dialects assume of the database and its driver, measured: where a prepared branch lives,
     * who may commit it, that it survives its session's end, and that an unknown Xid answers XAER_NOTA.
     * Runs as the sink's own (least-privileged) user, so it also shows that this user may list branches.
     */
    @Test
    void preparedBranchesBehaveAsTheDialectAssumes() throws Exception {
        XADataSource ds = db.xaDataSource();
        Xid xid = XaIds.toXid(new TransactionId(sinkId, 0, 1, "aaaaaaaa"));
        Xid next = XaIds.toXid(new TransactionId(sinkId, 0, 2, "aaaaaaaa"));
        XAConnection preparer = ds.getXAConnection();
        XAConnection other = ds.getXAConnection();
        try {
            long preparerSession = session(preparer.getConnection());
            XAResource mine = preparer.getXAResource();
            mine.start(xid, XAResource.TMNOFLAGS);
            try (Statement s = preparer.getConnection().createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " (id, payload) VALUES (1, 'one')");
            }
            mine.end(xid, XAResource.TMSUCCESS);
            assertThat(mine.prepare(xid)).isEqualTo(XAResource.XA_OK);
            XAResource theirs = other.getXAResource();
            assertThat(List.of(theirs.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)))
                    .as("recover lists the branch to the sink's user")
                    .contains(xid);
            if (db.keepsPreparedBranchAttached()) {
                assertThat(xaError(() -> mine.start(next, XAResource.TMNOFLAGS)))
                        .as("next start on the preparer")
                        .isEqualTo(XAException.XAER_RMFAIL);
                assertThat(xaError(() -> theirs.commit(xid, false)))
                        .as("commit elsewhere while the preparer lives")
                        .isEqualTo(XAException.XAER_NOTA);
                preparer.close(); // detaches the branch; it survives
                assertThat(List.of(theirs.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)))
                        .contains(xid);
                // The server ends the session in steps, and answers a commit from elsewhere XAER_NOTA until it
                // detached the branch; the sink waits until the session left the process list, and so does this.
                awaitSessionGone(other.getConnection(), preparerSession);
                theirs.commit(xid, false);
            } else {
                theirs.commit(xid, false); // while the preparer is open
                mine.start(next, XAResource.TMNOFLAGS); // the preparer is idle again
                mine.end(next, XAResource.TMFAIL);
                mine.rollback(next);
            }
            assertThat(rows()).isEqualTo(1);
            assertThat(xaError(() -> theirs.commit(xid, false)))
                    .as("commit again")
                    .isEqualTo(XAException.XAER_NOTA);
            assertThat(xaError(() -> theirs.rollback(xid)))
                    .as("rollback of a finished branch")
                    .isEqualTo(XAException.XAER_NOTA);
        } finally {
            preparer.close();
            other.close();
        }
        assertThat(db.prepared(sinkId)).isEmpty();
    }

    /** The server's id of the session behind {@code c}, where the backend keeps a branch attached to it. */
    private long session(Connection c) throws SQLException {
        if (!db.keepsPreparedBranchAttached()) {
            return 0;
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Waits (up to 10 s) until session {@code id} has left the server's process list. */
    private static void awaitSessionGone(Connection c, long id) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (PreparedStatement s =
                    c.prepareStatement("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?")) {
                s.setLong(1, id);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
            }
            assertThat(System.nanoTime()).as("session %s ended within 10 s", id).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    interface XaCall {
        void run() throws Exception;
    }

    static int xaError(XaCall call) {
        try {
            call.run();
        } catch (XAException e) {
            return e.errorCode;
        } catch (Exception e) {
            throw new AssertionError("expected an XAException, got " + e, e);
        }
        throw new AssertionError("expected an XAException, the call succeeded");
    }
}
